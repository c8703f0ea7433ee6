"""SockJS framing for the console push (console-spec §7 "SockJS/STOMP endpoint /wss/stomp").

A framing adapter only: ``SockJsSocket`` wraps a WebSocket so that ``api.push.StompConnection``, the one
STOMP implementation, serves SockJS clients (sockjs-client, Spring's SockJS) unchanged. SockJS 0.3
protocol, websocket transport only (``GET /wss/stomp/info`` says ``websocket: true``; the other
transports, xhr-streaming, eventsource, iframe..., are not served: 404):

- on open the server sends ``o``; every server message is ``a["..."]`` (a JSON array of strings);
- the client sends a JSON array of strings (or one JSON string); its strings are STOMP bytes;
- ``h`` every ``HEARTBEAT_S`` (25 s) keeps proxies from closing an idle socket;
- closing sends ``c[code,"reason"]`` then closes the WebSocket.

Failure modes: a client message that is not JSON, nor an array of strings, closes the session with
``c[1002,"Broken framing."]`` (SockJS: the server closes a session it cannot decode); ``receive`` then
raises ``ConnectionError``, which ends the connection's reader like a closed socket.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from typing import Any, Protocol

log = logging.getLogger(__name__)

HEARTBEAT_S = 25.0
OPEN_FRAME = "o"
HEARTBEAT_FRAME = "h"
GO_AWAY = (3000, "Go away!")  # SockJS's close of a session the server ends
BROKEN_FRAMING = (1002, "Broken framing.")
# SockJS: server and session ids are any text without a dot (the client draws 3 digits and 8 chars).
_ID = re.compile(r"[^./]{1,64}")


class _WebSocket(Protocol):
    def send(self, data: str | bytes) -> None: ...

    def receive(self, timeout: float | None = None) -> str | bytes | None: ...

    def close(self, reason: int | None = None, message: str | None = None) -> None: ...


def info(origins: list[str] | None = None) -> dict[str, Any]:
    """The body of ``GET <prefix>/info``: websocket only, no sticky-session cookie."""
    return {"websocket": True, "cookie_needed": False, "origins": origins or ["*:*"],
            "entropy": secrets.randbelow(2**32)}


def valid_ids(server: str, session: str) -> bool:
    return bool(_ID.fullmatch(server) and _ID.fullmatch(session))


def message_frame(messages: list[str]) -> str:
    return "a" + json.dumps(messages, ensure_ascii=False, separators=(",", ":"))


def close_frame(code: int, reason: str) -> str:
    return "c" + json.dumps([code, reason], ensure_ascii=False, separators=(",", ":"))


def decode_client(data: str | bytes) -> list[str]:
    """The strings of one client message (``["a","b"]`` or ``"a"``); ValueError when malformed."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    if not text:
        return []
    value = json.loads(text)
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("a SockJS client message is a JSON array of strings")
    return value


class SockJsSocket:
    """A WebSocket speaking SockJS on the wire and plain text to its user (``WebSocketLike``).

    ``start()`` sends the open frame and starts the heart-beat thread (a greenlet under gevent);
    sends are serialised by a lock, since the heart-beat and the connection write from two threads.
    """

    def __init__(self, ws: _WebSocket, heartbeat_s: float = HEARTBEAT_S) -> None:
        self._ws = ws
        self._heartbeat_s = heartbeat_s
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def start(self) -> None:
        self._write(OPEN_FRAME)
        if self._heartbeat_s > 0:
            threading.Thread(target=self._beat, name="sockjs-heartbeat", daemon=True).start()

    def send(self, data: str | bytes) -> None:
        self._write(message_frame([data.decode("utf-8") if isinstance(data, bytes) else data]))

    def receive(self, timeout: float | None = None) -> str | None:
        """The client's next text (its array's strings joined); None when ``timeout`` passes."""
        while True:
            if self._closed.is_set():
                raise ConnectionError("SockJS session closed")
            data = self._ws.receive(timeout)
            if data is None:
                return None
            try:
                messages = decode_client(data)
            except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
                log.info("closing a SockJS session with broken framing: %s", exc)
                self.close(*BROKEN_FRAMING)
                raise ConnectionError("SockJS broken framing") from None
            if messages:
                return "".join(messages)

    def close(self, reason: int | None = None, message: str | None = None) -> None:
        if self._closed.is_set():
            return
        code, text = (reason, message or "") if reason is not None else GO_AWAY
        try:
            self._write(close_frame(code, text))
        except Exception as exc:  # the peer left already
            log.debug("sending the SockJS close frame: %r", exc)
        self._closed.set()
        self._ws.close()

    def _write(self, text: str) -> None:
        with self._lock:
            self._ws.send(text)

    def _beat(self) -> None:
        while not self._closed.wait(self._heartbeat_s):
            try:
                self._write(HEARTBEAT_FRAME)
            except Exception as exc:  # closed under us: the connection's reader ends the session
                log.debug("SockJS heart-beat: %r", exc)
                return
