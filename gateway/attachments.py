"""The active-safety attachment server (issue 9 §3): terminals upload an alarm's evidence files here.

After an active-safety alarm with attachments the platform sends 0x9208 (this server's address and the
alarm's 32-char uuid, ``alarm.warn_uuid``). The terminal opens a NEW TCP connection here and sends, as
JT/T 808 frames mixed with raw data chunks on the same stream:

1. 0x1210 the alarm's attachment list (uuid, files and sizes). An uuid that is no alarm of ours, or the
   alarm of another terminal, is refused (0x8001 result 1) and the connection closed. Too many files, a
   file over ``max_file_bytes`` or a name that is not a plain file name: refused and closed too.
2. per file 0x1211 (name, type, size: must match the list), then the data as ``0x30316364`` chunks
   (``protocols/jt808/attachment_stream.py``: name, offset, length, bytes), then 0x1212 (done).
3. 0x9212 answers 0x1212: result 1 with the missing (offset, length) ranges, which the terminal sends
   again followed by another 0x1212, until the file is whole; then the file goes to the media store
   (key ``/alarm/<enterprise>/<yyyymmdd of the alarm>/<warn_uuid>/<name>``, in an executor), an uplink
   record (msg_id 0x1212, ``message.body`` = alarm_uuid, alarm_no, name, file_type, size, object_key,
   sha256, file_store_type; no data bytes) goes to ``jt808.uplink.v1`` through the gateway's
   ``UplinkPipeline``, and only once Kafka acknowledged it, 0x9212 result 0.

A chunk past the declared size (a file larger than declared) refuses THAT file: its 0x1212 gets 0x8001
result 1 and nothing is stored; the connection and the other files go on. Each connection is its own
task reading with a ``stall_timeout_s`` deadline: a stalled upload is closed and never blocks another.
Memory: one file buffer per connection (at most ``max_file_bytes``; a 0x1211 for the next file drops an
unfinished one, which then starts over), freed once the file is stored; ``max_connections`` at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import click
import orjson
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from fleet.media_store import MediaStore, StoredObject, build_media_store
from fleet.phones import canonical_phone
from fleet.settings import AttachmentsSettings
from fleet.topics import JT808_UPLINK
from gateway import replies as r
from gateway.counters import GatewayCounters
from gateway.payloads import utc_now_iso
from gateway.pipeline import RecordSink, UplinkPipeline
from protocols.jt808 import (
    AlarmAttachmentList,
    AttachmentFileDone,
    AttachmentFileDoneResponse,
    AttachmentFileInfo,
    JT808Error,
    Message,
    decode_frame,
    encode_frame,
)
from protocols.jt808.attachment_stream import MAGIC, parse_chunk
from protocols.jt808.jsonify import header_json

log = logging.getLogger("gateway.attachments")

ATTACHMENT_LIST = 0x1210
FILE_INFO = 0x1211
FILE_DONE = 0x1212
FILE_DONE_REPLY = 0x9212
HEARTBEAT = 0x0002
RESULT_COMPLETE = 0
RESULT_RESEND = 1
MAX_RANGES = 0xFF  # the count of missing ranges in 0x9212 is a BYTE
_MAGIC_BYTES = MAGIC.to_bytes(4, "big")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,49}$")  # a plain file name (BYTE[50] on the wire)
EVENT_CODES = {5: 64, 6: 65, 7: 66, 8: 67}  # alarm type -> media event code (platform-spec §9)


@dataclass(frozen=True)
class AlarmRef:
    """The alarm an upload belongs to (``alarm`` row by ``warn_uuid``) and its terminal."""

    alarm_id: int
    warn_uuid: str
    enterprise_id: int
    device_id: int
    car_id: int | None
    phone: str
    type: int
    start_time: datetime
    alarm_no: dict[str, Any] | None = None


class AlarmLookup(Protocol):
    async def find(self, warn_uuid: str) -> AlarmRef | None: ...


_FIND = ("SELECT id, warn_uuid, enterprise_id, device_id, car_id, phone, type, start_time, alarm_no "
         "FROM alarm WHERE warn_uuid = %s ORDER BY id LIMIT 1")


class PostgresAlarmLookup:
    """``AlarmLookup`` over the ``alarm`` table (migration 0018; parameterised SQL)."""

    def __init__(self, database_url: str, *, pool_max: int = 2) -> None:
        self._pool = AsyncConnectionPool(database_url, min_size=1, max_size=pool_max, open=False)

    async def open(self) -> None:
        await self._pool.open()

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, warn_uuid: str) -> AlarmRef | None:
        async with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(_FIND, (warn_uuid,))
            row = await cur.fetchone()
        if row is None:
            return None
        return AlarmRef(int(row["id"]), str(row["warn_uuid"]), int(row["enterprise_id"]), int(row["device_id"]),
                        row["car_id"], str(row["phone"]), int(row["type"]), row["start_time"], row["alarm_no"])


def alarm_key(alarm: AlarmRef, name: str) -> str:
    """The media-store key of one attachment (contract E): by enterprise, alarm day, alarm uuid."""
    return f"/alarm/{alarm.enterprise_id}/{alarm.start_time.astimezone(UTC):%Y%m%d}/{alarm.warn_uuid}/{name}"


def missing_ranges(received: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """(offset, length) gaps of ``size`` bytes not covered by the merged ``received`` [start, end) list."""
    gaps: list[tuple[int, int]] = []
    at = 0
    for start, end in received:
        if start > at:
            gaps.append((at, start - at))
        at = max(at, end)
    if at < size:
        gaps.append((at, size - at))
    return gaps


def add_range(received: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """``received`` with [start, end) merged in (sorted, non-overlapping, adjacent ones joined)."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted([*received, (start, end)]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


