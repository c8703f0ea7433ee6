"""Uplinks go to Kafka in batch records (one per partition per window), acks after their record is
stored, one write per terminal for the acks of a record, in-flight resends of a serial dropped and
resends of an acknowledged uplink acknowledged again without being forwarded."""

import asyncio
from collections.abc import Callable

from aiokafka.partitioner import DefaultPartitioner

from fleet.topics import JT808_UPLINK
from fleet.uplink_records import BATCH_HEADER
from protocols.jt808 import PlatformResponse
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import FakeTransport, Harness, frame, run, settle

PHONES = [f"0138000000{i:02d}" for i in range(1, 9)]


async def login_all(h: Harness) -> dict[str, FakeTransport]:
    transports = {}
    for i, phone in enumerate(PHONES):
        h.directory.add(phone, 10 + i, auth_code="CODE1")
        transports[phone] = await login(h, phone)
        h.sink.store_all()  # its online event (one at a time: a small produce_buffer holds few)
        await settle()
    h.sink.records.clear()
    h.sink.partitions.clear()
    h.sink.headers.clear()
    return transports


def uplink_records(h: Harness) -> list[tuple[bytes | None, list[dict[str, object]], int | None, dict[str, bytes]]]:
    return [(key, value, partition, dict(headers or ()))
            for (topic, key, value, _), partition, headers in zip(h.sink.records, h.sink.partitions, h.sink.headers,
                                                                  strict=True)
            if topic == JT808_UPLINK]


def test_uplinks_of_one_turn_go_as_one_record_per_partition_on_the_partition_of_each_phone() -> None:
    async def t(h: Harness) -> None:
        transports = await login_all(h)
        for phone, transport in transports.items():  # one event-loop turn: every terminal reads twice
            transport.protocol.data_received(frame(0x0200, position(1), seq=7, phone=phone)
                                             + frame(0x0200, position(2), seq=8, phone=phone))
        await settle()
        records = uplink_records(h)
        partitions = [p for _, _, p, _ in records]
        assert len(records) == len(set(partitions)) <= 4  # one record per partition
        for key, value, partition, headers in records:
            phones = [item["phone"] for item in value]
            assert key == ",".join(dict.fromkeys(phones)).encode()  # distinct phones, in order
            assert headers[BATCH_HEADER] == str(len(value)).encode()
            for phone in phones:  # Kafka's default partitioner would put a record keyed by it here
                assert partition == DefaultPartitioner()(phone.encode(), [0, 1, 2, 3], [0, 1, 2, 3])
            for phone in set(phones):  # a terminal's uplinks in its order
                assert [item["seq"] for item in value if item["phone"] == phone] == [7, 8]
        assert sum(len(value) for _, value, _, _ in records) == 2 * len(PHONES)
        assert all(t.replies() == [] for t in transports.values())  # nothing acked before Kafka stored it

    run(t)


def test_each_terminal_gets_its_acks_of_a_stored_record_in_one_write() -> None:
    async def t(h: Harness) -> None:
        transports = await login_all(h)
        writes: dict[str, int] = {}
        for phone, transport in transports.items():
            original = transport.write

            transport.write = _counting(writes, phone, original)  # type: ignore[method-assign]
            transport.protocol.data_received(b"".join(frame(0x0200, position(i), seq=20 + i, phone=phone)
                                                      for i in range(3)))
        await settle()
        h.sink.store_all()
        await settle()
        for phone, transport in transports.items():
            acks = [m.body for m in transport.replies() if isinstance(m.body, PlatformResponse)]
            assert [a.reply_seq for a in acks] == [20, 21, 22]
            assert writes[phone] == 1

    run(t)


def test_a_record_not_stored_acknowledges_none_of_its_uplinks() -> None:
    async def t(h: Harness) -> None:
        transports = await login_all(h)
        for phone, transport in transports.items():
            transport.protocol.data_received(frame(0x0200, position(1), seq=3, phone=phone))
        await settle()
        h.sink.fail_all()
        await settle()
        assert all(t.replies() == [] for t in transports.values())
        assert h.server.counters.produce_failed == len(PHONES)

    run(t)


