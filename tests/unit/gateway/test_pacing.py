"""Downlink pacing per terminal and the jt808.sent.v1 records (gateway/downlinks.py)."""

import asyncio

from fleet.topics import JT808_SENT
from protocols.jt808 import Authentication, Message, TerminalResponse
from tests.unit.gateway.test_connection import login
from tests.unit.gateway.twins import PHONE, FakeTransport, Harness, frame, run, settle

CANONICAL = PHONE.lstrip("0")


def answer(h: Harness, written: Message, msg_id: int | None = None, seq: int = 50) -> None:
    """The terminal answers `written` with a 0x0001 (naming `msg_id`, default the written one)."""
    conn = next(iter(h.server.ctx.connections))  # type: ignore[union-attr]
    body = TerminalResponse(written.header.seq, msg_id or written.header.msg_id, 0).encode("2013")
    conn.data_received(frame(0x0001, body, seq=seq))


def commands(transport: FakeTransport) -> list[Message]:
    """Frames written since the last call, without the 0x8001 acknowledgements."""
    return [m for m in transport.replies() if m.header.msg_id != 0x8001]


def sent(h: Harness) -> list[dict]:
    return h.sink.values(JT808_SENT)


def test_second_downlink_waits_for_the_reply_to_the_first() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8106, "body_hex": "010000005500", "command_id": "2"})
        [first] = commands(transport)
        assert first.header.msg_id == 0x8104
        answer(h, first, msg_id=0x8103)  # a reply naming another message does not release it
        await settle()
        assert commands(transport) == []
        answer(h, first, seq=51)
        await settle()
        [second] = commands(transport)
        assert second.header.msg_id == 0x8106 and second.header.seq != first.header.seq

    run(t)


def test_a_reply_wait_that_expires_releases_the_next() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8201, "body_hex": "", "command_id": "2"})
        assert [m.header.msg_id for m in commands(transport)] == [0x8104]
        written: list[Message] = []
        for _ in range(100):  # the terminal never answers; the wait is 0.05 s
            await asyncio.sleep(0.01)
            written += commands(transport)
            if written:
                break
        assert [m.header.msg_id for m in written] == [0x8201]
        assert h.server.counters.downlink_reply_timeouts == 1

    run(t, downlink_reply_wait_s=0.05)


def test_past_the_queue_bound_a_downlink_fails_queue_full() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        for command_id in ("1", "2", "3"):
            h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": command_id})
        await settle()
        assert len(commands(transport)) == 1
        events = {(r["command_id"], r["event"], r["reason"]) for r in sent(h)}
        assert events == {("1", "sent", None), ("3", "failed", "queue_full")}  # "2" waits

    run(t, downlink_queue_max=1)


def test_closing_fails_the_awaited_and_the_queued_downlinks() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "2"})
        transport.close()
        await settle()
        failed = [(r["command_id"], r["reason"], r["seq"]) for r in sent(h) if r["event"] == "failed"]
        assert failed == [("1", "closed", None), ("2", "closed", None)]

    run(t)


def test_messages_that_expect_no_reply_are_not_paced() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8800, "body_hex": "0000000100"})
        assert [m.header.msg_id for m in commands(transport)] == [0x8104, 0x8800]

    run(t)


def test_sent_records_carry_the_serial_and_frame_written_but_not_the_general_replies() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)  # its 0x8001 is not recorded
        await settle()
        assert sent(h) == []
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "7"})
        written = transport.written.hex()
        [message] = commands(transport)
        await settle()
        [record] = sent(h)
        assert record["seq"] == message.header.seq and record["raw_hex"] == written
        assert (record["msg_id"], record["command_id"], record["event"], record["packages"]) == (0x8104, "7", "sent", 1)
        assert record["phone"] == CANONICAL and record["device_id"] == 1
        [key] = [k for topic, k, _, _ in h.sink.records if topic == JT808_SENT]
        assert key == CANONICAL.encode()

    run(t)


def test_a_sub_packaged_downlink_is_one_record_released_by_a_reply_to_any_package() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8900, "body_hex": "ab" * 2500, "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "2"})
        packages = commands(transport)
        assert [m.header.package_index for m in packages] == [1, 2, 3]
        await settle()
        [record] = sent(h)
        assert (record["seq"], record["packages"]) == (packages[0].header.seq, 3)
        answer(h, packages[2])
        await settle()
        assert [m.header.msg_id for m in commands(transport)] == [0x8104]

    run(t)


def test_sent_records_past_their_bound_are_dropped_and_uplinks_still_flow() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        for i in range(3):
            h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8800, "body_hex": f"0000000{i}00"})
        assert len(transport.replies()) == 3  # the frames are written all the same
        await settle()
        assert len(sent(h)) == 1 and h.server.counters.sent_records_dropped == 2
        conn = next(iter(h.server.ctx.connections))  # type: ignore[union-attr]
        conn.data_received(frame(0x0002, b"", seq=9))  # heartbeat: forwarded and acknowledged
        await settle()
        assert [m.header.msg_id for m in transport.replies()] == [0x8001]

    run(t, sent_record_buffer=1)


def test_a_downlink_naming_the_sim_number_reaches_a_2019_terminal_in_its_own_header() -> None:
    async def t(h: Harness) -> None:
        phone19 = "00000000" + PHONE
        h.directory.add(phone19, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0102, Authentication("CODE1", "8600", "1").encode("2019"), phone=phone19,
                                 version="2019"))
        await settle()
        transport.replies()
        h.server.handle_downlink({"phone": CANONICAL, "msg_id": 0x8104, "body_hex": ""})
        [msg] = transport.replies()
        assert (msg.header.phone, msg.header.version) == (phone19, "2019")
        await settle()
        assert [r["phone"] for r in sent(h)] == [CANONICAL]

    run(t)


def test_a_malformed_reply_fails_its_command_as_answered_malformed_and_releases_the_next() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8201, "body_hex": "", "command_id": "2"})
        [first] = commands(transport)
        conn = next(iter(h.server.ctx.connections))  # type: ignore[union-attr]
        # a 0x0104 answering the query: its serial, one parameter of 4 bytes that holds only 2
        malformed = first.header.seq.to_bytes(2, "big") + bytes.fromhex("01 00000001 04 0000")
        conn.data_received(frame(0x0104, malformed, seq=60))
        await settle()
        replies = transport.replies()
        [ack] = [m for m in replies if m.header.msg_id == 0x8001]
        assert (ack.body.reply_seq, ack.body.reply_msg_id, ack.body.result) == (60, 0x0104, 2)
        assert [m.header.msg_id for m in replies if m.header.msg_id != 0x8001] == [0x8201]  # no 30 s wait
        failed = [r for r in sent(h) if r["event"] == "failed"]
        assert [(r["command_id"], r["reason"]) for r in failed] == [("1", "reply_malformed")]
        assert h.server.counters.downlink_replies_malformed == 1

    run(t)


def test_a_malformed_general_reply_naming_another_message_does_not_touch_the_command() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        h.server.handle_downlink({"phone": PHONE, "msg_id": 0x8104, "body_hex": "", "command_id": "1"})
        [first] = commands(transport)
        conn = next(iter(h.server.ctx.connections))  # type: ignore[union-attr]
        # a 0x0001 one byte short (no result) that answers some other message id
        conn.data_received(frame(0x0001, first.header.seq.to_bytes(2, "big") + b"\x81\x03", seq=61))
        await settle()
        assert [r for r in sent(h) if r["event"] == "failed"] == []
        assert h.server.counters.downlink_replies_malformed == 0

    run(t)
