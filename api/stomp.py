"""STOMP 1.2 for the console push socket: frame codec and the per-connection session state machine.

Pure: no sockets, no clocks, no Kafka. ``api.push`` feeds it the bytes of a WebSocket and writes out
what it returns. Only the server side of STOMP that the console needs is implemented: CONNECT/STOMP,
SUBSCRIBE, UNSUBSCRIBE, DISCONNECT, receipts and heart-beats. ``ack`` is always ``auto``; SEND and
transactions are refused (the socket is push-only).

Failure modes: malformed bytes raise ``StompError`` from ``FrameParser.feed``; every protocol violation
in a well-formed frame makes ``StompSession.handle`` return an ERROR frame and set ``closing`` (STOMP
requires the server to close the connection after an ERROR). An ERROR follows the HTTP error envelope's
language rule (``api.errors``, platform-spec §8): its ``message`` header is the Chinese text, the same for
every client; its ``localMessage`` header and its body are in the session's language (CONNECT's
``X-Fleet-Language``; zh-CN before a CONNECT names one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from api.errors import (
    DEFAULT_LANGUAGE,
    LANGUAGE_HEADER,
    bilingual,
    chinese_text,
    localise,
    match_language,
    split_bilingual,
)

VERSION = "1.2"
SERVER_NAME = "fleetwatch/1"
MAX_FRAME_BYTES = 64 * 1024
MAX_HEADERS = 64

# CONNECT and CONNECTED headers are never escaped (STOMP 1.2, "Value Encoding").
_UNESCAPED_COMMANDS = frozenset({"CONNECT", "CONNECTED"})
_ESCAPES = {"\\": "\\\\", "\n": "\\n", ":": "\\c", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "n": "\n", "c": ":", "r": "\r"}
_ESCAPE_RE = re.compile(r"\\(.?)", re.DOTALL)
_COMMAND_RE = re.compile(r"[A-Z]+")
_DESTINATION_RE = re.compile(r"/user/([0-9]+)/(message|positions)")

# Destination kinds, also the kinds of console.events.v1 routing.
KIND_MESSAGE = "message"
KIND_POSITIONS = "positions"


class StompError(ValueError):
    """Bytes that are not a STOMP 1.2 frame (or exceed the size limits)."""


class AuthenticationFailed(Exception):
    """Raised by a session's authenticate callable; its message is sent in the ERROR frame."""


class PrincipalLike(Protocol):
    @property
    def enterprise_id(self) -> int: ...


