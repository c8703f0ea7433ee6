"""The active-safety attachment server: terminals upload an alarm's evidence files here.

After an active-safety alarm with attachments the platform sends 0x9208 (this server's address and a
ONE-TIME 32-character alarm number, made for that request: ``warehouse/queries/attachment_requests.py``).
The terminal opens a NEW TCP connection here and sends, as JT/T 808 frames mixed with raw data chunks on
the same stream:

1. 0x1210 the alarm's attachment list (number, files and sizes). It is accepted only when the number was
   issued by a 0x9208, has not expired (``request_ttl_s``) and was sent to the terminal whose phone the
   header carries (``gateway/attachment_grants.py``); the alarm's public ``warn_uuid`` is refused like any
   unknown number (0x8001 result 1, connection closed). Too many files, a file over ``max_file_bytes`` or
   a name that is not a plain file name: refused and closed too. A file name holding the number (the
   Jiangsu ``<type>_<channel>_<alarm type>_<serial>_<number>.<ext>``) is stored and listed with the alarm's
   uuid in its place, so the number never shows in the console.
2. per file 0x1211 (name, type, size: must match the list), then the data as ``0x30316364`` chunks
   (``protocols/jt808/attachment_stream.py``: name, offset, length, bytes), then 0x1212 (done).
3. 0x9212 answers 0x1212: result 1 with the missing (offset, length) ranges, which the terminal sends
   again followed by another 0x1212, until the file is whole; then the file goes to the media store
   WRITE-ONCE (key ``/alarm/<enterprise>/<yyyymmdd of the alarm>/<warn_uuid>/<name>``, in an executor), an
   uplink record (msg_id 0x1212, ``message.body`` = alarm_uuid, alarm_no, name, file_type, size,
   object_key, sha256, file_store_type; no data bytes) goes to ``jt808.uplink.v1`` through the gateway's
   ``UplinkPipeline``, and only once Kafka acknowledged it, 0x9212 result 0.

Evidence is write-once: a file whose key already holds other bytes is refused (0x8001 result 1 to its
0x1212) and the stored file is kept; the same bytes again (a terminal retrying after a lost 0x9212) are
accepted and recorded again, which the streams step stores once.

A chunk past the declared size (a file larger than declared) refuses THAT file: its 0x1212 gets 0x8001
result 1 and nothing is stored; the connection and the other files go on. Each connection is its own
task reading with a ``stall_timeout_s`` deadline, and ``list_timeout_s`` to have its 0x1210 accepted;
who may hold a connection is ``gateway/attachment_admission.py`` (per-address caps; silent sockets make
room for new connections). Memory: a file's bytes wait in a sparse temporary file
(``gateway/attachment_files.py``), one file per connection (a 0x1211 for the next file drops an
unfinished one, which then starts over), freed once the file is stored.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC
from typing import Any

import click
import orjson

from fleet.addresses import source_ip
from fleet.media_store import MediaStore, ObjectExists, build_media_store
from fleet.settings import AttachmentsSettings
from fleet.topics import JT808_UPLINK
from gateway import proxy_protocol
from gateway.attachment_admission import Admission
from gateway.attachment_files import FileUpload, add_range, missing_ranges
from gateway.attachment_grants import AlarmLookup, AlarmRef, PostgresAlarmLookup, UploadGrant
from gateway.attachment_session import AttachmentSession
from gateway.counters import GatewayCounters
from gateway.payloads import utc_now_iso
from gateway.pipeline import RecordSink, UplinkPipeline
from protocols.jt808 import AttachmentFileDone, JT808Error, Message, decode_frame, encode_frame
from protocols.jt808.attachment_stream import MAGIC, parse_chunk
from protocols.jt808.catalogue import ATTACHMENT_FILE_DONE
from protocols.jt808.jsonify import header_json

log = logging.getLogger("gateway.attachments")

_MAGIC_BYTES = MAGIC.to_bytes(4, "big")
EVENT_CODES = {5: 64, 6: 65, 7: 66, 8: 67}  # alarm type -> media event code (platform-spec §9)
__all__ = ["AlarmLookup", "AlarmRef", "AttachmentServer", "AttachmentSession", "FileUpload", "PostgresAlarmLookup", "UploadGrant",
           "add_range", "alarm_key", "missing_ranges", "run_attachments"]


def alarm_key(alarm: AlarmRef, name: str) -> str:
    """The media-store key of one attachment (contract E): by enterprise, alarm day, alarm uuid."""
    return f"/alarm/{alarm.enterprise_id}/{alarm.start_time.astimezone(UTC):%Y%m%d}/{alarm.warn_uuid}/{name}"


class AttachmentCounters(GatewayCounters):
    """The gateway's counters (the pipeline uses them) plus the attachment server's own."""

    def __init__(self) -> None:
        super().__init__()
        self.att_files_stored = 0
        self.att_files_refused = 0
        self.att_unknown_alarms = 0
        self.att_resend_requests = 0
        self.att_stalled = 0
        self.att_rewrites_refused = 0  # a second upload of a stored name with other bytes
        self.att_list_timeouts = 0


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
        self.admission = Admission(settings.max_connections, settings.max_pending_per_address)

    @property
    def open_connections(self) -> int:
        return self.admission.open

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self, *, host: str | None = None, port: int | None = None) -> None:
        self.pipeline = UplinkPipeline(self.sink, self.counters, buffer_limit=1000)
        self.pipeline.start()
        self._server = await asyncio.start_server(
            self._accept, host if host is not None else self.settings.host,
            self.settings.port if port is None else port, reuse_address=True,
            backlog=min(self.settings.max_connections, 4096))  # a burst of connects is accepted, then sorted out
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
        """One connection until it closes, stalls, misses its list deadline, is closed to make room for
        another (``Admission``), or sends what cannot be accepted."""
        connection_id = f"{self.server_id}-{next(self._ids)}"
        peer = writer.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        buf = bytearray()
        if self.settings.proxy_protocol:
            # Behind a balancer the socket's peer is the balancer: the terminal's address, which the session
            # address check and the per-address caps compare, is the PROXY header's (gateway/proxy_protocol.py).
            header = await self._read_proxy_header(reader, buf, connection_id, host)
            if header is None:
                writer.transport.abort()
                return
            if header.source is None:  # the balancer's own health check
                writer.close()
                return
            host = source_ip(header.source) or host
            del buf[:header.length]
        session = AttachmentSession(self, connection_id, writer.write, host)

        def evict(reason: str) -> None:
            session.closing = session.closing or reason
            writer.transport.abort()

        if not self.admission.admit(connection_id, host, evict):
            log.warning("attachments %s (%s): refused at accept: %d identified uploads open", connection_id, host,
                        self.admission.identified)
            writer.transport.abort()
            return
        loop = asyncio.get_running_loop()
        list_deadline = loop.time() + self.settings.list_timeout_s
        try:
            if buf:  # bytes that came with the PROXY header
                await self._take(session, buf, writer)
            while session.closing is None:
                wait_s = self.settings.stall_timeout_s
                if session.alarm is None:
                    wait_s = min(wait_s, list_deadline - loop.time())
                try:
                    async with asyncio.timeout(max(wait_s, 0.0)):
                        data = await reader.read(65536)
                except TimeoutError:
                    if session.alarm is None and loop.time() >= list_deadline:
                        self.counters.att_list_timeouts += 1
                        session.closing = f"no attachment list accepted within {self.settings.list_timeout_s:g} s"
                    else:
                        self.counters.att_stalled += 1
                        session.closing = f"stalled: nothing for {self.settings.stall_timeout_s:g} s"
                    break
                if not data:
                    session.closing = session.closing or "closed by the terminal"
                    break
                buf += data
                await self._take(session, buf, writer)
        except (ConnectionError, OSError) as exc:
            session.closing = session.closing or f"connection error: {exc}"
        finally:
            self.admission.release(connection_id)
            for upload in session.files.values():
                upload.drop()
            log.info("attachments %s (%s) closed: %s", connection_id, host, session.closing)
            try:
                await writer.drain()
            except (ConnectionError, OSError):
                pass
            writer.close()

    async def _take(self, session: AttachmentSession, buf: bytearray, writer: asyncio.StreamWriter) -> None:
        """Handle every complete frame and data chunk at the front of ``buf``, in order."""
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

    async def _read_proxy_header(self, reader: asyncio.StreamReader, buf: bytearray, connection_id: str,
                                 peer: str) -> proxy_protocol.ProxyHeader | None:
        """The PROXY header at the start of the connection (read into ``buf``); None, logged, when the
        bytes are not one (a terminal connecting past the balancer), or it is not whole within
        ``list_timeout_s`` or before the connection closes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.list_timeout_s
        try:
            while True:
                header = proxy_protocol.parse(bytes(buf))
                if header is not None:
                    return header
                async with asyncio.timeout(max(deadline - loop.time(), 0.0)):
                    data = await reader.read(4096)
                if not data:
                    return None
                buf += data
        except proxy_protocol.ProxyHeaderError as exc:
            self.counters.proxy_header_rejected += 1
            log.warning("attachments %s (%s): bad PROXY protocol header, closing: %s: %s", connection_id, peer, exc,
                        bytes(buf[:64]).hex())
        except TimeoutError:
            log.warning("attachments %s (%s): no PROXY protocol header within %g s, closing", connection_id, peer,
                        self.settings.list_timeout_s)
        except (ConnectionError, OSError):
            pass
        return None

    async def keep(self, session: AttachmentSession, msg: Message, upload: FileUpload) -> bool:
        """Store a complete file write-once, then its uplink record; True once Kafka acknowledged the record.
        A key that holds other bytes refuses the file (``upload.refused``) and keeps the stored one."""
        alarm = session.alarm
        assert alarm is not None
        if upload.stored is None:
            key = alarm_key(alarm, upload.stored_name)
            try:
                upload.stored = await asyncio.get_running_loop().run_in_executor(None, self._create, key, upload)
            except ObjectExists as exists:
                self.counters.att_rewrites_refused += 1
                session._refuse_file(upload, f"{key} is already stored with other bytes (sha256 "
                                             f"{exists.existing.sha256}); evidence is write-once")
                return False
            except Exception:
                log.exception("attachments %s: file %s not stored", session.connection_id, upload.name)
                return False
            upload.drop()  # the store has it; free the temporary file
            self.counters.att_files_stored += 1
        if upload.recorded:
            return True
        value = attachment_uplink_value(session, msg, upload, self.server_id)
        upload.recorded = await self._produce(alarm.phone.encode(), value)
        return upload.recorded

    async def session_address(self, device_id: int) -> str | None:
        """The IP of the device's authenticated 7611 session; waits up to ``session_address_wait_s`` for one
        to be recorded (the streams worker writes it beside the uplinks that trigger the 0x9208)."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.settings.session_address_wait_s
        while True:
            found = await self.lookup.session_address(device_id)
            if found is not None or loop.time() >= give_up:
                return found
            await asyncio.sleep(0.25)

    def _create(self, key: str, upload: FileUpload) -> Any:
        """In the executor: the file's bytes into the store, unless the key holds a file. The same bytes
        again (a terminal retrying after a lost 0x9212) are the stored file, recorded once more."""
        data = upload.read_all()
        try:
            return self.store.create(key, data)
        except ObjectExists as exists:
            if exists.existing.size == len(data) and exists.existing.sha256 == hashlib.sha256(data).hexdigest():
                return exists.existing
            raise

    async def _produce(self, key: bytes, value: bytes) -> bool:
        assert self.pipeline is not None
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def on_done(delivered: bool) -> None:
            if not done.done():
                done.set_result(delivered)

        self.pipeline.submit(JT808_UPLINK, key, value, on_done)
        try:
            async with asyncio.timeout(self.settings.kafka_ack_timeout_s):
                return await done
        except TimeoutError:
            return False


def attachment_body(session: AttachmentSession, upload: FileUpload) -> dict[str, Any]:
    alarm = session.alarm
    stored = upload.stored
    assert alarm is not None and stored is not None
    return {
        "alarm_uuid": alarm.warn_uuid,
        "alarm_no": session.alarm_no,
        "name": upload.stored_name,
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
    raw = msg.raw
    if upload.stored_name != upload.name:  # the frame names the file with the one-time number: logged without it
        raw = encode_frame(ATTACHMENT_FILE_DONE, AttachmentFileDone(upload.stored_name, upload.file_type or 0, upload.size),
                           phone=header.phone, seq=header.seq, version=header.version,
                           protocol_version=header.protocol_version or 1)
    return orjson.dumps({
        "phone": alarm.phone,
        "device_id": alarm.device_id,
        "car_id": alarm.car_id,
        "enterprise_id": alarm.enterprise_id,
        "msg_id": ATTACHMENT_FILE_DONE,
        "seq": header.seq,
        "protocol_version": header.version,
        "raw_hex": raw.hex(),
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
    server = AttachmentServer(settings, lookup, sink, server_id=settings.server_id)
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
