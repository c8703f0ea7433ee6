"""The link to one GB/T 32960 superior platform (GB/T 32960.3-2016 §7.5): TCP, platform login 0x05 with the
platform's username, password and encryption rule, answered 0x01 success before anything else is sent;
heartbeat 0x07 every ``heartbeat_s``; a link that has read nothing for three heartbeats, or any read or write
error, is lost, and is opened again after an exponential backoff with full jitter (exchange.link.backoff, as
the JT/T 809 main link); platform logout 0x06 when the service stops.

``send()`` writes a frame while the link is up, else raises ``LinkDown``; ``losses`` counts lost links and
``bytes_written`` the bytes written (exchange.link.resend decides from them what to send again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from exchange.gb32960 import forwarding as f
from exchange.link.backoff import Backoff
from exchange.link.links import LinkDown
from protocols.gb32960 import FrameReader, GB32960Error, Response, decode_frame

log = logging.getLogger(__name__)


class SuperiorLink:
    def __init__(self, host: str, port: int, username: str, password: str, encryption: int, version: str, *,
                 heartbeat_s: float, login_timeout_s: float, backoff: Backoff,
                 on_state: Callable[[str, str | None], None] | None = None) -> None:
        f.framing(version)  # refuses a version other than 2016 / 2025 here, not at the first frame
        self.host, self.port, self.version = host, port, version
        self.username, self.password, self.encryption = username, password, encryption
        self.heartbeat_s, self.login_timeout_s = heartbeat_s, login_timeout_s
        self.backoff = backoff
        self.on_state = on_state or (lambda state, error: None)
        self.up = asyncio.Event()
        self.losses = 0
        self.bytes_written = 0
        self.lost_at, self.bytes_at_loss = 0.0, 0  # when the last loss was noticed, and the bytes written then
        self.last_heartbeat_at: datetime | None = None
        self.serial = f.LoginSerial()
        self._login_serial = 0
        self._writer: asyncio.StreamWriter | None = None
        self._lost = asyncio.Event()

    async def send(self, frame: bytes) -> None:
        writer = self._writer
        if not self.up.is_set() or writer is None:
            raise LinkDown("the link to the superior is down")
        try:
            writer.write(frame)
            await writer.drain()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a transport closed under us
            self._lose(f"write failed: {exc}")
            raise LinkDown(str(exc)) from None
        self.bytes_written += len(frame)

    def _lose(self, error: str) -> None:
        if self.up.is_set():
            self.up.clear()
            self.losses += 1
            self.lost_at, self.bytes_at_loss = time.monotonic(), self.bytes_written
            self.on_state("disconnected", error)
        self._lost.set()
        if self._writer is not None:
            self._writer.transport.abort()  # the reader sees the loss at once

    async def run(self) -> None:
        """Connect, log in and keep the link until cancelled (then log out)."""
        try:
            while True:
                try:
                    await self._session()
                except (OSError, TimeoutError, GB32960Error, LoginRefused) as exc:
                    self._lose(str(exc) or type(exc).__name__)
                    self.on_state("disconnected", str(exc) or type(exc).__name__)
                self._close()
                await asyncio.sleep(self.backoff.next_delay())
        finally:
            await self._logout()

    async def _session(self) -> None:
        self.on_state("connecting", None)
        async with asyncio.timeout(self.login_timeout_s):
            reader, writer = await asyncio.open_connection(self.host, self.port)
        self._writer = writer
        frames = FrameReader()
        now = datetime.now(UTC)
        self._login_serial = self.serial.next(now)
        writer.write(f.login_frame(self.version, now, self._login_serial, self.username, self.password,
                                   self.encryption))
        await writer.drain()
        async with asyncio.timeout(self.login_timeout_s):
            answer = await self._next_frame(reader, frames)
        message = decode_frame(answer)
        if message.header.command != f.PLATFORM_LOGIN or message.header.response != Response.SUCCESS:
            raise LoginRefused(f"platform login answered command 0x{message.header.command:02X} flag "
                               f"0x{message.header.response or 0:02X}")
        self.backoff.reset()
        self._lost.clear()
        self.up.set()
        self.on_state("connected", None)
        heartbeat = asyncio.create_task(self._heartbeats())
        try:
            while not self._lost.is_set():
                async with asyncio.timeout(3 * self.heartbeat_s):
                    data = await reader.read(65536)
                if not data:
                    raise ConnectionResetError("the superior closed the link")
                for item in frames.feed(data):
                    if isinstance(item, bytes) and item[2] == f.HEARTBEAT:
                        self.last_heartbeat_at = datetime.now(UTC)
            raise ConnectionResetError("link lost")
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat

    async def _heartbeats(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            with contextlib.suppress(LinkDown):
                await self.send(f.heartbeat_frame(self.version))

    @staticmethod
    async def _next_frame(reader: asyncio.StreamReader, frames: FrameReader) -> bytes:
        while True:
            data = await reader.read(4096)
            if not data:
                raise ConnectionResetError("the superior closed the link before answering the login")
            for item in frames.feed(data):
                if isinstance(item, bytes):
                    return item

    def _close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    async def _logout(self) -> None:
        """Platform logout 0x06 with the serial of the login it ends, when logged in; then close."""
        writer = self._writer
        if self.up.is_set() and writer is not None:
            with contextlib.suppress(OSError, RuntimeError):
                writer.write(f.logout_frame(self.version, datetime.now(UTC), self._login_serial))
                async with asyncio.timeout(2):
                    await writer.drain()
        self.up.clear()
        self._close()


class LoginRefused(Exception):
    """The superior answered the platform login with another flag than success."""
