"""Downlinks go to the connection holding the terminal, with its serial numbers and version."""

from protocols.jt808 import Authentication, RawBody
from tests.unit.gateway.test_connection import login
from tests.unit.gateway.twins import PHONE, Harness, frame, run, settle


def test_downlink_is_written_to_the_holding_connection_only() -> None:
    async def t(h: Harness) -> None:
        target = await login(h)
        h.directory.add("013800000002", 2, auth_code="CODE2")
        other = await login(h, "013800000002", "CODE2")
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "c1"})
        h.server.handle_downlink({"phone": "013899999999", "msg_id": 0x8104, "body_hex": ""})
        [msg] = target.replies()
        assert msg.header.msg_id == 0x8104 and msg.header.phone == PHONE
        assert msg.header.seq == 1  # after the authentication acknowledgement (seq 0)
        assert other.replies() == []
        assert h.server.counters.downlinks_delivered == 1
        assert h.server.counters.downlinks_ignored == 1

    run(t)


def test_downlink_uses_the_terminals_2019_header() -> None:
    async def t(h: Harness) -> None:
        phone19 = "00000000" + PHONE
        h.directory.add(phone19, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0102, Authentication("CODE1", "8600", "1").encode("2019"), phone=phone19,
                                 version="2019"))
        await settle()
        transport.replies()
        h.server.handle_downlink({"phone": phone19, "msg_id": 0x8900, "body_hex": "0041"})
        [msg] = transport.replies()
        assert msg.header.version == "2019" and msg.header.msg_id == 0x8900
        assert msg.body == RawBody("0041")

    run(t)


def test_long_downlink_is_sub_packaged() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8900, "body_hex": "ab" * 2500})
        packages = transport.replies()
        assert [m.header.package_index for m in packages] == [1, 2, 3]
        assert len({m.header.seq for m in packages}) == 3

    run(t)


def test_a_gb_command_is_left_to_the_gb_gateway() -> None:
    async def t(h: Harness) -> None:
        target = await login(h)
        h.server.handle_downlink({"vin": "LNBSCU3H5JR000001", "msg_id": 0x80, "body_hex": "1A0301040506000", "command_id": "9"})
        assert target.replies() == []
        assert (h.server.counters.downlinks_ignored, h.server.counters.downlinks_invalid) == (1, 0)

    run(t)


def test_invalid_downlink_is_counted_and_ignored() -> None:
    async def t(h: Harness) -> None:
        await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": "x"})
        h.server.handle_downlink({"_invalid": True})
        assert h.server.counters.downlinks_invalid == 2

    run(t)
