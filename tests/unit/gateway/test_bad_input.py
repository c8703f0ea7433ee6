"""Bad input is counted, answered per the standard where the header is readable, and never spreads."""

import asyncio

import pytest

from fleet.topics import JT808_UPLINK
from protocols.jt808 import PlatformResponse
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import Harness, frame, run, settle


def _corrupt_checksum(good: bytes) -> bytes:
    body = bytearray(good)
    body[-2] ^= 0x01 if body[-2] not in (0x7C, 0x7D, 0x7F, 0x7E) else 0x10
    return bytes(body)


def test_bad_checksum_is_answered_with_message_error() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(_corrupt_checksum(frame(0x0200, position(), seq=77)))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse)
        assert (ack.body.reply_seq, ack.body.reply_msg_id, ack.body.result) == (77, 0x0200, 2)
        await asyncio.sleep(0.2)  # past the gateway's batch window
        [logged] = h.sink.values(JT808_UPLINK)  # for the message log only: no data, no position
        assert "message" not in logged and logged["refused"]["reason"] == "malformed"
        assert "ChecksumError" in logged["refused"]["error"]
        assert h.server.counters.bad_checksum == 1

    run(t)


def test_garbage_is_counted_and_the_next_good_frame_still_works() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(b"\x00\x01GARBAGE\xff" * 10 + frame(0x0002, seq=5))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (5, 0)
        # after a 7e every stretch is a frame candidate: the garbage fails to decode
        assert h.server.counters.decode_errors == 1
        assert not transport.closing

    run(t)


def test_garbage_before_the_first_frame_is_a_framing_error() -> None:
    async def t(h: Harness) -> None:
        h.directory.add("013800000001", 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(b"GET / HTTP/1.1\r\n\r\n" + frame(0x0002, seq=5))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1  # not authenticated
        assert h.server.counters.framing_errors == 1

    run(t)


def test_truncated_frame_gets_message_error_when_header_is_readable() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        good = frame(0x0200, position(), seq=8)
        inner = good[1:-2]
        truncated = inner[:-4]
        from protocols.jt808.framing import frame_content

        # a frame whose body-length field says more than it carries (checksum recomputed)
        transport.protocol.data_received(frame_content(truncated))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (8, 2)
        assert h.server.counters.decode_errors == 1

    run(t)


def test_a_refused_frame_of_the_terminal_reaches_the_message_log_with_why_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway import access_log
    from protocols.jt808.framing import frame_content

    monkeypatch.setattr(access_log, "REFUSED_LOGGED_PER_CONNECTION", 3)

    async def t(h: Harness) -> None:
        transport = await login(h)
        truncated = frame_content(frame(0x0200, position(), seq=8)[1:-2][:-4])  # body-length says more
        for _ in range(5):
            transport.protocol.data_received(truncated)
            await settle()
        await asyncio.sleep(0.2)  # past the gateway's batch window
        logged = h.sink.values(JT808_UPLINK)
        assert len(logged) == 3  # the rest only counted
        first = logged[0]
        assert (first["msg_id"], first["seq"], first["device_id"], first["raw_hex"]) == (0x0200, 8, 1, truncated.hex())
        assert (first["refused"]["result"], first["refused"]["reason"]) == (2, "malformed")
        assert "LengthError" in first["refused"]["error"] and "message" not in first  # no step reads it as data
        assert h.server.counters.decode_errors == 5

    run(t)


def test_unreadable_short_frame_gets_no_reply() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(bytes.fromhex("7E0100002C0123454A7E"))
        await settle()
        assert transport.replies() == []
        assert h.server.counters.decode_errors == 1

    run(t)


def test_oversize_frame_is_rejected_without_buffering_it() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        conn = transport.protocol
        conn.data_received(b"\x7e" + b"\x01" * 5000)
        conn.data_received(b"\x01" * 5000 + b"\x7e" + frame(0x0002, seq=4))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.reply_seq == 4
        assert h.server.counters.framing_errors >= 1

    run(t, max_frame_bytes=1024)


def test_flood_of_frames_pauses_reading_for_that_connection_only() -> None:
    async def t(h: Harness) -> None:
        flooder = await login(h)
        h.directory.add("013800000002", 2, auth_code="CODE2")
        calm = await login(h, "013800000002", "CODE2")
        flooder.protocol.data_received(b"".join(frame(0x0002, seq=i) for i in range(50)))
        await settle()
        assert h.server.counters.flood_throttled == 1
        assert not flooder.reading
        assert len(flooder.replies()) < 50  # the rest waits for the next second
        calm.protocol.data_received(frame(0x0002, seq=1))
        await settle()
        assert len(calm.replies()) == 1 and calm.reading

    run(t, max_frames_per_s=10)


def test_terminal_that_does_not_read_is_dropped() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.pause_writing()
        await settle()
        assert transport.aborted
        assert h.server.counters.slow_reader_dropped == 1

    run(t)


def test_encrypted_body_is_answered_not_supported() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        from protocols.jt808.framing import frame_content

        inner = bytearray(frame(0x0002, seq=6)[1:-2])
        inner[2] |= 0x04  # attribute bit 10: RSA
        transport.protocol.data_received(frame_content(bytes(inner)))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (6, 3)

    run(t)


def test_decoder_crash_costs_one_frame_not_the_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    import gateway.inbound as inbound

    def boom(_frame: bytes) -> None:
        raise RuntimeError("codec bug")

    async def t(h: Harness) -> None:
        transport = await login(h)
        monkeypatch.setattr(inbound, "decode_frame", boom)
        transport.protocol.data_received(frame(0x0002, seq=1))
        await settle()
        monkeypatch.undo()
        transport.protocol.data_received(frame(0x0002, seq=2))
        await settle()
        acks = transport.replies()
        assert [(a.body.reply_seq, a.body.result) for a in acks] == [(1, 2), (2, 0)]  # type: ignore[attr-defined]
        assert not transport.closing

    run(t)
