"""Just enough HTTP/1.1 and WebSocket (RFC 6455) for the media server: a request head parser, plain
replies, the upgrade handshake and the frame codec. Pure except ``read_request``."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from fleet.browser_headers import STATIC_HEADERS

MAX_HEAD_BYTES = 8192
MAX_BODY_BYTES = 65536
_WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""
    peer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def wants_websocket(self) -> bool:
        return self.headers.get("upgrade", "").lower() == "websocket"

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            raise HttpError(400, "body is not JSON") from None


async def read_request(reader: asyncio.StreamReader, prefix: bytes, timeout_s: float) -> Request:
    """Raises HttpError (400, 413, 408) for a bad, oversize or slow request."""
    buf = bytearray(prefix)
    try:
        async with asyncio.timeout(timeout_s):
            while b"\r\n\r\n" not in buf:
                if len(buf) > MAX_HEAD_BYTES:
                    raise HttpError(431, "request head too large")
                chunk = await reader.read(4096)
                if not chunk:
                    raise HttpError(400, "connection closed before the request head ended")
                buf += chunk
            head, _, rest = bytes(buf).partition(b"\r\n\r\n")
            request = parse_head(head)
            length = int(request.headers.get("content-length", "0") or 0)
            if length > MAX_BODY_BYTES:
                raise HttpError(413, "body too large")
            body = bytearray(rest)
            while len(body) < length:
                chunk = await reader.read(length - len(body))
                if not chunk:
                    raise HttpError(400, "connection closed inside the body")
                body += chunk
            request.body = bytes(body[:length])
            return request
    except TimeoutError:
        raise HttpError(408, "request timeout") from None
    except ValueError:
        raise HttpError(400, "malformed request") from None


def parse_head(head: bytes) -> Request:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise HttpError(400, "malformed request line")
    method, target, _ = parts
    url = urlsplit(target)
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
    return Request(method.upper(), unquote(url.path), query, headers)


REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 413: "Payload Too Large",
           431: "Request Header Fields Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}
# Every reply carries the API's browser security headers; nothing here is a page, so no content at all
# may load from a reply and none may be framed.
SECURITY_HEADERS = {**STATIC_HEADERS, "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[parts.scheme]


def origin_allowed(origin: str | None, host: str | None, allowed: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a browser page of ``origin`` may read a stream or open a socket here. No Origin: yes (not
    a browser's cross-origin request). With ``allowed`` (configured console origins): exactly one of
    them. Without: a page on the media server's own host name (the console the API serves on that name
    and another port; the API builds stream URLs the same way, api/media.py)."""
    if not origin:
        return True
    key = _origin_key(origin)
    if key is None:
        return False
    if allowed:
        return any(key == _origin_key(a) for a in allowed)
    try:
        own = urlsplit(f"http://{(host or '').strip()}").hostname
    except ValueError:
        return False
    return own is not None and own.lower() == key[1]


def cors_headers(origin: str | None) -> dict[str, str]:
    """CORS for an allowed ``origin`` (never ``*``): that origin only."""
    if not origin:
        return {}
    return {"Access-Control-Allow-Origin": origin, "Vary": "Origin", "Access-Control-Allow-Methods": "GET, OPTIONS",
            "Access-Control-Allow-Headers": "Content-Type", "Access-Control-Max-Age": "600"}


def response_head(status: int, headers: dict[str, str]) -> bytes:
    """A reply head with ``headers`` and the security headers."""
    merged = {**SECURITY_HEADERS, **headers}
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"] + [f"{k}: {v}" for k, v in merged.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> bytes:
    body = json.dumps(data, ensure_ascii=False).encode()
    return response_head(status, {"Content-Type": "application/json; charset=utf-8", "Content-Length": str(len(body)),
                                  "Connection": "close", "Cache-Control": "no-store", **(headers or {})}) + body


def websocket_accept(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode() + _WS_GUID).digest()).decode()


def websocket_handshake(request: Request) -> bytes:
    key = request.headers.get("sec-websocket-key", "")
    if not key or request.headers.get("sec-websocket-version") != "13":
        raise HttpError(400, "not a WebSocket 13 handshake")
    headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": websocket_accept(key)}
    protocols = request.headers.get("sec-websocket-protocol")
    if protocols:
        headers["Sec-WebSocket-Protocol"] = protocols.split(",")[0].strip()
    return response_head(101, headers).replace(b"101 Status", b"101 Switching Protocols")


OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


def ws_frame(payload: bytes, opcode: int = OP_BINARY) -> bytes:
    """A server frame (FIN, unmasked)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 127)) + n.to_bytes(8, "big")
    return head + payload


def ws_client_frame(payload: bytes, opcode: int = OP_BINARY, mask: bytes = b"\x11\x22\x33\x44") -> bytes:
    """A client frame (FIN, masked): for tests, benchmarks and the simulator's tools."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + mask + _unmask(payload, mask)


def _unmask(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    key = int.from_bytes((mask * (len(data) // 4 + 1))[:len(data)], "big")
    return (int.from_bytes(data, "big") ^ key).to_bytes(len(data), "big")


class WsReader:
    """Incremental frame parser: ``feed(bytes)`` -> [(opcode, payload)] of whole messages (continuations
    joined). Raises HttpError(1009-ish as 413) for a message over ``max_message``."""

    def __init__(self, max_message: int = 65536, require_mask: bool = True) -> None:
        self._buf = bytearray()
        self._parts: list[bytes] = []
        self._opcode = 0
        self.max_message = max_message
        self.require_mask = require_mask

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        buf = self._buf
        buf += data
        out = []
        while len(buf) >= 2:
            fin, opcode = buf[0] & 0x80, buf[0] & 0x0F
            masked, n = buf[1] & 0x80, buf[1] & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if n > self.max_message:
                raise HttpError(413, "WebSocket message too large")
            if self.require_mask and not masked:
                raise HttpError(400, "client frames must be masked")
            mask = bytes(buf[at:at + 4]) if masked else b""
            at += 4 if masked else 0
            if len(buf) < at + n:
                break
            payload = bytes(buf[at:at + n])
            if masked:
                payload = _unmask(payload, mask)
            del buf[:at + n]
            if opcode >= 8:
                out.append((opcode, payload))
                continue
            if opcode != OP_CONT:
                self._opcode, self._parts = opcode, []
            self._parts.append(payload)
            if sum(len(p) for p in self._parts) > self.max_message:
                raise HttpError(413, "WebSocket message too large")
            if fin:
                out.append((self._opcode, b"".join(self._parts)))
                self._parts = []
        return out
