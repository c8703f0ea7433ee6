"""The active-safety attachment server's state machine (gateway/attachments.py) over loop-back TCP, with
an in-memory lookup of one-time alarm numbers and Kafka sink and a real local media store: missing ranges
and resend, 0x9212 result 0 only after Kafka, refusals (unknown number, the alarm's public uuid, another
terminal's number, an expired one, oversize, chunk past the declared size), write-once storage, and a
stalled connection that is closed without holding up another upload."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fleet.media_store import LocalMediaStore
from fleet.settings import AttachmentsSettings
from fleet.topics import JT808_UPLINK
from gateway.attachments import AlarmRef, AttachmentServer, UploadGrant, add_range, alarm_key, missing_ranges
from protocols.jt808 import (
    AlarmAttachmentList,
    AttachmentFile,
    AttachmentFileDone,
    AttachmentFileDoneResponse,
    AttachmentFileInfo,
    FrameReader,
    JT808Error,
    Message,
    PlatformResponse,
    decode_frame,
    encode_frame,
)
from protocols.jt808.alarm_number import AlarmNumber
from protocols.jt808.attachment_stream import encode_chunk
from tests.unit.gateway.twins import MemorySink

PHONE = "013800000001"
START = datetime(2026, 11, 25, 1, 2, 3, tzinfo=UTC)
ALARM_NO = AlarmNumber("SIM0001", START, 1, 2)


NUMBERS: dict[str, str] = {}  # warn_uuid -> the one-time alarm number its 0x9208 carried
EXPIRED: set[str] = set()  # numbers past their validity


class Lookup:
    """The alarm numbers of ``alarms``' requests, each issued to its alarm's terminal."""

    def __init__(self, *alarms: AlarmRef) -> None:
        self.grants = {NUMBERS[a.warn_uuid]: a for a in alarms}
        self.addresses: dict[int, str | None] = {}  # device id -> its 7611 session's IP (default loop-back)

    async def session_address(self, device_id: int) -> str | None:
        return self.addresses.get(device_id, "127.0.0.1")

    async def find(self, number: str) -> UploadGrant | None:
        alarm = self.grants.get(number)
        if alarm is None:
            return None
        return UploadGrant(alarm, alarm.device_id, alarm.phone, number in EXPIRED)


def new_alarm(phone: str = PHONE) -> AlarmRef:
    alarm = AlarmRef(alarm_id=42, warn_uuid=secrets.token_hex(16), enterprise_id=3, device_id=9, car_id=None,
                     phone=phone, type=6, start_time=START)
    NUMBERS[alarm.warn_uuid] = secrets.token_hex(16)
    return alarm


class Terminal:
    """The terminal side of one connection: 808 frames and data chunks out, platform frames in."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.frames = FrameReader()
        self.inbox: list[Message] = []
        self.seq = 0

    def send(self, msg_id: int, body: Any) -> int:
        self.seq += 1
        self.writer.write(encode_frame(msg_id, body, phone=PHONE, seq=self.seq))
        return self.seq

    def chunk(self, name: str, offset: int, data: bytes) -> None:
        self.writer.write(encode_chunk(name, offset, data))

    async def next(self, timeout_s: float = 5.0) -> Message:
        await self.writer.drain()
        while not self.inbox:
            data = await asyncio.wait_for(self.reader.read(65536), timeout_s)
            assert data, "the server closed the connection"
            for item in self.frames.feed(data):
                assert not isinstance(item, JT808Error)
                self.inbox.append(decode_frame(item))
        return self.inbox.pop(0)

    async def ack(self, msg_id: int, body: Any) -> int:
        seq = self.send(msg_id, body)
        reply = (await self.next()).body
        assert isinstance(reply, PlatformResponse) and reply.reply_seq == seq and reply.reply_msg_id == msg_id
        return reply.result

    async def done(self, name: str, size: int) -> Any:
        self.send(0x1212, AttachmentFileDone(name, 0, size))
        return (await self.next()).body

    async def closed(self, timeout_s: float = 5.0) -> bool:
        while True:
            data = await asyncio.wait_for(self.reader.read(65536), timeout_s)
            if not data:
                return True

    async def listed(self, alarm: AlarmRef, files: list[tuple[str, int]]) -> int:
        return await self.ack(0x1210, AlarmAttachmentList("SIM0001", ALARM_NO, NUMBERS[alarm.warn_uuid], 0,
                                                          tuple(AttachmentFile(n, s) for n, s in files)))