def test_a_resend_of_a_serial_still_on_its_way_to_kafka_is_dropped_and_acknowledged_once() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()
        await settle()
        conn = transport.protocol
        conn.data_received(frame(0x0200, position(1), seq=40))
        await settle()
        conn.data_received(frame(0x0200, position(1), seq=40))  # the terminal's ack timer fired
        await settle()
        assert [v["seq"] for v in h.sink.values(JT808_UPLINK)] == [40]
        assert h.server.counters.resends_dropped == 1
        h.sink.store_all()
        await settle()
        acks = [m.body for m in transport.replies() if isinstance(m.body, PlatformResponse)]
        assert [a.reply_seq for a in acks] == [40]

    run(t)


def test_a_resend_of_an_acknowledged_uplink_is_acknowledged_again_and_not_stored_twice() -> None:
    # under overload the resend waited in the socket behind the rest while reads were paused, and is
    # read after its first copy was stored and acknowledged
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()
        await settle()
        conn = transport.protocol
        conn.data_received(frame(0x0200, position(1), seq=50))
        await settle()
        h.sink.store_all()
        await settle()
        conn.data_received(frame(0x0200, position(1), seq=50))  # crossed our ack
        await settle()
        acks = [m.body for m in transport.replies() if isinstance(m.body, PlatformResponse)]
        assert [a.reply_seq for a in acks] == [50, 50]  # acknowledged again, at once
        assert [v["seq"] for v in h.sink.values(JT808_UPLINK)] == [50]  # stored once
        assert h.server.counters.resends_reacked == 1
        # the same serial with another position (a terminal that wrapped, or one that never counts its
        # serials up) is a new uplink: stored
        conn.data_received(frame(0x0200, position(2), seq=50))
        await settle()
        assert [v["seq"] for v in h.sink.values(JT808_UPLINK)] == [50, 50]
        assert h.server.counters.resends_reacked == 1

    run(t)


def test_the_last_128_serials_are_remembered() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()
        await settle()
        conn = transport.protocol
        for seq in range(100, 100 + 129):  # 129 acks; the serial 128 after 100 takes its slot
            conn.data_received(frame(0x0200, position((seq - 100) % 60), seq=seq))
            await settle()
            h.sink.store_all()
            await settle()
        assert h.server.counters.positions_acked == 129
        conn.data_received(frame(0x0200, position(0), seq=100) + frame(0x0200, position(1), seq=101)
                           + frame(0x0200, position(128 % 60), seq=228))
        await settle()
        stored = [v["seq"] for v in h.sink.values(JT808_UPLINK)]
        assert stored.count(100) == 2  # forgotten: forwarded again (the sinks dedupe it)
        assert stored.count(101) == 1 and stored.count(228) == 1
        assert h.server.counters.resends_reacked == 2

    run(t)


def test_a_new_connection_remembers_nothing_of_the_last() -> None:
    # after a reconnect a terminal uploads what it had no ack for as 0x0704; what it resends as 0x0200
    # with an old serial is forwarded (the sinks dedupe), never acknowledged on another connection's word
    async def t(h: Harness) -> None:
        first = await login(h)
        h.sink.store_all()
        await settle()
        first.protocol.data_received(frame(0x0200, position(1), seq=60))
        await settle()
        h.sink.store_all()
        await settle()
        first.protocol.connection_lost(None)
        second = await login(h)
        h.sink.store_all()
        await settle()
        second.protocol.data_received(frame(0x0200, position(1), seq=60))
        await settle()
        assert [v["seq"] for v in h.sink.values(JT808_UPLINK)] == [60, 60]
        assert h.server.counters.resends_reacked == 0

    run(t)


