"""The two links to one superior platform (JT/T 809-2011 §5.1, §5.2; -2019 §5.2, §5.3).

Main link: we are the TCP client. 0x1001 login (user id, password, our sub link's address); 0x1002 result 0
gives the verify code, any other result is a refusal (logged with its name, retried with backoff: a
superior that is busy or misconfigured is not hammered). 0x1005 heartbeat every ``heartbeat_s``; a link
that reads nothing for three intervals is dead. On loss: reconnect with exponential backoff and jitter.
Sub link: we are the TCP server the superior connects back to; its 0x9001 must carry the verify code of our
current login (else 0x9002 result 1 and the connection is closed); 0x9005 -> 0x9006; 0x9003 -> 0x9004.
While the main link is down, data goes on the sub link and we tell the superior with 0x1007 there (the
standard's rule for a broken main link); when both are down ``send`` raises LinkDown and the forwarder
stops consuming. A written frame is only in the socket: every loss of a link that carried data is counted
(``losses``, ``lost_at``, ``bytes_at_loss``) so the forwarder sends again what the lost link may not have
delivered (exchange.link.resend).
Frames the superior sends for the business (0x9101, 0x9200, 0x9300, 0x9400, ...) go to ``events.request``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from exchange.link.backoff import Backoff
from exchange.link.wire import PlatformWire, read_frame
from protocols.jt809 import JT809Error, Message
from protocols.jt809 import messages as m

log = logging.getLogger(__name__)

MAIN = "main"
SUB = "sub"
DEAD_AFTER_HEARTBEATS = 3
# The sub link is kept alive by the superior's 0x9005 (从链路连接保持请求) at the superior's own interval
# (fleetwatch's superior and regulator send one every 30 s): a sub link is closed for silence after three 60 s
# intervals, never after three of our own main link heartbeats, which may be shorter than the superior's (a sub
# link closed between two of its keep-alives loses a request sent down it meanwhile).
SUB_LINK_SILENCE_S = 180.0
# 0x1002 results that name a configuration error (1 IP, 2 access code, 3 user, 4 password): the next attempt
# waits as long as after this many failures (the backoff's cap in practice); 5 busy and 6 other back off normally.
CONFIGURATION_REFUSALS = frozenset({m.LoginResult.IP_INCORRECT, m.LoginResult.ACCESS_CODE_INCORRECT,
                                    m.LoginResult.USER_NOT_REGISTERED, m.LoginResult.PASSWORD_WRONG})
CONFIGURATION_FAILURES = 16


class LinkDown(ConnectionError):
    """Neither link is up: nothing can be sent now."""


class LoginRefused(ConnectionError):
    def __init__(self, result: int) -> None:
        name = m.LoginResult(result).name if result in set(m.LoginResult) else "UNKNOWN"
        super().__init__(f"login refused by the superior: result {result} ({name})")
        self.result = result


class LinkEvents(Protocol):
    """What the link service does with the links' news (exchange.link.service; tests record it)."""

    def state(self, link: str, state: str, error: str | None = None) -> None: ...

    def heartbeat(self, link: str) -> None: ...

    def frame(self, direction: str, link: str, msg_id: int, body: Any, raw: bytes) -> None: ...

    async def request(self, link: str, message: Message) -> None: ...


@dataclass(frozen=True)
class LinkConfig:
    host: str
    port: int
    user_id: int
    password: str
    centre_id: int
    down_link_host: str
    down_link_port: int
    heartbeat_s: float = 60.0
    login_timeout_s: float = 10.0
    connect_timeout_s: float = 10.0