@asynccontextmanager
async def serving(tmp_path: Path, *alarms: AlarmRef, sink: MemorySink | None = None,
                  **limits: Any) -> AsyncIterator[tuple[AttachmentServer, Callable[[], Any]]]:
    settings = AttachmentsSettings(**{"stall_timeout_s": 5.0, "kafka_ack_timeout_s": 5.0,
                                      "session_address_wait_s": 0.5, **limits})
    server = AttachmentServer(settings, Lookup(*alarms), sink or MemorySink(auto_store=True),
                              LocalMediaStore(tmp_path))
    await server.start(host="127.0.0.1", port=0)

    async def connect() -> Terminal:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        return Terminal(reader, writer)

    try:
        yield server, connect
    finally:
        await server.stop()


def test_ranges_merge_and_gaps_are_offset_length() -> None:
    received: list[tuple[int, int]] = []
    for start, end in [(0, 10), (30, 40), (10, 15), (35, 50)]:
        received = add_range(received, start, end)
    assert received == [(0, 15), (30, 50)]
    assert missing_ranges(received, 60) == [(15, 15), (50, 10)]
    assert missing_ranges([(0, 60)], 60) == []


def test_a_gap_is_asked_for_and_the_file_kept_only_when_whole(tmp_path: Path) -> None:
    alarm = new_alarm()
    data = secrets.token_bytes(20000)
    name = f"00_65_6502_1_{alarm.warn_uuid}.jpg"
    sink = MemorySink(auto_store=True)

    async def scenario() -> None:
        async with serving(tmp_path, alarm, sink=sink) as (_, connect):
            t = await connect()
            assert await t.listed(alarm, [(name, len(data))]) == 0
            assert await t.ack(0x1211, AttachmentFileInfo(name, 0, len(data))) == 0
            t.chunk(name, 0, data[:8192])
            t.chunk(name, 16384, data[16384:])
            answer = await t.done(name, len(data))
            assert isinstance(answer, AttachmentFileDoneResponse)
            assert (answer.result, answer.missing) == (1, ((8192, 8192),))
            assert sink.values(JT808_UPLINK) == []
            assert not list(tmp_path.rglob("*.jpg"))
            t.chunk(name, 8192, data[8192:16384])
            answer = await t.done(name, len(data))
            assert (answer.result, answer.missing) == (0, ())

    asyncio.run(scenario())
    key = alarm_key(alarm, name)
    assert key == f"/alarm/3/20261125/{alarm.warn_uuid}/{name}"
    assert LocalMediaStore(tmp_path).open(key).read() == data
    [record] = sink.values(JT808_UPLINK)
    assert (record["msg_id"], record["device_id"], record["enterprise_id"], record["phone"]) == (0x1212, 9, 3, PHONE)
    body = record["message"]["body"]
    assert body == {"alarm_uuid": alarm.warn_uuid, "alarm_no": ALARM_NO.to_json(), "name": name, "file_type": 0,
                    "size": len(data), "object_key": key, "sha256": hashlib.sha256(data).hexdigest(),
                    "file_store_type": 1}


def test_complete_is_answered_only_after_kafka_stored_the_record(tmp_path: Path) -> None:
    alarm = new_alarm()
    name = "00_65_6502_1_x.jpg"
    sink = MemorySink(auto_store=False)

    async def scenario() -> None:
        async with serving(tmp_path, alarm, sink=sink) as (_, connect):
            t = await connect()
            await t.listed(alarm, [(name, 5)])
            await t.ack(0x1211, AttachmentFileInfo(name, 0, 5))
            t.chunk(name, 0, b"hello")
            t.send(0x1212, AttachmentFileDone(name, 0, 5))
            await t.writer.drain()
            for _ in range(500):
                if sink.records:
                    break
                await asyncio.sleep(0.01)
            assert len(sink.records) == 1
            assert not t.inbox and not t.reader._buffer  # nothing answered yet
            sink.fail_all()  # Kafka refused: no 0x9212 result 0, a failure the terminal retries
            reply = (await t.next()).body
            assert isinstance(reply, PlatformResponse) and reply.result == 1
            sink.auto_store = True
            answer = await t.done(name, 5)
            assert (answer.result, answer.missing) == (0, ())

    asyncio.run(scenario())
    assert len(sink.records) == 2 and LocalMediaStore(tmp_path).open(alarm_key(alarm, name)).read() == b"hello"