def test_uplinks_wait_for_the_batch_window_then_go_together() -> None:
    async def t(h: Harness) -> None:
        transports = await login_all(h)
        first, second = list(transports.values())[:2]
        first.protocol.data_received(frame(0x0200, position(1), seq=1, phone=PHONES[0]))
        await settle()
        assert uplink_records(h) == []  # the window is open
        second.protocol.data_received(frame(0x0200, position(1), seq=1, phone=PHONES[1]))
        await asyncio.sleep(0.08)
        assert sum(len(value) for _, value, _, _ in uplink_records(h)) == 2

    run(t, batch_window_ms=40.0)


def _counting(writes: dict[str, int], phone: str, write: Callable[[bytes], None]) -> Callable[[bytes], None]:
    def counting(data: bytes) -> None:
        writes[phone] = writes.get(phone, 0) + 1
        write(data)

    return counting


def test_a_batch_over_max_bytes_is_split_into_records_of_one_partition_keeping_each_terminals_order() -> None:
    from gateway.counters import GatewayCounters
    from gateway.pipeline import UplinkPipeline
    from tests.unit.gateway.twins import MemorySink

    async def t() -> None:
        sink = MemorySink(auto_store=True, partitions=1)
        acked: list[tuple[str, int]] = []
        pipeline = UplinkPipeline(sink, GatewayCounters(), buffer_limit=10_000, batch_topic=JT808_UPLINK,
                                  batch_window_s=0.01, batch_max_bytes=1024)
        pipeline.start()
        for seq in range(60):
            phone = PHONES[seq % 3]
            value = b'{"phone": "%s", "seq": %d, "pad": "%s"}' % (phone.encode(), seq, b"x" * 60)
            pipeline.submit(JT808_UPLINK, phone.encode(), value,
                            lambda stored, p=phone, s=seq: acked.append((p, s)) if stored else None)
        for _ in range(50):
            await asyncio.sleep(0.01)
            if len(acked) == 60:
                break
        await pipeline.stop()
        records = [value for topic, _, value, _ in sink.records if topic == JT808_UPLINK]
        assert len(records) > 1 and all(len(orjson_dumps(r)) <= 1024 for r in records)
        assert [item["seq"] for record in records for item in record] == list(range(60))  # arrival order
        assert sorted(acked, key=lambda a: a[1]) == [(PHONES[s % 3], s) for s in range(60)]  # each acked once
        assert pipeline.in_flight == 0

    asyncio.run(t())


def test_a_failed_enqueue_is_retried_before_anything_after_it() -> None:
    from gateway.counters import GatewayCounters
    from gateway.pipeline import UplinkPipeline
    from tests.unit.gateway.twins import MemorySink

    class Flaky(MemorySink):
        failures = 2

        async def enqueue(self, topic, key, value, *, partition=None, headers=None):  # type: ignore[no-untyped-def]
            if self.failures:
                self.failures -= 1
                raise RuntimeError("buffer full")
            return await super().enqueue(topic, key, value, partition=partition, headers=headers)

    async def t() -> None:
        sink = Flaky(auto_store=True, partitions=2)
        pipeline = UplinkPipeline(sink, GatewayCounters(), buffer_limit=100, retry_backoff_s=0.01,
                                  batch_topic=JT808_UPLINK, batch_window_s=0.0)
        pipeline.start()
        for round_ in range(3):
            for phone in PHONES:
                pipeline.submit(JT808_UPLINK, phone.encode(), b'{"phone": "%s", "seq": %d}' % (phone.encode(), round_))
            await asyncio.sleep(0)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if pipeline.in_flight == 0:
                break
        await pipeline.stop()
        values = sink.values(JT808_UPLINK)
        assert len(values) == 3 * len(PHONES)  # nothing lost, nothing twice
        for phone in PHONES:
            assert [v["seq"] for v in values if v["phone"] == phone] == [0, 1, 2]

    asyncio.run(t())


def orjson_dumps(value: object) -> bytes:
    import orjson

    return orjson.dumps(value)
