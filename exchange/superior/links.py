"""The two TCP links of one inferior platform (JT/T 809-2011 §4.1, §5.2):

- the main link: the inferior connects to us, logs in (0x1001), keeps it alive (0x1005) and sends its
  business data on it; we answer on it;
- the sub link: after a good login we connect back to the DOWN_LINK_IP / DOWN_LINK_PORT the login
  named, log in with the verify code of our 0x1002 (0x9001 -> 0x9002) and keep it alive (0x9005 ->
  0x9006); we send our requests on it. When it cannot be kept we tell the inferior on the main link
  (0x9007) and reconnect with backoff; meanwhile our requests go on the main link (§4.1: either link
  carries the other's traffic while that one is down).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from exchange.superior.accounts import Account
from exchange.superior.frames import FrameReader
from protocols.jt809 import Message, encode_frame
from protocols.jt809 import messages as m

log = logging.getLogger("exchange.superior")


def now() -> datetime:
    return datetime.now(UTC)


class LinkDown(RuntimeError):
    """Neither link of the platform is up, so a request cannot be sent."""


@dataclass
class LinkState:
    state: str = "down"  # down | connecting | up
    since: datetime = field(default_factory=now)
    peer: str | None = None
    last_heartbeat: datetime | None = None
    error: str | None = None

    def set(self, state: str, peer: str | None = None, error: str | None = None) -> None:
        if state != self.state:
            self.state, self.since = state, now()
        if peer is not None:
            self.peer = peer
        if error is not None or state == "up":  # the last failure stays visible until the link is up again
            self.error = error

    def as_json(self) -> dict[str, Any]:
        return {"state": self.state, "since": self.since.isoformat(), "peer": self.peer,
                "last_heartbeat": self.last_heartbeat.isoformat() if self.last_heartbeat else None,
                "error": self.error}


Handler = Callable[["PlatformLinks", str, Message], Awaitable[None]]
FrameSink = Callable[["PlatformLinks", str, bytes], Awaitable[Message | None]]
# (link, direction, msg_id, data_type, sn, body, raw frame): every frame written on either link
Recorder = Callable[[str, str, int, "int | None", int, Any, bytes], None]


@dataclass
class Timing:
    sub_heartbeat_s: float = 30.0
    sub_reply_timeout_s: float = 10.0
    reconnect_min_s: float = 1.0
    reconnect_max_s: float = 30.0
    main_idle_s: float = 180.0  # a main link silent this long is closed (3 of the inferior's 60 s heartbeats)


class PlatformLinks:
    """The main and sub link of one account. ``decode`` turns a raw frame into a Message (counting
    failures, None when it failed); ``handle`` acts on it."""

    def __init__(self, account: Account, decode: FrameSink, handle: Handler, timing: Timing,
                 record: Recorder) -> None:
        self.account = account
        self.main = LinkState()
        self.sub = LinkState()
        self.verify_code = 0
        self.down_link: tuple[str, int] | None = None
        self.main_host: str | None = None  # the source address of the current (or last) main link
        self.sub_logins = 0
        self.sub_failures = 0
        self.handler_errors = 0
        self._decode, self._handle, self._timing, self._record = decode, handle, timing, record
        self._main_writer: asyncio.StreamWriter | None = None
        self._sub_writer: asyncio.StreamWriter | None = None
        self._sub_task: asyncio.Task[None] | None = None
        self._sub_reply: asyncio.Future[int] | None = None
        self._sub_heartbeat_reply: asyncio.Event = asyncio.Event()
        self._sn = 0
        self._notified_sub_down = False

    # -- sending ---------------------------------------------------------------------------------
    def next_sn(self) -> int:
        self._sn = (self._sn + 1) & 0xFFFFFFFF
        return self._sn

    def frame(self, msg_id: int, body: Any, sn: int | None = None) -> tuple[bytes, int]:
        acct = self.account
        sn = self.next_sn() if sn is None else sn
        raw = encode_frame(msg_id, body, sn=sn, centre_id=acct.centre_id, version=acct.version, keys=acct.keys,
                           key=acct.key if acct.keys else 0, timestamp=int(now().timestamp()))
        return raw, sn

    def _write(self, link: str, writer: asyncio.StreamWriter, msg_id: int, body: Any) -> int:
        raw, sn = self.frame(msg_id, body)
        writer.write(raw)
        self._record(link, "down", msg_id, getattr(body, "data_type", None), sn, body, raw)
        return sn

    def send_main(self, msg_id: int, body: Any) -> int:
        if self._main_writer is None or self.main.state != "up":
            raise LinkDown(f"main link of user {self.account.user_id} is down")
        return self._write("main", self._main_writer, msg_id, body)

    def send_request(self, msg_id: int, body: Any) -> tuple[str, int]:
        """A superior-to-inferior request: on the sub link, or on the main link while the sub link is
        down (§4.1). Returns (link used, SN). Raises LinkDown when neither is up."""
        if self._sub_writer is not None and self.sub.state == "up":
            return "sub", self._write("sub", self._sub_writer, msg_id, body)
        return "main", self.send_main(msg_id, body)

    # -- main link -------------------------------------------------------------------------------
    def attach_main(self, writer: asyncio.StreamWriter, peer: str, down_link: tuple[str, int]) -> int:
        """A good login on ``writer``: a previous main link of this account is closed (the inferior
        reconnected), a fresh verify code is made and the sub link is (re)opened to ``down_link``."""
        if self._main_writer is not None and self._main_writer is not writer:
            self._main_writer.close()
        self._main_writer = writer
        self.main.set("up", peer)
        address = writer.get_extra_info("peername")
        self.main_host = str(address[0]) if address else None
        self.main.last_heartbeat = now()
        self.verify_code = secrets.randbits(32)
        self.down_link = down_link
        self._notified_sub_down = False
        self.restart_sub()
        return self.verify_code

    def detach_main(self, writer: asyncio.StreamWriter, error: str | None = None) -> None:
        if self._main_writer is writer:
            self._main_writer = None
            self.main.set("down", error=error)

    # -- sub link --------------------------------------------------------------------------------
    def restart_sub(self) -> None:
        self.stop_sub()
        self._sub_task = asyncio.get_running_loop().create_task(self._keep_sub())

    def stop_sub(self) -> None:
        if self._sub_task is not None:
            self._sub_task.cancel()
            self._sub_task = None
        if self._sub_writer is not None:
            self._sub_writer.close()
            self._sub_writer = None
        self.sub.set("down")

    async def close(self, notice: bool = False) -> None:
        """Close both links; with ``notice`` tell the inferior first (0x9008, 0: restart)."""
        if notice:
            with contextlib.suppress(LinkDown, OSError):
                self.send_request(m.SuperiorClosingNotice.MSG_ID, m.SuperiorClosingNotice(0))
        task = self._sub_task
        self.stop_sub()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._main_writer is not None:
            self._main_writer.close()
            self._main_writer = None
        self.main.set("down")

    def abort(self) -> None:
        """Reset both sockets at once, reading nothing more: what the kernel does to a killed process's sockets
        (the bytes the inferior sent that were not read yet are lost; it gets a reset). The tests' and the
        benchmark's abrupt stop of the regulator; ``close`` is the orderly one."""
        for writer in (self._main_writer, self._sub_writer):
            if writer is not None:
                writer.transport.abort()

    def sub_answered(self, result: int) -> None:
        if self._sub_reply is not None and not self._sub_reply.done():
            self._sub_reply.set_result(result)

    def sub_heartbeat_answered(self) -> None:
        self.sub.last_heartbeat = now()
        self._sub_heartbeat_reply.set()

    async def _keep_sub(self) -> None:
        delay = self._timing.reconnect_min_s
        while True:
            try:
                await self._run_sub()
                delay = self._timing.reconnect_min_s
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every failure of the sub link means: reconnect later
                self.sub_failures += 1
                self.sub.set("down", error=str(exc) or type(exc).__name__)
                log.info("sub link user=%s down: %s", self.account.user_id, self.sub.error)
                self._notify_sub_down()
            finally:
                if self._sub_writer is not None:
                    self._sub_writer.close()
                    self._sub_writer = None
            await asyncio.sleep(delay * (0.5 + random.random() / 2))
            delay = min(delay * 2, self._timing.reconnect_max_s)

    def _notify_sub_down(self) -> None:
        """0x9007 on the main link, once per outage (§5.2.1.7: 0 = the sub link cannot connect)."""
        if self._notified_sub_down:
            return
        with contextlib.suppress(LinkDown, OSError):
            self.send_main(m.SubLinkDisconnectNotice.MSG_ID, m.SubLinkDisconnectNotice(0))
            self._notified_sub_down = True

    async def _run_sub(self) -> None:
        if self.down_link is None:
            raise ConnectionError("the login named no sub link address")
        host, port = self.down_link
        self.sub.set("connecting", f"{host}:{port}")
        timeout = self._timing.sub_reply_timeout_s
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
        self._sub_writer = writer
        self._sub_reply = asyncio.get_running_loop().create_future()
        pump = asyncio.get_running_loop().create_task(self._read_sub(reader, writer))
        try:
            self._write("sub", writer, m.SubLinkLoginRequest.MSG_ID, m.SubLinkLoginRequest(self.verify_code))
            async with asyncio.timeout(timeout):
                result = await asyncio.shield(self._sub_reply)
            if result != m.SubLinkLoginResult.OK:
                raise ConnectionRefusedError(f"0x9002 result {result}")
            self.sub_logins += 1
            self.sub.set("up")
            self.sub.last_heartbeat = now()
            self._notified_sub_down = False
            log.info("sub link user=%s up to %s:%s", self.account.user_id, host, port)
            while not pump.done():
                self._sub_heartbeat_reply.clear()
                await asyncio.wait([pump], timeout=self._timing.sub_heartbeat_s)
                if pump.done():
                    break
                self._write("sub", writer, m.SubLinkHeartbeat.MSG_ID, m.SubLinkHeartbeat())
                try:
                    async with asyncio.timeout(timeout):
                        await self._sub_heartbeat_reply.wait()
                except TimeoutError:
                    raise TimeoutError("no 0x9006 to our 0x9005") from None
            pump.result()
            raise ConnectionResetError("the inferior closed the sub link")
        finally:
            pump.cancel()

    async def _read_sub(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        frames = FrameReader(reader)
        while True:
            try:
                raw, garbage = await frames.next()
            except EOFError:
                return
            if garbage.strip(b"\r\n"):
                await self._decode(self, "garbage", garbage)
            if raw is None:
                continue
            message = await self._decode(self, "sub", raw)
            if message is not None:
                await self._handle_safely("sub", message)

    async def _handle_safely(self, link: str, message: Message) -> None:
        """A failure while acting on one sound frame is logged with the frame and the link goes on:
        one message must not cost the platform its link (nor the frames behind it)."""
        try:
            await self._handle(self, link, message)
        except LinkDown as exc:
            log.info("user=%s 0x%04X on the %s link not answered: %s", self.account.user_id,
                     message.header.msg_id, link, exc)
        except Exception:
            self.handler_errors += 1
            log.exception("user=%s 0x%04X on the %s link: handling failed; frame %s", self.account.user_id,
                          message.header.msg_id, link, message.raw[:64].hex())

    async def read_main(self, frames: FrameReader) -> None:
        """Frames after the login until the inferior closes, we close it, or it stays silent for
        ``main_idle_s`` (no business frame and no 0x1005: §5.2.1.5, the link is taken as broken)."""
        while True:
            item = frames.buffered()  # frames already read go without a timer each
            if item is None:
                try:
                    async with asyncio.timeout(self._timing.main_idle_s):
                        item = await frames.next()
                except TimeoutError:
                    self.main.set("down", error=f"silent for {self._timing.main_idle_s:g} s")
                    log.info("main link user=%s closed: %s", self.account.user_id, self.main.error)
                    return
                except (EOFError, ConnectionError):
                    return
            raw, garbage = item
            if garbage.strip(b"\r\n"):
                await self._decode(self, "garbage", garbage)
            if raw is None:
                continue
            message = await self._decode(self, "main", raw)
            if message is not None:
                await self._handle_safely("main", message)