def test_a_list_without_a_valid_number_of_its_terminal_is_refused_and_closed(tmp_path: Path) -> None:
    mine, other, stale = new_alarm(), new_alarm(phone="013800000099"), new_alarm()
    EXPIRED.add(NUMBERS[stale.warn_uuid])

    async def scenario() -> None:
        async with serving(tmp_path, mine, other, stale) as (server, connect):
            # unknown, the alarm's public uuid, another terminal's number, an expired number
            for number in (secrets.token_hex(16), mine.warn_uuid, NUMBERS[other.warn_uuid], NUMBERS[stale.warn_uuid]):
                t = await connect()
                result = await t.ack(0x1210, AlarmAttachmentList("SIM0001", ALARM_NO, number, 0,
                                                                 (AttachmentFile("a.jpg", 3),)))
                assert result == 1
                assert await t.closed()
            assert server.counters.att_unknown_alarms == 4

    asyncio.run(scenario())
    assert not list(tmp_path.rglob("*.jpg"))


def test_a_list_from_another_address_than_the_terminals_session_is_refused(tmp_path: Path) -> None:
    alarm = new_alarm()

    async def scenario() -> None:
        async with serving(tmp_path, alarm) as (server, connect):
            lookup = server.lookup
            assert isinstance(lookup, Lookup)
            for address in ("10.0.0.7", None):  # the session is elsewhere; there is no session
                lookup.addresses[alarm.device_id] = address
                t = await connect()
                assert await t.listed(alarm, [("a.jpg", 3)]) == 1
                assert await t.closed()
            lookup.addresses[alarm.device_id] = "127.0.0.1"
            t = await connect()
            assert await t.listed(alarm, [("a.jpg", 3)]) == 0

    asyncio.run(scenario())


def test_a_file_named_with_the_number_is_stored_and_listed_under_the_alarm_uuid(tmp_path: Path) -> None:
    alarm = new_alarm()
    number = NUMBERS[alarm.warn_uuid]
    sent, kept = f"00_65_6502_1_{number}.jpg", f"00_65_6502_1_{alarm.warn_uuid}.jpg"
    sink = MemorySink(auto_store=True)

    async def scenario() -> None:
        async with serving(tmp_path, alarm, sink=sink) as (_, connect):
            t = await connect()
            assert await t.listed(alarm, [(sent, 3)]) == 0
            assert await t.ack(0x1211, AttachmentFileInfo(sent, 0, 3)) == 0
            t.chunk(sent, 0, b"abc")
            answer = await t.done(sent, 3)
            assert (answer.name, answer.result) == (sent, 0)  # the terminal's name in the reply

    asyncio.run(scenario())
    [record] = sink.values(JT808_UPLINK)
    assert record["message"]["body"]["name"] == kept
    assert record["message"]["body"]["object_key"] == alarm_key(alarm, kept)
    assert number.encode().hex() not in record["raw_hex"] and kept.encode().hex() in record["raw_hex"]
    assert LocalMediaStore(tmp_path).open(alarm_key(alarm, kept)).read() == b"abc"


def test_a_second_upload_of_a_stored_name_keeps_the_first_bytes(tmp_path: Path) -> None:
    alarm = new_alarm()
    sink = MemorySink(auto_store=True)

    async def upload(t: Any, data: bytes) -> Any:
        assert await t.ack(0x1211, AttachmentFileInfo("a.jpg", 0, len(data))) == 0
        t.chunk("a.jpg", 0, data)
        return await t.done("a.jpg", len(data))

    async def scenario() -> None:
        async with serving(tmp_path, alarm, sink=sink) as (server, connect):
            t = await connect()
            assert await t.listed(alarm, [("a.jpg", 5)]) == 0
            assert (await upload(t, b"first")).result == 0
            again = await connect()  # the same bytes again (a retry after a lost 0x9212): accepted
            assert await again.listed(alarm, [("a.jpg", 5)]) == 0
            assert (await upload(again, b"first")).result == 0
            forged = await connect()  # other bytes under the stored name: refused, the file kept
            assert await forged.listed(alarm, [("a.jpg", 5)]) == 0
            reply = await upload(forged, b"forge")
            assert isinstance(reply, PlatformResponse) and reply.result == 1
            assert server.counters.att_rewrites_refused == 1

    asyncio.run(scenario())
    assert LocalMediaStore(tmp_path).open(alarm_key(alarm, "a.jpg")).read() == b"first"
    assert [r["message"]["body"]["sha256"] for r in sink.values(JT808_UPLINK)] == [
        hashlib.sha256(b"first").hexdigest()] * 2


