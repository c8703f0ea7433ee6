"""The main link server of a JT/T 809 superior platform (§5.2.1), shared by the regulator in a box
(exchange/regulator) and fleetwatch's own superior service (exchange/superior/service.py).

It accepts inferior platforms' main links, reads frames until a 0x1001, checks the login against its
accounts (0x1002 result codes of §5.2.1.2; a refused link is closed), opens the sub link back
(``PlatformLinks``), and hands every later frame to ``handle``. Every frame is checked (CRC, decryption,
layout); a failing one is counted by kind and logged as hex, never fatal. Subclasses say what a frame
does (``handle``), what they keep of each frame (``record``), of each link event (``event``) and of each
bad frame (``count_error``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections import Counter
from collections.abc import Coroutine, Iterable
from typing import Any

from exchange.superior.accounts import Account
from exchange.superior.addresses import down_link_allowed, host_listed
from exchange.superior.frames import FrameReader
from exchange.superior.links import PlatformLinks, Timing
from protocols.jt809 import (
    BodyError,
    EncryptedBodyError,
    FramingError,
    JT809Error,
    LengthError,
    Message,
    UnknownVersionError,
    decode_frame,
    encode_frame,
    unescape,
)
from protocols.jt809 import messages as m
from protocols.jt809.framing import strip_flags

log = logging.getLogger("exchange.superior")
LoginResult = m.LoginResult


class MainLinkServer:
    def __init__(self, accounts: Iterable[Account], *, host: str = "127.0.0.1", port: int = 0,
                 timing: Timing | None = None, login_timeout_s: float = 30.0, hex_log_bytes: int = 64,
                 max_platforms: int | None = None) -> None:
        self.accounts = {a.user_id: a for a in accounts}
        self.host, self.port = host, port
        self.timing = timing or Timing()
        self.login_timeout_s = login_timeout_s
        self.max_platforms = max_platforms  # platforms logged in at once; one more is refused as busy
        self.hex_log_bytes = hex_log_bytes
        self.login_results: Counter[str] = Counter()
        self.links: dict[int, PlatformLinks] = {}
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- what a subclass keeps and does --------------------------------------------------------------
    async def handle(self, links: PlatformLinks, link: str, message: Message) -> None:
        """Act on one sound frame after the login (link messages, business data)."""
        raise NotImplementedError

    def record(self, user_id: int, link: str, direction: str, msg_id: int, data_type: int | None, sn: int,
               body: Any = None, raw: bytes = b"") -> None:
        """Every frame read (``up``) or written (``down``) on a link of a logged-in platform."""

    def event(self, links: PlatformLinks | None, kind: str, detail: str) -> None:
        user = links.account.user_id if links is not None else None
        log.info("link event user=%s %s: %s", user, kind, detail)

    def count_error(self, kind: str) -> None:
        """A frame that failed its checks, by kind (framing, length, crc, decrypt, version, body)."""

    # -- lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port, limit=256 * 1024)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("superior main link server on %s:%s (%d accounts)", self.host, self.port, len(self.accounts))

    async def stop(self) -> None:
        """Tell every logged-in inferior we close (0x9008), close the links and the server."""
        if self._server is not None:
            self._server.close()
        for links in self.links.values():
            await links.close(notice=True)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await self._server.wait_closed()
            self._server = None

    def abort(self) -> None:
        """Reset every link's sockets without reading what is buffered (a killed process; see
        ``PlatformLinks.abort``); ``stop()`` then closes the rest."""
        for links in self.links.values():
            links.abort()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- decoding --------------------------------------------------------------------------------
    async def _decode(self, links: PlatformLinks, link: str, raw: bytes) -> Message | None:
        acct = links.account
        if link == "garbage":
            self._failed(acct.user_id, "framing", "bytes outside a frame", raw)
            return None
        try:
            message = decode_frame(raw, version=acct.version, keys=acct.keys)
        except JT809Error as exc:
            self._failed(acct.user_id, self._kind(exc, raw, acct), str(exc), raw)
            return None
        body = message.body
        self.record(acct.user_id, link, "up", message.header.msg_id, getattr(body, "data_type", None),
                    message.header.sn, body, raw)
        return message

    def _kind(self, exc: JT809Error, raw: bytes, acct: Account) -> str:
        """crc / decrypt / version / body / length / framing, the way an operator would look for it."""
        if isinstance(exc, EncryptedBodyError):
            return "decrypt"
        if isinstance(exc, UnknownVersionError):
            return "version"
        if isinstance(exc, LengthError):
            return "length"
        if isinstance(exc, FramingError):
            return "crc" if exc.header is not None else "framing"
        if isinstance(exc, BodyError):
            if exc.header is not None and exc.header.encrypted:
                return "decrypt"  # a body that does not fit after decryption: the keys are not the peer's
            other = "2019" if acct.version == "2011" else "2011"
            try:
                decode_frame(raw, version=other, keys=acct.keys)
            except JT809Error:
                return "body"
            return "version"
        return "crc"

    def _failed(self, user_id: int | None, kind: str, reason: str, raw: bytes) -> None:
        self.count_error(kind)
        log.warning("bad frame user=%s kind=%s: %s; hex %s", user_id, kind, reason,
                    raw[: self.hex_log_bytes].hex())

    # -- main link -------------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        peer_text = f"{peer[0]}:{peer[1]}" if peer else "?"
        frames = FrameReader(reader)
        links: PlatformLinks | None = None
        try:
            async with asyncio.timeout(self.login_timeout_s):
                links = await self._login(frames, writer, peer[0] if peer else "")
            if links is None:
                return
            self.event(links, "main_link_up", f"login from {peer_text}")
            await links.read_main(frames)
        except (TimeoutError, ConnectionError, EOFError) as exc:
            log.info("main link from %s closed before login: %s", peer_text, type(exc).__name__)
        finally:
            if links is not None:
                links.detach_main(writer)
                self.event(links, "main_link_down", f"{peer_text} closed")
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _new_links(self, acct: Account) -> PlatformLinks:
        uid = acct.user_id
        return PlatformLinks(acct, self._decode, self.handle, self.timing,
                             lambda link, d, msg_id, dt, sn, body, raw: self.record(uid, link, d, msg_id, dt, sn,
                                                                                    body, raw))

    async def _login(self, frames: FrameReader, writer: asyncio.StreamWriter, host: str) -> PlatformLinks | None:
        """Read frames until a 0x1001 and answer it; None when refused (the caller closes)."""
        while True:
            raw, _garbage = await frames.next()
            if raw is None:
                continue
            login = self._decode_login(raw)
            if login is not None:
                break
        message, version = login
        request: m.LoginRequest = message.body
        acct = self.accounts.get(request.user_id)
        result = self.check_login(acct, request, message.header.centre_id, host, version)
        self.login_results[result.name] += 1
        if acct is None or result != LoginResult.OK:
            frame = encode_frame(m.LoginResponse.MSG_ID, m.LoginResponse(result, 0), sn=1,
                                 centre_id=message.header.centre_id, version=version)
            writer.write(frame)
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            why = result.name
            if result == LoginResult.IP_INCORRECT and acct is not None and (
                    not acct.allowed_hosts or host_listed(host, acct.allowed_hosts)):
                why += f" (DOWN_LINK_IP {request.down_link_ip[:40]} is not an address of the platform)"
            self.event(None, "login_refused", f"user {request.user_id} from {host}: {why}")
            return None
        links = self.links.get(acct.user_id)
        if links is None or links.account != acct:  # a changed account (keys, version) gets fresh links
            if links is not None:
                await links.close()
            links = self.links[acct.user_id] = self._new_links(acct)
        self.record(acct.user_id, "main", "up", message.header.msg_id, None, message.header.sn, request, raw)
        peer = writer.get_extra_info("peername")
        verify = links.attach_main(writer, f"{peer[0]}:{peer[1]}" if peer else "?",
                                   (request.down_link_ip, request.down_link_port))
        links.send_main(m.LoginResponse.MSG_ID, m.LoginResponse(LoginResult.OK, verify))
        return links

    def _decode_login(self, raw: bytes) -> tuple[Message, str] | None:
        """The frame as a 0x1001 in the layout and with the keys of the account its header's centre id
        names (any account's layout when none does), else None (counted)."""
        try:
            content = unescape(strip_flags(raw))
        except JT809Error as exc:
            self._failed(None, "framing", str(exc), raw)
            return None
        centre = int.from_bytes(content[10:14], "big") if len(content) >= 14 else -1
        matching = [a for a in self.accounts.values() if a.centre_id == centre] or list(self.accounts.values())
        if not matching:  # no account at all: read it in the plain layouts, to answer "unknown user"
            matching = [Account(0, "", 0, "2019"), Account(0, "", 0, "2011")]
        tried: list[tuple[str, Any]] = []
        for acct in matching:
            for version in (acct.version, "2019" if acct.version == "2011" else "2011"):
                if (version, acct.keys) in tried:
                    continue
                tried.append((version, acct.keys))
                try:
                    message = decode_frame(raw, version=version, keys=acct.keys)
                except JT809Error:
                    continue
                if isinstance(message.body, m.LoginRequest):
                    return message, version
        try:
            decode_frame(raw, version=matching[0].version, keys=matching[0].keys)
        except JT809Error as exc:
            self._failed(None, self._kind(exc, raw, matching[0]), f"before login: {exc}", raw)
            return None
        self.count_error("before_login")
        return None

    def check_login(self, acct: Account | None, request: m.LoginRequest, header_centre: int, host: str,
                    version: str) -> LoginResult:
        """§5.2.1.2 result codes: 3 unknown user, 1 address not allowed (the main link's source outside the
        account's ``allowed_hosts``, or a DOWN_LINK_IP that is neither that source nor one of them:
        exchange/superior/addresses.py), 4 wrong password (compared in
        constant time: the 0x1001 carries it in clear), 2 wrong access code (the centre id, in the header
        and in a 2019 body), 6 a layout other than agreed, 5 (resources busy) when ``max_platforms`` other
        platforms are logged in. A platform logging in again replaces its previous main link (it
        reconnected after a failure we have not seen yet)."""
        if acct is None:
            return LoginResult.USER_NOT_REGISTERED
        if acct.allowed_hosts and not host_listed(host, acct.allowed_hosts):
            return LoginResult.IP_INCORRECT
        if not down_link_allowed(request.down_link_ip, host, acct.allowed_hosts):
            return LoginResult.IP_INCORRECT  # we would connect the sub link to a host it does not own
        if not hmac.compare_digest(request.password.encode("gbk"), acct.password.encode("gbk")):
            return LoginResult.PASSWORD_WRONG
        if header_centre != acct.centre_id or (request.centre_id is not None and request.centre_id != acct.centre_id):
            return LoginResult.ACCESS_CODE_INCORRECT
        if version != acct.version:
            return LoginResult.OTHER
        others = [uid for uid, lk in self.links.items() if lk.main.state == "up" and uid != acct.user_id]
        if self.max_platforms is not None and len(others) >= self.max_platforms:
            return LoginResult.RESOURCES_BUSY
        return LoginResult.OK
