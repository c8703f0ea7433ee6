"""The active-safety attachment server's state machine (gateway/attachments.py) over loop-back TCP, with
an in-memory alarm lookup and Kafka sink and a real local media store: missing ranges and resend, 0x9212
result 0 only after Kafka, refusals (wrong uuid, another terminal's alarm, oversize, chunk past the
declared size) and a stalled connection that is closed without holding up another upload."""

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
from gateway.attachments import AlarmRef, AttachmentServer, add_range, alarm_key, missing_ranges
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


class Lookup:
    def __init__(self, *alarms: AlarmRef) -> None:
        self.alarms = {a.warn_uuid: a for a in alarms}

    async def find(self, warn_uuid: str) -> AlarmRef | None:
        return self.alarms.get(warn_uuid)


def new_alarm(phone: str = PHONE) -> AlarmRef:
    return AlarmRef(alarm_id=42, warn_uuid=secrets.token_hex(16), enterprise_id=3, device_id=9, car_id=None,
                    phone=phone, type=6, start_time=START)


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
        return await self.ack(0x1210, AlarmAttachmentList("SIM0001", ALARM_NO, alarm.warn_uuid, 0,
                                                          tuple(AttachmentFile(n, s) for n, s in files)))


@asynccontextmanager
async def serving(tmp_path: Path, *alarms: AlarmRef, sink: MemorySink | None = None,
                  **limits: Any) -> AsyncIterator[tuple[AttachmentServer, Callable[[], Any]]]:
    settings = AttachmentsSettings(**{"stall_timeout_s": 5.0, "kafka_ack_timeout_s": 5.0, **limits})
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


def test_unknown_uuid_or_another_terminals_alarm_is_refused_and_closed(tmp_path: Path) -> None:
    other = new_alarm(phone="013800000099")

    async def scenario() -> None:
        async with serving(tmp_path, other) as (server, connect):
            for uuid in (secrets.token_hex(16), other.warn_uuid):
                t = await connect()
                result = await t.ack(0x1210, AlarmAttachmentList("SIM0001", ALARM_NO, uuid, 0,
                                                                 (AttachmentFile("a.jpg", 3),)))
                assert result == 1
                assert await t.closed()
            assert server.counters.att_unknown_alarms == 2

    asyncio.run(scenario())
    assert not list(tmp_path.rglob("*.jpg"))


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