@dataclass
class Frame:
    command: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def escape_header(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def unescape_header(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        try:
            return _UNESCAPES[match.group(1)]
        except KeyError:
            raise StompError(f"undefined escape sequence {match.group(0)!r} in header") from None

    return _ESCAPE_RE.sub(one, text)


def serialize(frame: Frame) -> bytes:
    """The frame's wire bytes. A body gets a ``content-length`` header unless one is given."""
    escape = frame.command not in _UNESCAPED_COMMANDS
    lines = [frame.command]
    headers = dict(frame.headers)
    if frame.body and "content-length" not in headers:
        headers["content-length"] = str(len(frame.body))
    for name, value in headers.items():
        lines.append(f"{escape_header(name)}:{escape_header(value)}" if escape else f"{name}:{value}")
    return ("\n".join(lines) + "\n\n").encode() + frame.body + b"\x00"


class FrameParser:
    """Incremental de-framer: ``feed`` any split of the stream, get the complete frames back.

    EOLs between frames are heart-beats; they are counted in ``heartbeats`` and never yield a frame.
    Repeated headers keep their first value (STOMP 1.2). Raises ``StompError`` on a malformed frame
    or one larger than ``max_frame_bytes``; the parser is unusable afterwards (close the connection).
    """

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.max_frame_bytes = max_frame_bytes
        self.heartbeats = 0
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        frames: list[Frame] = []
        while True:
            self._skip_heartbeats()
            frame = self._take_frame()
            if frame is None:
                return frames
            frames.append(frame)

    def _skip_heartbeats(self) -> None:
        buf = self._buf
        start = 0
        while start < len(buf):
            if buf[start] == 0x0A:
                start += 1
            elif buf[start] == 0x0D and start + 1 < len(buf) and buf[start + 1] == 0x0A:
                start += 2
            else:
                break
            self.heartbeats += 1
        del buf[:start]

    def _take_frame(self) -> Frame | None:
        buf = self._buf
        if not buf or (len(buf) == 1 and buf[0] == 0x0D):
            return None
        lines: list[bytes] = []
        pos = 0
        while True:  # command and header lines up to the blank line
            eol = buf.find(b"\n", pos)
            if eol < 0:
                self._check_size(len(buf))
                return None
            line = bytes(buf[pos:eol])
            pos = eol + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                break
            lines.append(line)
            if len(lines) > MAX_HEADERS + 1:
                raise StompError(f"more than {MAX_HEADERS} headers")
        if not lines:  # pragma: no cover - heart-beats were skipped, so a frame starts non-empty
            raise StompError("empty frame")
        command, headers = _parse_head(lines)
        body_end = self._body_end(headers, pos)
        if body_end is None:
            return None
        frame = Frame(command, headers, bytes(buf[pos:body_end]))
        del buf[: body_end + 1]
        return frame

    def _body_end(self, headers: dict[str, str], start: int) -> int | None:
        """Index of the frame's NUL, or None while incomplete."""
        buf = self._buf
        length_text = headers.get("content-length")
        if length_text is None:
            nul = buf.find(b"\x00", start)
            if nul < 0:
                self._check_size(len(buf))
                return None
            return nul
        if not length_text.isdigit():
            raise StompError(f"invalid content-length {length_text!r}")
        end = start + int(length_text)
        self._check_size(end + 1)
        if len(buf) <= end:
            return None
        if buf[end] != 0:
            raise StompError("frame body is not terminated by NUL after content-length octets")
        return end

    def _check_size(self, size: int) -> None:
        if size > self.max_frame_bytes:
            raise StompError(f"frame larger than {self.max_frame_bytes} bytes")


def _parse_head(lines: list[bytes]) -> tuple[str, dict[str, str]]:
    try:
        texts = [line.decode("utf-8") for line in lines]
    except UnicodeDecodeError:
        raise StompError("frame command or headers are not UTF-8") from None
    command = texts[0]
    if not _COMMAND_RE.fullmatch(command):
        raise StompError(f"invalid command {command[:40]!r}")
    unescape = command not in _UNESCAPED_COMMANDS
    headers: dict[str, str] = {}
    for text in texts[1:]:
        name, colon, value = text.partition(":")
        if not colon:
            raise StompError(f"header line without ':' {text[:40]!r}")
        if unescape:
            name, value = unescape_header(name), unescape_header(value)
        headers.setdefault(name, value)
    return command, headers


def parse_heartbeat(value: str | None) -> tuple[int, int]:
    """``"cx,cy"`` in milliseconds; absent means ``0,0``. Raises StompError when malformed."""
    if value is None:
        return 0, 0
    parts = value.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise StompError(f"invalid heart-beat header {value!r}")
    return int(parts[0]), int(parts[1])


def negotiate_heartbeat(client: tuple[int, int], server: tuple[int, int]) -> tuple[int, int]:
    """(server sends every, server expects from the client every), in ms; 0 means never.

    ``client`` is the CONNECT header (cx: client can send, cy: client wants to receive); ``server``
    is what this server offers (sx: can send, sy: wants to receive). STOMP 1.2: each direction is
    the larger of the two values, or 0 when either side says 0.
    """
    cx, cy = client
    sx, sy = server
    send_ms = 0 if sx == 0 or cy == 0 else max(sx, cy)
    expect_ms = 0 if cx == 0 or sy == 0 else max(cx, sy)
    return send_ms, expect_ms


BASIC_PREFIX = "Basic "


def bearer_token(headers: dict[str, str], query_token: str | None = None) -> str | None:
    """The credentials of a CONNECT frame: ``Authorization: Bearer``'s token, then ``passcode``, then
    ``login``, then the WebSocket URL's ``access_token`` query parameter; None when there is none.

    ``Authorization: Basic <base64 userName:password>`` is returned whole (``"Basic ..."``): the
    session's ``authenticate`` accepts it under authorization protocol 1 (console-spec §7) and
    refuses it otherwise. Raises AuthenticationFailed for an Authorization header of another scheme.
    """
    auth = headers.get("Authorization") or headers.get("authorization")
    if auth:
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() == "basic" and token.strip():
            return BASIC_PREFIX + token.strip()
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthenticationFailed("Authorization 头必须是 Bearer 访问令牌或 Basic 凭证 (the Authorization header "
                                       "must be 'Bearer <access token>' or 'Basic <credentials>')")
        return token.strip()
    return headers.get("passcode") or headers.get("login") or query_token or None


def _prefixed(chinese: str, english: str, reason: str) -> str:
    """``"认证失败：<reason's Chinese> (authentication failed: <reason's English>)"``; a reason that is not
    bilingual (a library's words) goes whole into the English part."""
    parts = split_bilingual(reason)
    if parts is None:
        return f"{chinese} ({english}: {reason})"
    return f"{chinese}：{parts[0]} ({english}: {parts[1]})"


@dataclass(frozen=True)
class Subscription:
    id: str
    destination: str
    kind: str  # KIND_MESSAGE or KIND_POSITIONS


class StompSession:
    """One client's STOMP state: AWAIT_CONNECT -> CONNECTED -> closing.

    ``authenticate(token)`` returns a principal with ``enterprise_id`` or raises
    ``AuthenticationFailed``; ``reverify()`` calls it again with the CONNECT's token (expired or
    revoked since: ERROR). ``admit(principal)`` (optional) returns why an authenticated client
    may not connect (e.g. a cap on sessions per user), or None; ``admitted`` tells whether it let
    this session in. A client may subscribe only ``/user/{own enterpriseId}/message`` and
    ``/user/{own enterpriseId}/positions``; anything else is an ERROR ("forbidden destination") and
    the connection closes, because STOMP has no per-frame refusal other than ERROR.
    """

    def __init__(
        self,
        authenticate: Callable[[str], PrincipalLike],
        *,
        server_heartbeat: tuple[int, int] = (10000, 10000),
        query_token: str | None = None,
        admit: Callable[[Any], str | None] | None = None,
    ) -> None:
        self._authenticate = authenticate
        self._admit = admit
        self._token: str | None = None
        self._server_heartbeat = server_heartbeat
        self._query_token = query_token
        self.principal: Any = None
        self.connected = False
        self.admitted = False
        self.closing = False
        self.heartbeat = (0, 0)  # (send_ms, expect_ms) once connected
        self.subscriptions: dict[str, Subscription] = {}
        self._message_seq = 0
        self.language = DEFAULT_LANGUAGE  # of the pushes' texts: CONNECT's X-Fleet-Language header

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(sub.kind for sub in self.subscriptions.values())

    def handle(self, frame: Frame) -> list[Frame]:
        """Replies to one client frame (possibly none)."""
        if self.closing:
            return []
        if not self.connected:
            if frame.command in ("CONNECT", "STOMP"):
                return self._connect(frame)
            return self.error(f"请先发送 CONNECT 帧 (expected CONNECT, got {frame.command})", frame)
        handler = {
            "SUBSCRIBE": self._subscribe,
            "UNSUBSCRIBE": self._unsubscribe,
            "DISCONNECT": self._disconnect,
        }.get(frame.command)
        if handler is None:
            if frame.command in ("CONNECT", "STOMP"):
                return self.error("连接已建立，不能重复连接 (already connected)", frame)
            return self.error(f"推送连接只下发消息，不支持 {frame.command} ({frame.command} is not supported: "
                              "this socket only pushes)", frame)
        return handler(frame)

    def error(self, message: str, frame: Frame | None = None, detail: str = "") -> list[Frame]:
        """An ERROR frame for ``message`` (bilingual, ``"中文 (english)"``); the session is closing afterwards.

        As the error envelope: header ``message`` is the Chinese part, header ``localMessage`` the text in the
        session's language; the body is ``localMessage``, then ``detail`` (a protocol diagnostic such as the
        parser's, kept as written) on its own line."""
        self.closing = True
        text = bilingual(message, 400)
        local = localise(text, self.language)
        headers = {"message": chinese_text(text), "localMessage": local, "content-type": "text/plain;charset=utf-8"}
        if frame is not None and "receipt" in frame.headers:
            headers["receipt-id"] = frame.headers["receipt"]
        return [Frame("ERROR", headers, (f"{local}\n{detail}" if detail else local).encode())]

    def message_frames(self, kind: str, body: bytes) -> list[Frame]:
        """MESSAGE frames carrying ``body`` (JSON) to every subscription of ``kind``."""
        frames = []
        for sub in self.subscriptions.values():
            if sub.kind != kind:
                continue
            self._message_seq += 1
            headers = {
                "destination": sub.destination,
                "subscription": sub.id,
                "message-id": str(self._message_seq),
                "content-type": "application/json",
            }
            frames.append(Frame("MESSAGE", headers, body))
        return frames

    def _connect(self, frame: Frame) -> list[Frame]:
        # The language first: a refused CONNECT is answered in it too.
        self.language = match_language(frame.headers.get(LANGUAGE_HEADER, "")) or DEFAULT_LANGUAGE
        versions = frame.headers.get("accept-version", "1.0").split(",")
        if VERSION not in (v.strip() for v in versions):
            reply = self.error(f"仅支持 STOMP {VERSION} (supported protocol versions are {VERSION})", frame)
            reply[0].headers["version"] = VERSION
            return reply
        try:
            client_heartbeat = parse_heartbeat(frame.headers.get("heart-beat"))
        except StompError as exc:
            return self.error("heart-beat 头格式错误 (invalid heart-beat header)", frame, str(exc))
        try:
            token = bearer_token(frame.headers, self._query_token)
            if token is None:
                raise AuthenticationFailed("缺少访问令牌 (missing access token: send 'Authorization: Bearer "
                                           "<access token>' in CONNECT)")
            self.principal = self._authenticate(token)
        except AuthenticationFailed as exc:
            return self.error(_prefixed("认证失败", "authentication failed", str(exc)), frame)
        refusal = self._admit(self.principal) if self._admit is not None else None
        if refusal is not None:
            return self.error(refusal, frame)
        self.admitted = self._admit is not None
        self._token = token
        self.connected = True
        self.heartbeat = negotiate_heartbeat(client_heartbeat, self._server_heartbeat)
        headers = {
            "version": VERSION,
            "heart-beat": f"{self.heartbeat[0]},{self.heartbeat[1]}",
            "server": SERVER_NAME,
            "user-name": str(getattr(self.principal, "user_name", "")),
        }
        return [Frame("CONNECTED", headers)]

    def reverify(self) -> list[Frame]:
        """Checks the CONNECT's token again: [] while it is valid, else an ERROR (closing)."""
        if not self.connected or self.closing or self._token is None:
            return []
        try:
            self._authenticate(self._token)
        except AuthenticationFailed as exc:
            return self.error(_prefixed("会话已结束", "session ended", str(exc)))
        return []

    def _subscribe(self, frame: Frame) -> list[Frame]:
        sub_id = frame.headers.get("id")
        destination = frame.headers.get("destination")
        if not sub_id or not destination:
            return self.error("SUBSCRIBE 缺少 id 或 destination 头 (SUBSCRIBE needs 'id' and 'destination' headers)",
                              frame)
        if sub_id in self.subscriptions:
            return self.error(f"订阅 id {sub_id} 已在使用 (subscription id {sub_id!r} is already in use)", frame)
        if frame.headers.get("ack", "auto") != "auto":
            return self.error("仅支持 ack:auto (only ack:auto is supported)", frame)
        match = _DESTINATION_RE.fullmatch(destination)
        if match is None:
            return self.error(
                "未知的订阅地址 (unknown destination)",
                frame,
                "destinations: /user/{enterpriseId}/message, /user/{enterpriseId}/positions",
            )
        if int(match.group(1)) != int(self.principal.enterprise_id):
            return self.error("无权订阅该地址 (forbidden destination)", frame, f"{destination} is not your enterprise's")
        self.subscriptions[sub_id] = Subscription(sub_id, destination, match.group(2))
        return self._receipt(frame)

    def _unsubscribe(self, frame: Frame) -> list[Frame]:
        sub_id = frame.headers.get("id")
        if not sub_id:
            return self.error("UNSUBSCRIBE 缺少 id 头 (UNSUBSCRIBE needs an 'id' header)", frame)
        self.subscriptions.pop(sub_id, None)  # unknown ids are ignored: unsubscribing is idempotent
        return self._receipt(frame)

    def _disconnect(self, frame: Frame) -> list[Frame]:
        self.closing = True
        self.subscriptions.clear()
        return self._receipt(frame)

    @staticmethod
    def _receipt(frame: Frame) -> list[Frame]:
        receipt = frame.headers.get("receipt")
        return [Frame("RECEIPT", {"receipt-id": receipt})] if receipt is not None else []
