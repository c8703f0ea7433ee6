"""Back-pressure: a bounded number of uplinks awaits Kafka; reading pauses at the limit; order holds."""

from fleet.topics import JT808_UPLINK
from protocols.jt808 import PlatformResponse
from tests.unit.gateway.test_batching import PHONES, login_all
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import Harness, frame, run, settle


def test_reading_pauses_when_the_uplink_buffer_is_full_and_resumes_after_kafka_catches_up() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()  # the online event
        await settle()
        conn = transport.protocol
        conn.data_received(b"".join(frame(0x0200, position(i), seq=100 + i) for i in range(10)))
        await settle()
        assert h.server.pipeline is not None
        assert h.server.pipeline.in_flight == 4  # produce_buffer
        assert not transport.reading
        assert transport.replies() == []  # nothing acknowledged before Kafka
        for _ in range(5):
            h.sink.store_all()
            await settle()
        assert transport.reading
        seqs = [v["seq"] for v in h.sink.values(JT808_UPLINK)]
        assert seqs == list(range(100, 110))  # per-terminal order kept
        acks = transport.replies()
        assert [a.body.reply_seq for a in acks if isinstance(a.body, PlatformResponse)] == list(range(100, 110))
        assert h.server.counters.backpressure_pauses >= 1

    run(t, produce_buffer=4)


def test_one_terminals_unacknowledged_uplinks_are_capped() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()
        await settle()
        transport.protocol.data_received(b"".join(frame(0x0200, position(i), seq=i) for i in range(6)))
        await settle()
        assert len(h.sink.values(JT808_UPLINK)) == 3
        assert not transport.reading
        h.sink.store_all()
        await settle()
        h.sink.store_all()
        await settle()
        assert len(h.sink.values(JT808_UPLINK)) == 6

    run(t, connection_in_flight_max=3)


def test_no_acknowledgement_while_kafka_is_unreachable() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.ready.clear()  # broker down: the pump cannot hand records over
        transport.protocol.data_received(frame(0x0200, position(), seq=5))
        await settle()
        assert transport.replies() == []
        h.sink.ready.set()
        await settle()
        h.sink.store_all()
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.reply_seq == 5

    run(t)


def test_a_connection_paused_by_back_pressure_is_not_closed_as_idle() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.sink.store_all()
        await settle()
        conn = transport.protocol
        conn.data_received(b"".join(frame(0x0200, position(i), seq=i) for i in range(4)))
        await settle()
        assert not transport.reading  # Kafka has not acknowledged: we stopped reading
        conn.sweep(conn.last_rx_at + 10.0)
        await settle()
        assert not transport.closing and h.server.counters.idle_timeouts == 0
        h.sink.store_all()
        await settle()
        h.sink.store_all()
        await settle()
        assert transport.reading
        conn.sweep(conn.last_rx_at + 3.0)  # reading again: a silent terminal does time out
        await settle()
        assert transport.closing and h.server.counters.idle_timeouts == 1

    run(t, produce_buffer=2, idle_timeout_s=2.0)


def test_terminals_paused_by_a_full_buffer_take_turns() -> None:
    # Overload: eight terminals with ten positions each behind a buffer of four. Each time Kafka catches
    # up, the terminal that waited longest goes next; none waits for the others to finish.
    async def t(h: Harness) -> None:
        transports = await login_all(h)
        for phone, transport in transports.items():
            transport.protocol.data_received(b"".join(frame(0x0200, position(i), seq=i, phone=phone)
                                                      for i in range(10)))
        await settle()
        served: list[str] = []
        for _ in range(len(PHONES)):
            before = len(h.sink.values(JT808_UPLINK))
            h.sink.store_all()
            await settle()
            served += [v["phone"] for v in h.sink.values(JT808_UPLINK)[before:]]
        assert set(served) == set(PHONES)  # every terminal was served within one turn each
        for _ in range(40):  # the rest: 80 positions, at most 4 at a time
            h.sink.store_all()
            await settle()
        for phone, transport in transports.items():  # all acknowledged, each terminal in its own order
            acks = [m.body.reply_seq for m in transport.replies() if isinstance(m.body, PlatformResponse)]
            assert acks == list(range(10)), phone

    run(t, produce_buffer=4)