@dataclass
class FileUpload:
    name: str
    size: int
    file_type: int | None = None  # set by 0x1211
    data: bytearray | None = None
    received: list[tuple[int, int]] = field(default_factory=list)
    refused: str | None = None  # why this file is refused (its 0x1212 gets 0x8001 result 1)
    stored: StoredObject | None = None
    recorded: bool = False  # its uplink record was acknowledged by Kafka

    @property
    def missing(self) -> list[tuple[int, int]]:
        return missing_ranges(self.received, self.size)


class AttachmentCounters(GatewayCounters):
    """The gateway's counters (the pipeline uses them) plus the attachment server's own."""

    def __init__(self) -> None:
        super().__init__()
        self.att_files_stored = 0
        self.att_files_refused = 0
        self.att_unknown_alarms = 0
        self.att_resend_requests = 0
        self.att_stalled = 0


class AttachmentSession:
    """One terminal connection's state machine. ``write`` sends a frame; ``close`` ends the connection.
    Frames are handled strictly in order (``on_frame`` is awaited before the next item is read)."""

    def __init__(self, server: AttachmentServer, connection_id: str, write: Callable[[bytes], None]) -> None:
        self.server = server
        self.connection_id = connection_id
        self._write = write
        self._seq = itertools.count(1)
        self.alarm: AlarmRef | None = None
        self.alarm_no: dict[str, Any] | None = None
        self.files: dict[str, FileUpload] = {}
        self.closing: str | None = None  # set: close after writing what is queued

    # -- replies -----------------------------------------------------------------------------------
    def _reply(self, msg: Message, msg_id: int, body: bytes | Any) -> None:
        h = msg.header
        self._write(encode_frame(msg_id, body, phone=h.phone, seq=next(self._seq) & 0xFFFF, version=h.version,
                                 protocol_version=h.protocol_version or 1))

    def _ack(self, msg: Message, result: int) -> None:
        self._reply(msg, r.PLATFORM_ACK, r.platform_ack_body(msg.header.seq, msg.header.msg_id, result))

    def _refuse(self, msg: Message, reason: str, *, close: bool) -> None:
        log.warning("attachments %s: refused 0x%04X from %s: %s", self.connection_id, msg.header.msg_id,
                    msg.header.phone, reason)
        self._ack(msg, r.ACK_FAILURE)
        if close:
            self.closing = reason

    # -- input -------------------------------------------------------------------------------------
    def on_chunk(self, name: str, offset: int, data: bytes) -> None:
        upload = self.files.get(name)
        if upload is None or upload.file_type is None:
            self.closing = f"data for {name!r}, a file not announced by 0x1211"
            return
        if upload.refused or upload.stored is not None:
            return
        end = offset + len(data)
        if end > upload.size:
            upload.refused = f"chunk [{offset}, {end}) beyond the declared size {upload.size}"
            upload.data = None
            self.server.counters.att_files_refused += 1
            log.warning("attachments %s: file %s refused: %s", self.connection_id, name, upload.refused)
            return
        if upload.data is None:
            upload.data = bytearray(upload.size)
        upload.data[offset:end] = data
        if data:
            upload.received = add_range(upload.received, offset, end)

    async def on_frame(self, msg: Message) -> None:
        msg_id = msg.header.msg_id
        body = msg.body
        if msg_id == ATTACHMENT_LIST and isinstance(body, AlarmAttachmentList):
            await self._on_list(msg, body)
        elif msg_id == FILE_INFO and isinstance(body, AttachmentFileInfo):
            self._on_info(msg, body)
        elif msg_id == FILE_DONE and isinstance(body, AttachmentFileDone):
            await self._on_done(msg, body)
        elif msg_id == HEARTBEAT:
            self._ack(msg, r.ACK_OK)
        else:
            self._ack(msg, r.ACK_NOT_SUPPORTED)

    async def _on_list(self, msg: Message, body: AlarmAttachmentList) -> None:
        settings = self.server.settings
        uuid = body.alarm_uuid.strip("\x00 ")
        if self.alarm is not None and uuid != self.alarm.warn_uuid:
            self._refuse(msg, "a second alarm on one connection", close=True)
            return
        alarm = await self.server.lookup.find(uuid) if len(uuid) == 32 else None
        if alarm is None or not _same_phone(alarm.phone, msg.header.phone):
            self.server.counters.att_unknown_alarms += 1
            self._refuse(msg, f"alarm uuid {uuid!r} is not an alarm of terminal {msg.header.phone}", close=True)
            return
        if len(body.files) > settings.max_files:
            self._refuse(msg, f"{len(body.files)} files announced, at most {settings.max_files}", close=True)
            return
        for item in body.files:
            if not _NAME.match(item.name):
                self._refuse(msg, f"file name {item.name!r} is not a plain file name", close=True)
                return
            if item.size > settings.max_file_bytes:
                self._refuse(msg, f"file {item.name} of {item.size} bytes is over {settings.max_file_bytes}",
                             close=True)
                return
        self.alarm = alarm
        self.alarm_no = body.alarm_no.to_json()
        for item in body.files:
            if item.name not in self.files:
                self.files[item.name] = FileUpload(item.name, item.size)
        self._ack(msg, r.ACK_OK)

    def _on_info(self, msg: Message, body: AttachmentFileInfo) -> None:
        if self.alarm is None:
            self._refuse(msg, "0x1211 before the attachment list 0x1210", close=True)
            return
        upload = self.files.get(body.name)
        if upload is None:
            self._refuse(msg, f"file {body.name!r} is not in the attachment list", close=False)
            return
        if body.size != upload.size:
            upload.refused = f"0x1211 size {body.size} differs from the listed {upload.size}"
            self.server.counters.att_files_refused += 1
            self._refuse(msg, upload.refused, close=False)
            return
        for other in self.files.values():  # one buffer per connection: a file left unfinished starts over
            if other is not upload and other.data is not None and other.stored is None:
                other.data, other.received = None, []
        upload.file_type = body.file_type
        self._ack(msg, r.ACK_OK)

    async def _on_done(self, msg: Message, body: AttachmentFileDone) -> None:
        upload = self.files.get(body.name)
        if self.alarm is None or upload is None or upload.file_type is None:
            self._refuse(msg, f"0x1212 for {body.name!r}, a file not announced", close=False)
            return
        if upload.refused:
            self._refuse(msg, f"file {body.name}: {upload.refused}", close=False)
            return
        missing = upload.missing
        if missing:
            self.server.counters.att_resend_requests += 1
            self._done_reply(msg, upload, RESULT_RESEND, missing[:MAX_RANGES])
            return
        if await self.server.keep(self, msg, upload):
            self._done_reply(msg, upload, RESULT_COMPLETE, [])
        else:
            self._ack(msg, r.ACK_FAILURE)  # not stored or not on Kafka: the terminal sends 0x1212 again

    def _done_reply(self, msg: Message, upload: FileUpload, result: int, missing: list[tuple[int, int]]) -> None:
        self._reply(msg, FILE_DONE_REPLY, AttachmentFileDoneResponse(
            upload.name, upload.file_type or 0, result, tuple(missing)))


