"""Sub-packaged uplinks: reassembly, acknowledgements, 0x8003 for missing packages."""

from fleet.topics import JT808_UPLINK
from protocols.jt808 import (
    BatchLocationUpload,
    LocationReport,
    PlatformResponse,
    ResendSubpackagesRequest,
    decode_body,
    encode_subpackages,
)
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import PHONE, Harness, run, settle


def _batch_packages(first_seq: int = 200, items: int = 6, max_body: int = 100) -> list[bytes]:
    reports = tuple(decode_body(0x0200, position(i)) for i in range(items))
    body = BatchLocationUpload(1, reports)  # type: ignore[arg-type]
    return encode_subpackages(0x0704, body, phone=PHONE, seq=first_seq, max_body=max_body)


def test_packages_are_reassembled_into_one_uplink_acknowledged_after_kafka() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        packages = _batch_packages()
        assert len(packages) >= 3
        conn = transport.protocol
        for package in [packages[1], packages[0], *packages[2:]]:
            conn.data_received(package)
        await settle()
        acks = [a.body for a in transport.replies()]
        assert all(isinstance(a, PlatformResponse) and a.result == 0 for a in acks)
        assert len(acks) == len(packages) - 1  # the completing package waits for Kafka
        [uplink] = h.sink.values(JT808_UPLINK)
        assert uplink["seq"] == 200 and uplink["msg_id"] == 0x0704
        assert uplink["message"]["body"]["kind"] == 1
        assert len(uplink["message"]["body"]["items"]) == 6
        assert uplink["raw_hex"] == b"".join(packages).hex()
        h.sink.store_all()
        await settle()
        [last_ack] = transport.replies()
        assert isinstance(last_ack.body, PlatformResponse)
        assert last_ack.body.reply_seq == 200 + len(packages) - 1

    run(t)


def test_missing_packages_are_requested_with_8003() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        packages = _batch_packages(first_seq=300, items=10, max_body=60)
        total = len(packages)
        conn = transport.protocol
        for index, package in enumerate(packages, start=1):
            if index not in (2, 4):
                conn.data_received(package)
        await settle()
        requests = [m.body for m in transport.replies() if m.header.msg_id == 0x8003]
        assert requests == [ResendSubpackagesRequest(300, (2, 4))]
        conn.sweep(conn.last_rx_at + 0.5)  # quiet for less than resend_after_s: nothing yet
        assert [m for m in transport.replies() if m.header.msg_id == 0x8003] == []
        conn.sweep(conn.last_rx_at + 1.5)
        again = [m.body for m in transport.replies() if m.header.msg_id == 0x8003]
        assert again == [ResendSubpackagesRequest(300, (2, 4))]
        conn.data_received(packages[1])
        conn.data_received(packages[3])
        await settle()
        [uplink] = h.sink.values(JT808_UPLINK)
        assert len(uplink["message"]["body"]["items"]) == 10
        assert h.server.counters.subpackage_resend_requests == 2
        assert total > 4

    run(t, subpackage_resend_after_s=1.0, idle_timeout_s=100.0)


def test_packages_before_authentication_are_rejected() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(_batch_packages()[0])
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
        assert h.sink.records == []

    run(t)


def test_reassembly_memory_bound_rejects_packages_beyond_it() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(_batch_packages()[0])
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
        assert h.server.counters.subpackage_dropped == 1

    run(t, subpackage_max_bytes=50)


def test_location_report_roundtrip_helper_is_sane() -> None:
    assert isinstance(decode_body(0x0200, position(1)), LocationReport)
