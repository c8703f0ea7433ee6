"""One virtual GB terminal: a GB/T 32960 terminal of an electric vehicle (``##`` 2016 or ``$$`` 2025
framing) or a GB 17691 / HJ 1239 terminal of a diesel truck, against the GB gateway.

Session (GB/T 32960.3-2016 §7.1-7.5): connect, vehicle login 0x01 (time, login serial, ICCID, the codes
of the rechargeable storage subsystems) and wait for the answer (0x01 success; 0x02 error and 0x03 VIN
duplicate end the session and it tries again after the back-off), time calibration 0x08, then a
real-time report 0x02 every interval, heartbeat 0x07 when nothing was sent for
``heartbeat_interval_s``, back-filled data 0x03 for what is owed (``simulator.gb32960.reports``), and
vehicle logout 0x04 (the login's serial) when it stops. A GB 17691 / HJ 1239 terminal logs in with time,
serial and ICCID and waits for no answer (its header has no response flag), numbers its reports with the
information serial and sends no heartbeat (annex Q has none).

Reports are made on their own clock whether or not the terminal is connected (a real terminal keeps
them); the collection clock advances max(interval, 1 s) per report, so each report of a vehicle has its
own 1-second collection time, the key of the platform's answer.

Reconnects back off exponentially (``reconnect_min_s`` doubling to ``reconnect_max_s``, ×0.5-1.5
jitter). While the gateway is absent the terminal says so once (INFO) and then only at DEBUG, so a stack
started before its GB gateway does not fill the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from typing import Protocol as TypingProtocol

from protocols.gb32960 import (
    FrameReader,
    GB32960Error,
    Message,
    Protocol,
    Response,
    TimeOnly,
    decode_frame,
    encode_frame,
)
from protocols.gb32960.messages import EmissionLogin, Heartbeat, TimeCalibration, VehicleLogin, VehicleLogout
from protocols.gb32960.messages.params import ParameterQuery, ParameterSet, ParamValue, TerminalControl
from simulator.gb32960.frames import emission_body, realtime_body
from simulator.gb32960.reports import REALTIME, REISSUED, Report, ReportQueue

log = logging.getLogger("simulator.gb32960")

LOGIN, LOGOUT, HEARTBEAT, TIME_CALIBRATION = 0x01, 0x04, 0x07, 0x08
EMISSION_LOGOUT, EMISSION_TIME_CALIBRATION = 0x04, 0x05
MAX_LOGIN_SERIAL = 65531  # GB/T 32960.3 §7.1: 1 ... 65531
SOFTWARE_VERSION = 1


class Reporter(TypingProtocol):
    """The vehicle as its terminal reports it (``simulator.gb32960.frames``)."""

    def advance(self, dt_s: float) -> None: ...

    def blocks(self) -> tuple[Any, ...]: ...


class LoginRefused(Exception):
    def __init__(self, response: int) -> None:
        super().__init__(f"vehicle login answered 0x{response:02X}")
        self.response = response


@dataclass
class GbTerminalConfig:
    host: str
    port: int
    interval_s: float
    heartbeat_interval_s: float = 30.0
    ack_timeout_s: float = 10.0
    reconnect_min_s: float = 1.0
    reconnect_max_s: float = 60.0
    reply_timeout_s: float = 10.0
    backfill_window: int = 10


@dataclass
class GbCounters:
    connects: int = 0
    connect_failures: int = 0
    logins: int = 0
    login_refusals: int = 0
    vin_duplicates: int = 0
    heartbeats: int = 0
    calibrations: int = 0
    logouts: int = 0
    bad_frames: int = 0
    logged_in: bool = False


@dataclass
class GbTerminal:
    vin: str
    protocol: Protocol  # GB32960_2016, GB32960_2025 or GB17691 (HJ 1239 speaks its frames)
    config: GbTerminalConfig
    reporter: Reporter
    rng: random.Random
    clock: datetime  # collection time of the last report made
    iccid: str = ""
    storage_codes: tuple[str, ...] = ()  # rechargeable storage subsystem codes (32960 login)
    counters: GbCounters = field(default_factory=GbCounters)
    queue: ReportQueue = field(init=False)
    parameters: dict[int, ParamValue] = field(init=False)  # GB/T 32960.3-2016 table 24, as set by 0x81

    def __post_init__(self) -> None:
        self.queue = ReportQueue(self.config.ack_timeout_s, self.config.backfill_window)
        self.clock = self.clock.replace(microsecond=0)
        domain = self.config.host
        self.parameters = {
            0x01: 1000, 0x02: max(1, int(self.config.interval_s)), 0x03: 1000, 0x04: len(domain.encode()),
            0x05: domain, 0x06: self.config.port, 0x07: "SIM01", 0x08: "FW100",
            0x09: max(1, min(255, int(self.config.heartbeat_interval_s))), 0x0A: int(self.config.reply_timeout_s),
            0x0B: 60, 0x0C: 1, 0x10: 0}
        self.step_s = max(1.0, self.config.interval_s)
        self.login_serial = 0
        self.info_serial = 0
        self._writer: asyncio.StreamWriter | None = None
        self._wakeup = asyncio.Event()
        self._answers: dict[int, asyncio.Future[Message]] = {}
        self._last_sent_at = 0.0
        self._unreachable_said = False

    @property
    def answered(self) -> bool:
        """GB/T 32960 answers every command; GB 17691 / HJ 1239 frames have no response flag."""
        return self.protocol is not Protocol.GB17691

    # ---------------------------------------------------------------- reports

    def make_report(self) -> Report:
        """Advance the vehicle by one step and queue its report."""
        self.reporter.advance(self.step_s)
        self.clock += timedelta(seconds=self.step_s)
        self.info_serial = self.info_serial % 0xFFFF + 1
        # made while not logged in: it goes up as back-filled data after the next login
        report = Report(self.clock, self.reporter.blocks(), serial=self.info_serial, backlog=not self.counters.logged_in)
        self.queue.add(report)
        self._wakeup.set()
        return report

    def frame_of(self, report: Report, command: int) -> bytes:
        reissued = command == REISSUED
        if self.answered:
            return self._frame(command, realtime_body(report.collected_at, report.blocks, reissued=reissued))
        return self._frame(command, emission_body(report.collected_at, report.serial, report.blocks,
                                                  reissued=reissued))

    def _frame(self, command: int, body: Any) -> bytes:
        return encode_frame(command, body, vin=self.vin, protocol=self.protocol,
                            software_version=SOFTWARE_VERSION)

    async def make_reports(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time() + self.rng.uniform(0, self.config.interval_s)
        while not stop.is_set():
            await _sleep_until(loop, next_at, stop)
            if stop.is_set():
                return
            self.make_report()
            next_at += self.config.interval_s

    def wake(self) -> None:
        self._wakeup.set()

    # ---------------------------------------------------------------- connection

    async def run(self, stop: asyncio.Event, stop_reporting: asyncio.Event | None = None) -> None:
        """Keep a session up until ``stop``; reports are made until ``stop_reporting`` (default ``stop``)."""
        loop = asyncio.get_running_loop()
        maker = loop.create_task(self.make_reports(stop_reporting or stop)) if self.config.interval_s > 0 else None
        attempt = 0
        try:
            while not stop.is_set():
                try:
                    await self._session(stop)
                    attempt = 0
                except (OSError, ConnectionError, TimeoutError, LoginRefused, asyncio.IncompleteReadError) as exc:
                    self._note_failure(exc)
                finally:
                    self.counters.logged_in = False
                    self.queue.disconnected()
                    self._fail_answers()
                if stop.is_set():
                    break
                attempt += 1
                delay = min(self.config.reconnect_max_s, self.config.reconnect_min_s * 2 ** (attempt - 1))
                await _sleep_until(loop, loop.time() + delay * self.rng.uniform(0.5, 1.5), stop)
        finally:
            if maker is not None:
                maker.cancel()
                await asyncio.gather(maker, return_exceptions=True)

    def _note_failure(self, exc: BaseException) -> None:
        if isinstance(exc, LoginRefused):
            log.warning("GB terminal %s: %s", self.vin, exc)
            return
        if not self.counters.logged_in and not self._unreachable_said:
            self._unreachable_said = True
            log.info("GB terminal %s: gateway %s:%s not reachable (%r); retrying with back-off up to %.0f s",
                     self.vin, self.config.host, self.config.port, exc, self.config.reconnect_max_s)
        else:
            log.debug("GB terminal %s: session ended: %r", self.vin, exc)

    async def _session(self, stop: asyncio.Event) -> None:
        cfg = self.config
        try:
            async with asyncio.timeout(cfg.reply_timeout_s):
                reader, writer = await asyncio.open_connection(cfg.host, cfg.port)
        except (OSError, TimeoutError):
            self.counters.connect_failures += 1
            raise
        self._writer = writer
        self.counters.connects += 1
        read_task = asyncio.create_task(self._read_loop(reader))
        read_task.add_done_callback(lambda _: self._wakeup.set())
        try:
            await self._login()
            self.counters.logged_in, self._unreachable_said = True, False
            if hasattr(self.reporter, "new_session"):
                self.reporter.new_session()
            self._send(self._frame(EMISSION_TIME_CALIBRATION if not self.answered else TIME_CALIBRATION,
                                   TimeCalibration()))
            await self._serve(stop, read_task)
            await self._logout(read_task)
        finally:
            read_task.cancel()
            await asyncio.gather(read_task, return_exceptions=True)
            self._writer = None
            writer.close()
            try:
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()
            except (TimeoutError, OSError):
                pass

    async def _login(self) -> None:
        self.login_serial = self.login_serial % MAX_LOGIN_SERIAL + 1
        now = datetime.now(UTC)
        if not self.answered:
            self._send(self._frame(LOGIN, EmissionLogin(now, self.login_serial, self.iccid)))
            self.counters.logins += 1
            return
        code_length = len(self.storage_codes[0]) if self.storage_codes else 0
        answer = await self._request(LOGIN, VehicleLogin(now, self.login_serial, self.iccid, code_length,
                                                         self.storage_codes))
        response = answer.header.response
        if response != Response.SUCCESS:
            self.counters.login_refusals += 1
            self.counters.vin_duplicates += response == Response.VIN_DUPLICATE
            raise LoginRefused(response or 0)
        self.counters.logins += 1

    async def _logout(self, read_task: asyncio.Task[None]) -> None:
        """Vehicle logout with the login's serial; a short wait for its answer (none in GB 17691)."""
        body = VehicleLogout(datetime.now(UTC), self.login_serial)
        if not self.answered:
            self._send(self._frame(EMISSION_LOGOUT, body))
            await self._drain()
            self.queue.delivered()
        elif not read_task.done():
            try:
                await self._request(LOGOUT, body, timeout_s=min(1.0, self.config.reply_timeout_s))
            except (TimeoutError, ConnectionError):
                return
        self.counters.logouts += 1

    async def _request(self, command: int, body: Any, timeout_s: float | None = None) -> Message:
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._answers[command] = future
        self._send(self._frame(command, body))
        try:
            async with asyncio.timeout(timeout_s or self.config.reply_timeout_s):
                return await future
        finally:
            self._answers.pop(command, None)

    async def _serve(self, stop: asyncio.Event, read_task: asyncio.Task[None]) -> None:
        loop = asyncio.get_running_loop()
        queue = self.queue
        while not stop.is_set():
            if read_task.done():
                raise ConnectionError("connection closed by the gateway")
            now = loop.time()
            for report in queue.next_backfill(now):  # what is owed goes up first, as back-filled data
                self._send(self.frame_of(report, REISSUED))
                queue.mark_sent(report, REISSUED, now)
            for report in queue.next_live():
                self._send(self.frame_of(report, REALTIME))
                queue.mark_sent(report, REALTIME, now)
            if self.answered and now - self._last_sent_at >= self.config.heartbeat_interval_s:
                self._send(self._frame(HEARTBEAT, Heartbeat()))
                self.counters.heartbeats += 1
            await self._drain()
            if not self.answered:
                queue.delivered()
            self._wakeup.clear()
            wait_s = min(self.config.heartbeat_interval_s, self.config.ack_timeout_s / 2)
            timer = loop.call_later(wait_s, self._wakeup.set)
            try:
                await self._wakeup.wait()
            finally:
                timer.cancel()

    def _answer_platform_command(self, message: Message) -> None:
        """0x80 answered with the items asked (all of table 24 the terminal keeps when none named), 0x81 with
        its items after keeping them (the versions 0x07 / 0x08 are read only), 0x82 acknowledged; each with
        the response flag 0x01 and the command's own time."""
        body = message.body
        answer: ParameterQuery | ParameterSet | TerminalControl
        if isinstance(body, ParameterQuery):
            ids = body.ids or tuple(self.parameters)
            answer = ParameterQuery(body.time, values=tuple((i, self.parameters[i]) for i in ids if i in self.parameters))
        elif isinstance(body, ParameterSet):
            self.parameters.update((i, v) for i, v in body.values if i not in (0x07, 0x08))
            answer = body
        elif isinstance(body, TerminalControl):
            answer = TerminalControl(body.time, body.command)
        else:
            return
        frame = encode_frame(message.header.command, answer, vin=self.vin, protocol=self.protocol,
                             response=Response.SUCCESS)
        with contextlib.suppress(ConnectionError):
            self._send(frame)

    def _send(self, frame: bytes) -> None:
        if self._writer is None:
            raise ConnectionError("not connected")
        self._writer.write(frame)
        self._last_sent_at = asyncio.get_running_loop().time()

    async def _drain(self) -> None:
        if self._writer is not None:
            await self._writer.drain()

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        frames = FrameReader()
        while True:
            data = await reader.read(65536)
            if not data:  # closed: a login the gateway hung up on fails now, not after reply_timeout_s
                self._fail_answers()
                return
            for item in frames.feed(data):
                if isinstance(item, GB32960Error):
                    self.counters.bad_frames += 1
                    continue
                try:
                    message = decode_frame(item, protocol=self.protocol)
                except GB32960Error as exc:
                    self.counters.bad_frames += 1
                    log.debug("GB terminal %s: undecodable platform frame %s: %s", self.vin, item.hex(), exc)
                    continue
                self._on_frame(message)

    def _on_frame(self, message: Message) -> None:
        """A platform answer (GB/T 32960: response flag not 0xFE), or a platform command: parameter query /
        set and terminal control are answered (GB/T 32960.3-2016 §7.6-7.8); anything on a GB 17691 link is
        ignored."""
        header = message.header
        if header.is_command:
            if self.answered:
                self._answer_platform_command(message)
            return
        future = self._answers.get(header.command)
        if future is not None and not future.done():
            future.set_result(message)
            return
        # the standard's answer carries the answered command's time; one echoing the whole data unit, its
        # collection time
        body = message.body
        answered_at = body.time if isinstance(body, TimeOnly) else getattr(body, "collected_at", None)
        if header.command in (REALTIME, REISSUED):
            if header.response == Response.SUCCESS:
                self.queue.acknowledged(answered_at, header.command)
            else:
                self.queue.rejected(answered_at, header.command)
            self._wakeup.set()
        elif header.command == TIME_CALIBRATION:
            self.counters.calibrations += 1

    def _fail_answers(self) -> None:
        for future in self._answers.values():
            if not future.done():
                future.set_exception(ConnectionError("disconnected"))
        self._answers.clear()


async def _sleep_until(loop: asyncio.AbstractEventLoop, deadline: float, stop: asyncio.Event) -> None:
    delay = deadline - loop.time()
    if delay <= 0:
        return
    try:
        async with asyncio.timeout(delay):
            await stop.wait()
    except TimeoutError:
        pass
