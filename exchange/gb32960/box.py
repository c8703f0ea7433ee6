"""The superior in a box: a GB/T 32960 superior platform for the tests and ``make up`` (``fleet
gb32960-exchange-sim``), asyncio and standard-library sockets only.

It accepts platform links in both framings (``##`` 2016, ``$$`` 2025): the first frame must be a platform login
0x05 of a known username with its password (compared in constant time), answered 0x01 success, else 0x02 error
and the link closed (GB/T 32960.3-2016 §6.3.2, §7.5.1); a link that sends anything else first is closed. Then
real-time 0x02 and back-filled 0x03 data are decoded and recorded per VIN (command, collection time, the data
unit as hex) and answered 0x01 with their collection time; heartbeats 0x07 are answered; a logout 0x06 is
answered and the link closed. Frames that do not decode are counted by kind. An account with an AES key
(``keys``) may send AES-128 data units (encryption 0x03, protocols/gb32960/cipher.py): each is decrypted before it
is read and recorded as ``encrypted``; an encrypted frame of an account without a key, or one that does not
decrypt with its key, is counted (``no_key``, ``CipherError``) and answered 0x02 error. ``abort()`` resets every
link without reading what is buffered (what a killed process does, for the tests). The box keeps the last
``keep`` data frames and counts all of them (``counts``), so one left running under ``make up`` stays small.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import datetime

from protocols.gb32960 import (
    Encryption,
    FrameReader,
    GB32960Error,
    Response,
    TimeOnly,
    decode_frame,
    encode_frame,
)
from protocols.gb32960.cipher import AesKey, decrypt_frame
from protocols.gb32960.header import Header
from protocols.gb32960.messages import Heartbeat, PlatformLogin, RealtimeReport

log = logging.getLogger(__name__)


def parse_account(text: str) -> tuple[str, str]:
    """``USERNAME:PASSWORD`` -> (username, password); ValueError names what is wrong."""
    username, sep, password = text.partition(":")
    if not sep or not username or not password:
        raise ValueError(f"account {text!r}: expected USERNAME:PASSWORD")
    if len(username.encode()) > 12 or len(password.encode()) > 20:
        raise ValueError(f"account {text!r}: the username is at most 12 bytes, the password at most 20")
    return username, password


def parse_aes(text: str) -> tuple[str, AesKey]:
    """``USERNAME:KEYHEX:IVHEX`` (16 bytes each) -> (username, key); ValueError names what is wrong."""
    username, key_hex, iv_hex = (text.split(":") + ["", ""])[:3]
    if not username or text.count(":") != 2:
        raise ValueError(f"AES key {text!r}: expected USERNAME:KEYHEX:IVHEX")
    return username, AesKey.from_hex(key_hex, iv_hex)


@dataclass(frozen=True)
class Received:
    vin: str
    command: int
    protocol: str  # gb32960-2016 | gb32960-2025
    collected_at: datetime | None
    data_hex: str  # the clear data unit (decrypted when it came encrypted)
    user: str
    encrypted: bool = False


KEEP_RECEIVED = 10_000


@dataclass
class BoxStatus:
    logins: list[tuple[str, bool]] = field(default_factory=list)  # (username, accepted)
    logouts: int = 0
    heartbeats: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    received: deque[Received] = field(default_factory=lambda: deque(maxlen=KEEP_RECEIVED))  # the last ones
    counts: Counter[tuple[int, bool]] = field(default_factory=Counter)  # every data frame: (command, encrypted)


class SuperiorBox:
    def __init__(self, accounts: dict[str, str], host: str = "127.0.0.1", port: int = 0,
                 keys: dict[str, AesKey] | None = None) -> None:
        self.accounts = accounts
        self.keys = keys or {}
        self.host, self._port = host, port
        self.status = BoxStatus()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.changed = asyncio.Condition()

    @property
    def port(self) -> int:
        if self._server is None:
            return self._port
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._link, self.host, self._port, reuse_address=True)
        self._port = self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        if self._server is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await self._server.wait_closed()
        self._server = None

    async def abort(self) -> None:
        """Stop listening and reset every link at once, unread bytes lost."""
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        self._server = None

    def of(self, vin: str) -> list[Received]:
        return [r for r in self.status.received if r.vin == vin]

    async def wait_for(self, predicate: object, timeout_s: float) -> None:
        """Wait until ``predicate()`` is true (checked at every frame recorded)."""
        async with asyncio.timeout(timeout_s), self.changed:
            await self.changed.wait_for(predicate)  # type: ignore[arg-type]

    def _error(self, kind: str, detail: str) -> None:
        self.status.errors[kind] = self.status.errors.get(kind, 0) + 1
        log.warning("gb32960 superior box: %s: %s", kind, detail)

    @staticmethod
    async def _refuse(writer: asyncio.StreamWriter, header: Header) -> None:
        writer.write(encode_frame(header.command, b"", vin=header.vin, protocol=header.protocol,
                                  response=Response.ERROR))
        await writer.drain()

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        frames = FrameReader()
        user: str | None = None
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                for item in frames.feed(data):
                    if isinstance(item, GB32960Error):
                        self._error("framing", str(item))
                        continue
                    try:
                        message = decode_frame(item)
                        encrypted = user is not None and message.header.encryption == Encryption.AES128
                        if encrypted:
                            key = self.keys.get(user or "")
                            if key is None:
                                self._error("no_key", f"an AES data unit from {user}, who has no key")
                                await self._refuse(writer, message.header)
                                continue
                            item = decrypt_frame(item, key)
                            message = decode_frame(item)
                    except GB32960Error as exc:
                        self._error(type(exc).__name__, f"{exc} {item.hex()}")
                        if exc.header is not None and user is not None:
                            await self._refuse(writer, exc.header)
                        continue
                    header, body = message.header, message.body
                    answer_body: object = None
                    if user is None:
                        if not isinstance(body, PlatformLogin):
                            self._error("not_logged_in", f"command 0x{header.command:02X} before the platform login")
                            return
                        expected = self.accounts.get(body.user)
                        ok = expected is not None and hmac.compare_digest(expected.encode(), body.password.encode())
                        self.status.logins.append((body.user, ok))
                        log.info("gb32960 superior box: platform login %s %s", body.user, "accepted" if ok else "refused")
                        writer.write(encode_frame(0x05, TimeOnly(body.time), vin=header.vin, protocol=header.protocol,
                                                  response=Response.SUCCESS if ok else Response.ERROR))
                        await writer.drain()
                        if not ok:
                            return
                        user = body.user
                        continue
                    if header.command in (0x02, 0x03):
                        collected = body.collected_at if isinstance(body, RealtimeReport) else None
                        self.status.received.append(Received(header.vin, header.command, header.protocol.value,
                                                             collected, item[24:-1].hex(), user, encrypted))
                        self.status.counts[header.command, encrypted] += 1
                        answer_body = TimeOnly(collected) if collected else None
                    elif isinstance(body, Heartbeat):
                        self.status.heartbeats += 1
                    elif header.command == 0x06:
                        self.status.logouts += 1
                        writer.write(encode_frame(0x06, b"", vin=header.vin, protocol=header.protocol,
                                                  response=Response.SUCCESS))
                        await writer.drain()
                        return
                    writer.write(encode_frame(header.command, answer_body if answer_body is not None else b"",
                                              vin=header.vin, protocol=header.protocol, response=Response.SUCCESS))
                    async with self.changed:
                        self.changed.notify_all()
                await writer.drain()
        except (ConnectionError, OSError):
            return
        finally:
            self._writers.discard(writer)
            writer.close()
            async with self.changed:
                self.changed.notify_all()
