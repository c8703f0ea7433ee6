"""One virtual JT/T 808 terminal: register (or reuse its code), authenticate, heartbeat, report
positions, resend what is not acknowledged, upload the backlog after a reconnect, reconnect with
exponential backoff and jitter.

Positions are generated on their own clock whether or not the terminal is connected (a real terminal
keeps a blind-area store). The fix clock advances by max(interval, 1 s) per report so every position
of a terminal has a distinct 1-second BCD fix time (with interval < 1 s it runs ahead of the wall clock;
`run_fleet` starts it early enough to end near "now").

Each fix is checked against the areas the platform sent it (`simulator.area_watch`): entering or leaving
one adds item 0x12 and alarm bit 20 / 21 to that report when the area asks for the platform alarm.

Commands from the platform are answered by `simulator.commands.CommandResponder` (one answer per
downlink, in arrival order, each with that downlink's serial); photos go up through
`simulator.uploads.MediaUploader`, one upload at a time in a task of the session, so positions keep
flowing while a photo uploads. Media not yet uploaded when a connection drops go up after the next login.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from fleet.tyre_model import TyreSensors
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    LocationReport,
    MediaUploadResponse,
    ResendSubpackagesRequest,
)
from protocols.jt808.catalogue import (
    AUTHENTICATION,
    BATCH_LOCATION_UPLOAD,
    HEARTBEAT,
    LOCATION_REPORT,
    PLATFORM_RESPONSE,
    REGISTRATION,
    REGISTRATION_RESPONSE,
)
from simulator import wire
from simulator.alarms import AlarmSchedule
from simulator.area_watch import AreaWatch
from simulator.commands import NORMAL, CommandResponder, StoredMedia, default_params
from simulator.driving import Vehicle
from simulator.outbox import Outbox, Position
from simulator.uploads import MediaUploader

log = logging.getLogger("simulator.terminal")


class AuthStore(Protocol):
    def get(self, phone: str) -> str | None: ...

    def put(self, phone: str, code: str | None) -> None: ...


class SentLog(Protocol):
    def record(self, phone: str, fix_at: datetime) -> None: ...


@dataclass
class TerminalConfig:
    host: str
    port: int
    interval_s: float  # 0: no positions, heartbeats only (connection benchmarks)
    heartbeat_interval_s: float
    ack_timeout_s: float
    backlog_batch_items: int
    reconnect_min_s: float
    reconnect_max_s: float
    protocol_version: str = "2013"
    source_address: str | None = None
    reply_timeout_s: float = 10.0
    command_behaviour: str = NORMAL  # normal / unsupported / silent (simulator.commands.behaviour_for)
    media_package_bytes: int = 900  # 0x0801 body bytes per sub-package


@dataclass
class SessionCounters:
    connects: int = 0
    registrations: int = 0
    auth_failures: int = 0
    registration_failures: int = 0
    heartbeats: int = 0
    downlinks: int = 0
    answers: int = 0
    attachment_uploads: int = 0
    attachment_failures: int = 0
    authenticated: bool = False


class RegistrationRefused(Exception):
    pass


@dataclass
class VirtualTerminal:
    index: int
    phone: str
    terminal_id: str
    config: TerminalConfig
    vehicle: Vehicle
    rng: random.Random
    auth_store: AuthStore
    fix_clock: datetime
    sent_log: SentLog | None = None
    counters: SessionCounters = field(default_factory=SessionCounters)
    plate: str = ""
    alarms: AlarmSchedule | None = None  # None: this terminal raises no alarms
    tyres: TyreSensors | None = None  # None: no tyre sensors (fleet.tyre_model)
    outbox: Outbox = field(init=False)
    responder: CommandResponder = field(init=False)
    uploader: MediaUploader = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.config.ack_timeout_s, self.config.backlog_batch_items)
        plate = self.plate or f"SIM{self.index:05d}"
        self.responder = CommandResponder(
            self.phone, plate, self.config.command_behaviour, default_params(plate, self.config.interval_s),
            media_id_start=(int(time.time()) * 8 + self.index) & 0x3FFFFFFF or 1, alarms=self.alarms,
            protocol_version=self.config.protocol_version)
        self._attachment_tasks: set[asyncio.Task[None]] = set()
        self.uploader = MediaUploader(wire.phone_for(self.phone, self.config.protocol_version),
                                      self.config.protocol_version, self.config.media_package_bytes,
                                      self.config.reply_timeout_s)
        self.media_queue: deque[StoredMedia] = deque()
        self.area_watch = AreaWatch()
        self._media_ready = asyncio.Event()
        self._last_report: LocationReport | None = None
        self._seq = self.rng.randrange(0, 0x10000)
        self._wakeup = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._replies: dict[tuple[int, int], asyncio.Future[wire.Reply]] = {}
        self._last_sent_at = 0.0
        self.fix_step_s = max(1.0, self.config.interval_s)

    # ---------------------------------------------------------------- positions

    def generate_position(self) -> Position:
        """Advance the vehicle by one fix step and queue the report."""
        self.vehicle.advance(self.fix_step_s)
        self.fix_clock += timedelta(seconds=self.fix_step_s)
        fix_at = self.fix_clock.replace(microsecond=0)
        sample, items = self.vehicle.sample(), dict[str, Any]()
        if self.alarms is not None:
            flags, items = self.alarms.step(self.fix_step_s, sample, fix_at, self.vehicle)
            sample = replace(sample, alarm_flags=flags)
        if self.tyres is not None:
            items = {**items, **self.tyres.step(self.fix_step_s, fix_at, acc_on=sample.acc_on, speed_kmh=sample.speed_kmh,
                                                altitude_m=sample.altitude_m, lat=sample.lat, lng=sample.lng,
                                                status_flags=sample.status_flags)}
        area_flags, area_items = self.area_watch.check(self.responder.areas, sample.lng, sample.lat,
                                                       sample.speed_kmh, fix_at)
        if area_flags or area_items:  # crossings of the areas it holds (simulator.area_watch)
            sample, items = replace(sample, alarm_flags=sample.alarm_flags | area_flags), {**items, **area_items}
        report = wire.location_report(sample, fix_at, items)
        position = Position(fix_at, replace(report, status_flags=self.responder.door_status(report.status_flags)))
        self._last_report = position.report
        self.outbox.add(position)
        self._wakeup.set()
        return position

    def wake(self) -> None:
        """Make the session loop look at its state now (stop was set, a position was queued)."""
        self._wakeup.set()

    async def generate_positions(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time() + self.rng.uniform(0, self.config.interval_s)
        while not stop.is_set():
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            if stop.is_set():
                return
            self.generate_position()
            next_at += self.config.interval_s

    # ---------------------------------------------------------------- connection

    async def run(self, stop: asyncio.Event, stop_generating: asyncio.Event | None = None) -> None:
        """Keep a session up until `stop` is set; reconnect with backoff when it drops. Positions
        are generated until `stop_generating` (default: `stop`) is set."""
        loop = asyncio.get_running_loop()
        generator = (loop.create_task(self.generate_positions(stop_generating or stop))
                     if self.config.interval_s > 0 else None)
        attempt = 0
        try:
            while not stop.is_set():
                try:
                    await self._session(stop)
                    attempt = 0
                except (TimeoutError, OSError, ConnectionError, RegistrationRefused, asyncio.IncompleteReadError) as exc:
                    log.debug("terminal %s: session ended: %r", self.phone, exc)
                finally:
                    self.counters.authenticated = False
                    self.outbox.disconnected()
                    self._fail_replies()
                if stop.is_set():
                    break
                attempt += 1
                delay = min(self.config.reconnect_max_s, self.config.reconnect_min_s * 2 ** (attempt - 1))
                await _sleep_until(loop, loop.time() + delay * self.rng.uniform(0.5, 1.5), stop)
        finally:
            if self.responder.video is not None:
                self.responder.video.stop_all()
            if generator is not None:
                generator.cancel()
            for task in self._attachment_tasks:
                task.cancel()
            await asyncio.gather(*([generator] if generator else []), *self._attachment_tasks,
                                 return_exceptions=True)

    async def _session(self, stop: asyncio.Event) -> None:
        cfg = self.config
        local = (cfg.source_address, 0) if cfg.source_address else None
        async with asyncio.timeout(cfg.reply_timeout_s):
            reader, writer = await asyncio.open_connection(cfg.host, cfg.port, local_addr=local)
        self._writer = writer
        self.counters.connects += 1
        read_task = asyncio.create_task(self._read_loop(reader))
        read_task.add_done_callback(lambda _: self._wakeup.set())
        upload_task: asyncio.Task[None] | None = None
        try:
            await self._login()
            self.counters.authenticated = True
            upload_task = asyncio.create_task(self._upload_media())
            await self._serve(stop, read_task)
        finally:
            read_task.cancel()
            if upload_task is not None:
                upload_task.cancel()
            await asyncio.gather(read_task, *([upload_task] if upload_task else []), return_exceptions=True)
            self._writer = None
            writer.close()
            try:
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()
            except (TimeoutError, OSError):
                pass

    async def _login(self) -> None:
        code = self.auth_store.get(self.phone)
        if code is None:
            reply = await self._request(REGISTRATION, wire.registration_body(self.terminal_id, self.config.protocol_version),
                                        REGISTRATION_RESPONSE)
            if reply.result != 0 or not reply.auth_code:
                self.counters.registration_failures += 1
                raise RegistrationRefused(f"registration result {reply.result}")
            self.counters.registrations += 1
            code = reply.auth_code
            self.auth_store.put(self.phone, code)
        reply = await self._request(AUTHENTICATION, wire.auth_body(code, self.config.protocol_version),
                                    PLATFORM_RESPONSE)
        if reply.result != 0:
            self.counters.auth_failures += 1
            self.auth_store.put(self.phone, None)  # register again next time
            raise RegistrationRefused(f"authentication result {reply.result}")

    async def _request(self, msg_id: int, body: bytes, reply_id: int) -> wire.Reply:
        seq = self._send(msg_id, body)
        future: asyncio.Future[wire.Reply] = asyncio.get_running_loop().create_future()
        self._replies[(reply_id, seq)] = future
        try:
            async with asyncio.timeout(self.config.reply_timeout_s):
                return await future
        finally:
            self._replies.pop((reply_id, seq), None)

    async def _serve(self, stop: asyncio.Event, read_task: asyncio.Task[None]) -> None:
        loop = asyncio.get_running_loop()
        outbox = self.outbox
        while not stop.is_set():
            if read_task.done():
                raise ConnectionError("connection closed by the gateway")
            now = loop.time()
            batch = outbox.next_batch(now)
            if batch:
                for position in batch:  # positions generated offline go up first as backlog
                    self._log_first_send(position)
                seq = self._send(BATCH_LOCATION_UPLOAD,
                                 wire.batch_body([p.report for p in batch], 1, self.config.protocol_version))
                outbox.mark_sent(batch, seq, now, batch=True)
            for position in outbox.next_live() + outbox.due_for_resend(now):
                self._log_first_send(position)
                body = position.report.encode(self.config.protocol_version)
                outbox.mark_sent([position], self._send(LOCATION_REPORT, body), now)
            if now - self._last_sent_at >= self.config.heartbeat_interval_s:
                self._send(HEARTBEAT, b"")
                self.counters.heartbeats += 1
            if self._writer is not None:
                await self._writer.drain()
            self._wakeup.clear()
            wait_s = min(self.config.heartbeat_interval_s, self.config.ack_timeout_s / 2)
            timer = loop.call_later(wait_s, self._wakeup.set)
            try:
                await self._wakeup.wait()
            finally:
                timer.cancel()

    def _log_first_send(self, position: Position) -> None:
        if not position.sent and self.sent_log is not None:
            self.sent_log.record(self.phone, position.fix_at)

    def _send(self, msg_id: int, body: bytes) -> int:
        writer = self._writer
        if writer is None:
            raise ConnectionError("not connected")
        seq = self._seq
        self._seq = (seq + 1) & 0xFFFF
        writer.write(wire.frame(msg_id, body, self.phone, seq, self.config.protocol_version))
        self._last_sent_at = asyncio.get_running_loop().time()
        return seq

    def _send_answer(self, msg_id: int, body: bytes) -> None:
        """An answer too long for one frame (a 0x0608 of many areas) goes as sub-packages."""
        if wire.package_count(body) == 1:
            self._send(msg_id, body)
            return
        writer = self._writer
        if writer is None:
            raise ConnectionError("not connected")
        version = self.config.protocol_version
        seq = self.allocate_seqs(wire.package_count(body))
        for frame in wire.frames(msg_id, body, self.phone, seq, version):
            writer.write(frame)
        self._last_sent_at = asyncio.get_running_loop().time()

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        frames = wire.new_frame_reader()
        joined = wire.Reassembly()
        while True:
            data = await reader.read(65536)
            if not data:
                return
            for reply in wire.decode_replies(frames, data, joined):
                self._on_reply(reply)

    def _on_reply(self, reply: wire.Reply) -> None:
        if reply.msg_id in (PLATFORM_RESPONSE, REGISTRATION_RESPONSE):
            future = self._replies.get((reply.msg_id, reply.ack_seq))
            if future is not None and not future.done():
                future.set_result(reply)
                return
            if reply.msg_id == PLATFORM_RESPONSE and reply.ack_msg_id in (LOCATION_REPORT, BATCH_LOCATION_UPLOAD):
                if reply.result == 0:
                    self.outbox.acknowledged(reply.ack_seq)
                else:
                    self.outbox.rejected(reply.ack_seq)
                self._wakeup.set()
            return
        self.counters.downlinks += 1
        if isinstance(reply.body, MediaUploadResponse):
            self.uploader.on_media_response(reply.body)
            return
        if isinstance(reply.body, ResendSubpackagesRequest):
            if self._writer is not None:
                self.uploader.on_resend_request(_Link(self), reply.body)
            return
        # a command: answered at once, in arrival order, each with its own serial
        handled = self.responder.handle(reply.msg_id, reply.seq, None if reply.malformed else reply.body,
                                        self.current_position(), datetime.now(UTC))
        if self._writer is None:
            return
        for answer in handled.answers:
            self._send_answer(answer.msg_id, answer.body.encode(self.config.protocol_version))
            self.counters.answers += 1
        if handled.uploads:
            self.media_queue.extend(handled.uploads)
            self._media_ready.set()
        for request in handled.attachment_requests:
            self._start_attachment_upload(request)

    def _start_attachment_upload(self, request: AlarmAttachmentUploadRequest) -> None:
        """Upload the alarm's attachments to the server 0x9208 names, on a connection of their own."""
        if self.alarms is None:
            return
        try:
            from simulator.attachments import upload
        except ImportError:
            log.warning("terminal %s: 0x9208 for %s not served: simulator.attachments is not available",
                        self.phone, request.alarm_uuid)
            return
        files = self.alarms.attachment_files(request.alarm_no, request.alarm_uuid, self.responder.plate)
        task = asyncio.get_running_loop().create_task(self._upload_attachments(upload, request, files))
        self._attachment_tasks.add(task)
        task.add_done_callback(self._attachment_tasks.discard)

    async def _upload_attachments(self, upload: Any, request: AlarmAttachmentUploadRequest,
                                  files: list[tuple[str, int, bytes]]) -> None:
        try:
            await upload(request.server_ip, request.tcp_port, request, files, self.terminal_id,
                         phone=wire.phone_for(self.phone, self.config.protocol_version),
                         version=self.config.protocol_version, timeout_s=self.config.reply_timeout_s)
            self.counters.attachment_uploads += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a refused or failed upload must not end the terminal
            self.counters.attachment_failures += 1
            log.warning("terminal %s: attachments of alarm %s not uploaded to %s:%s: %r", self.phone,
                        request.alarm_uuid, request.server_ip, request.tcp_port, exc)

    def current_position(self) -> LocationReport:
        """The latest generated position (what 0x8201 asks for), or one sampled now."""
        if self._last_report is None:
            self._last_report = wire.location_report(self.vehicle.sample(), self.fix_clock.replace(microsecond=0))
        return self._last_report

    async def _upload_media(self) -> None:
        """Upload queued media one at a time for as long as the session lasts. A medium whose upload
        the platform never completes is dropped; one interrupted by a disconnect stays queued."""
        link = _Link(self)
        while True:
            while not self.media_queue:
                self._media_ready.clear()
                await self._media_ready.wait()
            media = self.media_queue[0]
            await self.uploader.upload(link, media)  # ConnectionError ends the task, media stays queued
            self.media_queue.popleft()

    def allocate_seqs(self, count: int) -> int:
        seq = self._seq
        self._seq = (seq + count) & 0xFFFF
        return seq

    def _fail_replies(self) -> None:
        for future in self._replies.values():
            if not future.done():
                future.set_exception(ConnectionError("disconnected"))
        self._replies.clear()


class _Link:
    """The connection as the uploader sees it (simulator.uploads.UploadLink)."""

    def __init__(self, terminal: VirtualTerminal) -> None:
        self.terminal = terminal

    def allocate_seqs(self, count: int) -> int:
        return self.terminal.allocate_seqs(count)

    def write(self, frame: bytes) -> None:
        writer = self.terminal._writer
        if writer is None:
            raise ConnectionError("not connected")
        writer.write(frame)

    async def drain(self) -> None:
        writer = self.terminal._writer
        if writer is None:
            raise ConnectionError("not connected")
        await writer.drain()


async def _sleep_until(loop: asyncio.AbstractEventLoop, deadline: float, stop: asyncio.Event) -> None:
    delay = deadline - loop.time()
    if delay <= 0:
        return
    try:
        async with asyncio.timeout(delay):
            await stop.wait()
    except TimeoutError:
        pass