def test_oversize_files_are_refused(tmp_path: Path) -> None:
    alarm = new_alarm()

    async def scenario() -> None:
        async with serving(tmp_path, alarm, max_file_bytes=1000) as (_, connect):
            t = await connect()  # declared over the limit: refused, closed
            assert await t.listed(alarm, [("big.jpg", 1001)]) == 1
            assert await t.closed()

            t = await connect()  # a chunk past the declared size refuses that file, not the others
            assert await t.listed(alarm, [("a.jpg", 10), ("b.jpg", 4)]) == 0
            assert await t.ack(0x1211, AttachmentFileInfo("a.jpg", 0, 10)) == 0
            t.chunk("a.jpg", 0, b"0123456789ABC")
            reply = await t.done("a.jpg", 10)
            assert isinstance(reply, PlatformResponse) and reply.result == 1
            assert await t.ack(0x1211, AttachmentFileInfo("b.jpg", 0, 4)) == 0
            t.chunk("b.jpg", 0, b"good")
            answer = await t.done("b.jpg", 4)
            assert (answer.result, answer.missing) == (0, ())
            assert await t.ack(0x1211, AttachmentFileInfo("c.jpg", 0, 4)) == 1  # not in the list

    asyncio.run(scenario())
    assert sorted(p.name for p in tmp_path.rglob("*.jpg")) == ["b.jpg"]


def test_a_stalled_upload_is_closed_and_does_not_hold_up_another(tmp_path: Path) -> None:
    alarm = new_alarm()
    data = secrets.token_bytes(3000)

    async def scenario() -> None:
        async with serving(tmp_path, alarm, stall_timeout_s=1.0) as (server, connect):
            stalled = await connect()
            assert await stalled.listed(alarm, [("s.jpg", 100)]) == 0
            await stalled.ack(0x1211, AttachmentFileInfo("s.jpg", 0, 100))
            stalled.chunk("s.jpg", 0, b"x" * 10)  # then nothing more
            await stalled.writer.drain()
            t = await connect()
            assert await t.listed(alarm, [("ok.jpg", len(data))]) == 0
            await t.ack(0x1211, AttachmentFileInfo("ok.jpg", 0, len(data)))
            t.chunk("ok.jpg", 0, data)
            answer = await t.done("ok.jpg", len(data))
            assert answer.result == 0
            t.writer.close()  # done and gone: only the silent upload may count as stalled
            assert await stalled.closed()
            assert server.counters.att_stalled == 1

    asyncio.run(scenario())
    assert [p.name for p in tmp_path.rglob("*.jpg")] == ["ok.jpg"]


def test_garbage_on_the_stream_closes_only_that_connection(tmp_path: Path) -> None:
    alarm = new_alarm()

    async def scenario() -> None:
        async with serving(tmp_path, alarm) as (_, connect):
            bad = await connect()
            bad.writer.write(b"GET / HTTP/1.1\r\n\r\n")
            assert await bad.closed()
            t = await connect()
            assert await t.listed(alarm, [("a.jpg", 1)]) == 0

    asyncio.run(scenario())


def test_a_connection_without_an_accepted_list_is_closed_at_the_list_deadline(tmp_path: Path) -> None:
    alarm = new_alarm()

    async def scenario() -> None:
        async with serving(tmp_path, alarm, list_timeout_s=0.5, stall_timeout_s=30.0) as (server, connect):
            silent = await connect()  # connected, never lists
            chatty = await connect()  # heartbeats keep it from stalling, but it never lists either
            for _ in range(2):  # within the deadline, well past it in total
                assert await chatty.ack(0x0002, b"") == 0
                await asyncio.sleep(0.2)
            assert await silent.closed(timeout_s=2.0) and await chatty.closed(timeout_s=2.0)
            assert server.counters.att_list_timeouts == 2 and server.counters.att_stalled == 0

    asyncio.run(scenario())