class Links:
    """Both links of one superior platform. ``run()`` until cancelled; ``send()`` from any task."""

    def __init__(self, config: LinkConfig, wire: PlatformWire, events: LinkEvents,
                 backoff: Backoff | None = None) -> None:
        self.config = config
        self.wire = wire
        self.events = events
        self.backoff = backoff or Backoff()
        self.verify_code: int | None = None
        self.writers: dict[str, asyncio.StreamWriter | None] = {MAIN: None, SUB: None}
        self.up = asyncio.Event()
        self.sub_port: int | None = None
        self._server: asyncio.Server | None = None
        self._told_main_down = False
        # for the forwarder's resend window (exchange.link.resend): bytes of frames written on either link, and
        # of each loss of a link that carried data (not only link messages): how many so far, when (monotonic)
        # and the bytes written by then
        self.bytes_written = 0
        self.carried = {MAIN: False, SUB: False}
        self.losses = 0
        self.lost_at = 0.0
        self.bytes_at_loss = 0

    # --- sending ------------------------------------------------------------------------------------

    def is_up(self, link: str | None = None) -> bool:
        names = (link,) if link else (MAIN, SUB)
        return any(self.writers[n] is not None and not self.writers[n].is_closing() for n in names)  # type: ignore[union-attr]

    async def send(self, msg_id: int, body: Any, *, only: str | None = None) -> str:
        """Write one frame on the main link, else the sub link; return the link used. Raises LinkDown when
        neither (or ``only``) is up. The frame is in the socket's buffer below its high-water mark on return."""
        return await self.send_all(((msg_id, body),), only=only)

    async def send_all(self, messages: Sequence[tuple[int, Any]], *, only: str | None = None) -> str:
        """Write frames (message id, body) in order, all on one link, as one write to the socket: a record of
        fifty positions is one system call, not fifty (the link service's largest cost at 10,000 positions a
        second was the per-frame send). Main link first, else the sub link, as ``send``."""
        for name in (only,) if only else (MAIN, SUB):
            writer = self.writers[name]
            if writer is None or writer.is_closing():
                continue
            frames = [self.wire.encode(msg_id, body) for msg_id, body in messages]
            data = b"".join(frames)
            try:
                writer.write(data)
                await writer.drain()
            except (ConnectionError, OSError) as exc:
                self._lost(name, f"write failed: {exc}")
                continue
            self.bytes_written += len(data)
            self.carried[name] = self.carried[name] or only is None
            for (msg_id, body), frame in zip(messages, frames, strict=True):
                self.events.frame("up", name, msg_id, body, frame)
            return name
        raise LinkDown("neither the main nor the sub link is up")

    def _set(self, link: str, writer: asyncio.StreamWriter | None) -> None:
        self.writers[link] = writer
        self.carried[link] = False
        if self.is_up():
            self.up.set()
        else:
            self.up.clear()

    def _lost(self, link: str, error: str | None) -> None:
        writer = self.writers[link]
        if writer is not None:
            writer.close()
            carried = self.carried[link]
            self._set(link, None)
            if carried:
                self.losses += 1
                self.lost_at, self.bytes_at_loss = time.monotonic(), self.bytes_written
            self.events.state(link, "disconnected", error)

    # --- running ------------------------------------------------------------------------------------

    async def run(self) -> None:
        self._server = await asyncio.start_server(self._sub_connection, self.config.down_link_host,
                                                  self.config.down_link_port)
        self.sub_port = self._server.sockets[0].getsockname()[1]
        try:
            await self._main_forever()
        finally:
            self._server.close()
            for link in (MAIN, SUB):
                self._lost(link, None)

    async def _main_forever(self) -> None:
        while True:
            error: str | None = None
            try:
                await self._main_session()
            except LoginRefused as exc:
                error = str(exc)
                self.events.state(MAIN, "refused", error)
                if exc.result in CONFIGURATION_REFUSALS:
                    # wrong address, access code, user or password: retrying soon cannot help; an edited
                    # superior platform row restarts the links at once (exchange.link.command)
                    self.backoff.failures = max(self.backoff.failures, CONFIGURATION_FAILURES)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError,
                    JT809Error) as exc:
                error = f"{type(exc).__name__}: {exc}"
            if self.writers[MAIN] is not None:
                self._lost(MAIN, error)
            elif error:
                self.events.state(MAIN, "disconnected", error)
            await self._tell_sub_main_down()
            delay = self.backoff.next_delay()
            log.info("main link to %s:%s down (%s); retrying in %.1f s", self.config.host, self.config.port,
                     error, delay)
            await asyncio.sleep(delay)

    async def _tell_sub_main_down(self) -> None:
        """0x1007 on the sub link, once per outage of the main link (not at every reconnect attempt)."""
        if self.is_up(SUB) and not self._told_main_down:
            with contextlib.suppress(LinkDown):
                await self.send(m.DisconnectNotice.MSG_ID, m.DisconnectNotice(0), only=SUB)
                self._told_main_down = True

    async def _main_session(self) -> None:
        cfg = self.config
        self.events.state(MAIN, "connecting")
        async with asyncio.timeout(cfg.connect_timeout_s):
            reader, writer = await asyncio.open_connection(cfg.host, cfg.port)
        try:
            login = m.LoginRequest(cfg.user_id, cfg.password, cfg.down_link_host, self.sub_port or cfg.down_link_port,
                                   cfg.centre_id if self.wire.version == "2019" else None)
            frame = self.wire.encode(m.LoginRequest.MSG_ID, login)
            writer.write(frame)
            await writer.drain()
            # the password is never logged: the login frame is logged without its body
            self.events.frame("up", MAIN, m.LoginRequest.MSG_ID, {"userId": cfg.user_id}, b"")
            self.events.state(MAIN, "logging_in")
            async with asyncio.timeout(cfg.login_timeout_s):
                answer = await self._read_until(reader, MAIN, m.LoginResponse.MSG_ID)
            if answer.body.result != m.LoginResult.OK:
                raise LoginRefused(int(answer.body.result))
            self.verify_code = answer.body.verify_code
            self.backoff.reset()
            self._set(MAIN, writer)
            self._told_main_down = False
            self.events.state(MAIN, "connected")
            heartbeat = asyncio.create_task(self._heartbeats())
            try:
                await self._serve(reader, MAIN)
            finally:
                heartbeat.cancel()
        finally:
            writer.close()

    async def _read_until(self, reader: asyncio.StreamReader, link: str, msg_id: int) -> Message:
        while True:
            message = await self._read(reader, link)
            if message is not None and message.header.msg_id == msg_id:
                return message

    async def _read(self, reader: asyncio.StreamReader, link: str) -> Message | None:
        """The next frame, decoded; a frame that is not sound is logged and skipped (None)."""
        frame = await read_frame(reader)
        try:
            message = self.wire.decode(frame)
        except JT809Error as exc:
            log.warning("%s link: unsound frame %s (%s)", link, frame.hex(), exc)
            self.events.frame("down", link, exc.header.msg_id if exc.header else 0, {"error": str(exc)}, frame)
            return None
        self.events.frame("down", link, message.header.msg_id, message.body, frame)
        return message

    async def _heartbeats(self) -> None:
        while True:
            await asyncio.sleep(self.config.heartbeat_s)
            await self.send(m.Heartbeat.MSG_ID, m.Heartbeat(), only=MAIN)

    async def _serve(self, reader: asyncio.StreamReader, link: str) -> None:
        """Read the link until it ends or is silent: the main link for three of our heartbeat intervals (each
        0x1005 is answered), the sub link for SUB_LINK_SILENCE_S at least."""
        silence = self.config.heartbeat_s * DEAD_AFTER_HEARTBEATS
        if link == SUB:
            silence = max(silence, SUB_LINK_SILENCE_S)
        while True:
            try:
                async with asyncio.timeout(silence):
                    message = await self._read(reader, link)
            except TimeoutError:
                raise TimeoutError(f"nothing read for {silence:.0f} s") from None
            if message is None:
                continue
            msg_id = message.header.msg_id
            if msg_id in (m.HeartbeatResponse.MSG_ID, m.SubLinkHeartbeat.MSG_ID):
                self.events.heartbeat(link)
                if msg_id == m.SubLinkHeartbeat.MSG_ID:
                    await self.send(m.SubLinkHeartbeatResponse.MSG_ID, m.SubLinkHeartbeatResponse(), only=SUB)
            elif msg_id == m.SubLinkLogoutRequest.MSG_ID:
                with contextlib.suppress(LinkDown):
                    await self.send(m.SubLinkLogoutResponse.MSG_ID, m.SubLinkLogoutResponse(), only=SUB)
                return
            elif msg_id == m.SuperiorClosingNotice.MSG_ID:
                return
            elif msg_id in (m.SubLinkDisconnectNotice.MSG_ID, m.LogoutResponse.MSG_ID):
                log.info("%s link: 0x%04X from the superior", link, msg_id)
            else:
                await self.events.request(link, message)

    async def _sub_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        error: str | None = None
        try:
            async with asyncio.timeout(self.config.login_timeout_s):
                first = await self._read(reader, SUB)
            if first is None or first.header.msg_id != m.SubLinkLoginRequest.MSG_ID:
                return
            if self.verify_code is None or first.body.verify_code != self.verify_code:
                frame = self.wire.encode(m.SubLinkLoginResponse.MSG_ID,
                                         m.SubLinkLoginResponse(m.SubLinkLoginResult.VERIFY_CODE_WRONG))
                writer.write(frame)
                await writer.drain()
                self.events.frame("up", SUB, m.SubLinkLoginResponse.MSG_ID, {"code": 1}, frame)
                self.events.state(SUB, "refused", f"0x9001 verify code {first.body.verify_code} is not ours")
                return
            previous = self.writers[SUB]
            if previous is not None and previous is not writer:
                previous.close()
            self._set(SUB, writer)
            self._told_main_down = False  # a new sub link is told again
            await self.send(m.SubLinkLoginResponse.MSG_ID, m.SubLinkLoginResponse(m.SubLinkLoginResult.OK), only=SUB)
            self.events.state(SUB, "connected")
            if not self.is_up(MAIN):
                await self._tell_sub_main_down()
            await self._serve(reader, SUB)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, LinkDown) as exc:
            error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.writers[SUB] is writer:
                self._lost(SUB, error)
            else:
                writer.close()