def _same_phone(a: str, b: str) -> bool:
    try:
        return canonical_phone(a) == canonical_phone(b)
    except ValueError:
        return False


def split_items(buf: bytearray) -> tuple[list[bytes | tuple[str, int, bytes]], str | None]:
    """Take every complete item off the front of ``buf``: 808 frames (bytes, with their 7e) and data
    chunks ``(name, offset, data)``. Returns the items and an error when the stream is not either."""
    items: list[bytes | tuple[str, int, bytes]] = []
    while buf:
        if buf[0] == 0x7E:
            if len(buf) > 1 and buf[1] == 0x7E:  # two delimiters in a row: the first closed nothing
                del buf[0]
                continue
            end = buf.find(b"\x7e", 1)
            if end < 0:
                if len(buf) > 4096:
                    return items, "an 808 frame longer than 4096 bytes"
                break
            items.append(bytes(buf[:end + 1]))
            del buf[:end + 1]
        elif buf[:4] == _MAGIC_BYTES[:len(buf[:4])]:
            try:
                parsed = parse_chunk(bytes(buf))
            except JT808Error as exc:
                return items, f"bad data chunk: {exc}"
            if parsed is None:
                break
            name, offset, data, consumed = parsed
            items.append((name, offset, data))
            del buf[:consumed]
        else:
            return items, f"bytes that are neither an 808 frame nor a data chunk: {bytes(buf[:8]).hex()}"
    return items, None


class AttachmentServer:
    """The TCP server. ``lookup`` finds alarms by uuid; ``sink`` is the Kafka producer (``RecordSink``)."""

    def __init__(self, settings: AttachmentsSettings, lookup: AlarmLookup, sink: RecordSink,
                 store: MediaStore | None = None, *, server_id: str = "att-1") -> None:
        self.settings = settings
        self.lookup = lookup
        self.sink = sink
        self.store = store or build_media_store()
        self.server_id = server_id
        self.counters = AttachmentCounters()
        self.pipeline: UplinkPipeline | None = None
        self._server: asyncio.Server | None = None
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self.open_connections = 0

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self, *, host: str | None = None, port: int | None = None) -> None:
        self.pipeline = UplinkPipeline(self.sink, self.counters, buffer_limit=1000)
        self.pipeline.start()
        self._server = await asyncio.start_server(
            self._accept, host if host is not None else self.settings.host,
            self.settings.port if port is None else port, reuse_address=True)
        log.info("attachment server listening on %s:%d", self.settings.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.pipeline is not None:
            await self.pipeline.stop(2.0)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self.serve(reader, writer)
        except asyncio.CancelledError:  # the server is stopping (asyncio's stream callback would log it)
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection until it closes, stalls, or sends what cannot be accepted."""
        connection_id = f"{self.server_id}-{next(self._ids)}"
        if self.open_connections >= self.settings.max_connections:
            writer.close()
            return
        self.open_connections += 1
        session = AttachmentSession(self, connection_id, writer.write)
        buf = bytearray()
        try:
            while session.closing is None:
                try:
                    data = await asyncio.wait_for(reader.read(65536), self.settings.stall_timeout_s)
                except TimeoutError:
                    self.counters.att_stalled += 1
                    session.closing = f"stalled: nothing for {self.settings.stall_timeout_s:g} s"
                    break
                if not data:
                    session.closing = "closed by the terminal"
                    break
                buf += data
                items, error = split_items(buf)
                for item in items:
                    if isinstance(item, tuple):
                        session.on_chunk(*item)
                    else:
                        try:
                            msg = decode_frame(item)
                        except JT808Error as exc:
                            session.closing = f"frame does not decode: {exc}"
                            break
                        await session.on_frame(msg)
                    if session.closing:
                        break
                if error and not session.closing:
                    session.closing = error
                await writer.drain()
        except (ConnectionError, OSError) as exc:
            session.closing = f"connection error: {exc}"
        finally:
            self.open_connections -= 1
            log.info("attachments %s closed: %s", connection_id, session.closing)
            try:
                await writer.drain()
            except (ConnectionError, OSError):
                pass
            writer.close()

    async def keep(self, session: AttachmentSession, msg: Message, upload: FileUpload) -> bool:
        """Store a complete file, then its uplink record; True once Kafka acknowledged the record."""
        alarm = session.alarm
        assert alarm is not None
        if upload.stored is None:
            data = bytes(upload.data or b"")
            try:
                upload.stored = await asyncio.get_running_loop().run_in_executor(
                    None, self.store.put, alarm_key(alarm, upload.name), data)
            except Exception:
                log.exception("attachments %s: file %s not stored", session.connection_id, upload.name)
                return False
            upload.data = None  # the store has it; free the buffer
            self.counters.att_files_stored += 1
        if upload.recorded:
            return True
        value = attachment_uplink_value(session, msg, upload, self.server_id)
        upload.recorded = await self._produce(alarm.phone.encode(), value)
        return upload.recorded

    async def _produce(self, key: bytes, value: bytes) -> bool:
        assert self.pipeline is not None
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def on_done(delivered: bool) -> None:
            if not done.done():
                done.set_result(delivered)

        self.pipeline.submit(JT808_UPLINK, key, value, on_done)
        try:
            return await asyncio.wait_for(done, self.settings.kafka_ack_timeout_s)
        except TimeoutError:
            return False


def attachment_body(session: AttachmentSession, upload: FileUpload) -> dict[str, Any]:
    alarm = session.alarm
    stored = upload.stored
    assert alarm is not None and stored is not None
    return {
        "alarm_uuid": alarm.warn_uuid,
        "alarm_no": session.alarm_no,
        "name": upload.name,
        "file_type": upload.file_type,
        "size": stored.size,
        "object_key": stored.key,
        "sha256": stored.sha256,
        "file_store_type": stored.file_store_type,
    }


def attachment_uplink_value(session: AttachmentSession, msg: Message, upload: FileUpload, server_id: str) -> bytes:
    """The ``jt808.uplink.v1`` record of one stored file (as ``gateway/media.py`` writes 2049's)."""
    alarm = session.alarm
    assert alarm is not None
    header = msg.header
    return orjson.dumps({
        "phone": alarm.phone,
        "device_id": alarm.device_id,
        "car_id": alarm.car_id,
        "enterprise_id": alarm.enterprise_id,
        "msg_id": FILE_DONE,
        "seq": header.seq,
        "protocol_version": header.version,
        "raw_hex": msg.raw.hex(),
        "raw_truncated": True,  # the file's bytes are in the media store, not on Kafka
        "message": {"header": header_json(header), "body": attachment_body(session, upload)},
        "connection_id": session.connection_id,
        "gateway_id": server_id,
        "received_at": utc_now_iso(),
    })


async def run_attachments(settings: AttachmentsSettings, database_url: str, kafka_bootstrap: str,
                          stop: asyncio.Event | None = None,
                          ready: Callable[[AttachmentServer], Awaitable[None] | None] | None = None) -> None:
    """The production wiring: PostgreSQL alarm lookup, idempotent Kafka producer, configured media store."""
    from gateway.kafka_io import KafkaRecordSink

    lookup = PostgresAlarmLookup(database_url)
    sink = KafkaRecordSink(kafka_bootstrap, linger_ms=5)
    await lookup.open()
    sink.start()
    server = AttachmentServer(settings, lookup, sink)
    await server.start()
    if ready is not None:
        result = ready(server)
        if result is not None:
            await result
    try:
        await (stop or asyncio.Event()).wait()
    finally:
        await server.stop()
        await sink.stop()
        await lookup.close()


@click.command("attachments")
def attachments_command() -> None:
    """Run the active-safety attachment server (FLEET_ATTACHMENTS_*; port 7613) until Ctrl-C."""
    main()


def main() -> None:
    """``python -m gateway.attachments`` / ``fleet attachments``: run until SIGINT or SIGTERM."""
    import signal

    from fleet.settings import DatabaseSettings, apply_protocol_variant, database_url, kafka_bootstrap

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    apply_protocol_variant()

    async def _main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await run_attachments(AttachmentsSettings(), database_url(DatabaseSettings()), kafka_bootstrap(), stop)

    asyncio.run(_main())


if __name__ == "__main__":
    main()
