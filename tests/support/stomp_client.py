"""A synchronous STOMP 1.2 client over a WebSocket for tests (websocket-client + the API's own
frame codec): one socket, frames received in order, explicit timeouts."""

from __future__ import annotations

import json
import time
from typing import Any

import websocket

from api.stomp import Frame, FrameParser, serialize


class StompClient:
    """Opens ``ws://{server}/wss/stomp{query}``; ``options`` go to ``websocket.create_connection``
    (``subprotocols``, ``origin``, ``header``...). Raises on a refused handshake."""

    def __init__(self, server: str, query: str = "", *, timeout: float = 5.0, **options: Any) -> None:
        self.timeout = timeout
        self.ws = websocket.create_connection(f"ws://{server}/wss/stomp{query}", timeout=timeout, **options)
        self.parser = FrameParser()
        self.pending: list[Frame] = []

    def send(self, command: str, **headers: str) -> None:
        self.ws.send(serialize(Frame(command, headers)).decode())

    def receive(self, timeout: float | None = None) -> Frame:
        self.ws.settimeout(self.timeout if timeout is None else timeout)
        while not self.pending:
            data = self.ws.recv()
            if not data:
                raise ConnectionError("socket closed")
            self.pending += self.parser.feed(data.encode() if isinstance(data, str) else data)
        return self.pending.pop(0)

    def connect(self, **headers: str) -> Frame:
        self.send("CONNECT", **{"accept-version": "1.2", "heart-beat": "0,0", **headers})
        return self.receive()

    def connect_bearer(self, token: str) -> Frame:
        return self.connect(Authorization=f"Bearer {token}")

    def subscribe(self, destination: str, sub_id: str = "sub-0") -> None:
        self.send("SUBSCRIBE", id=sub_id, destination=destination, receipt=f"r-{sub_id}")
        frame = self.receive()
        assert (frame.command, frame.headers.get("receipt-id")) == ("RECEIPT", f"r-{sub_id}"), frame

    def closed_within(self, timeout: float) -> bool:
        """True when the server closes the socket within ``timeout`` (frames before that are skipped)."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.ws.settimeout(max(0.01, deadline - time.monotonic()))
                if not self.ws.recv():
                    return True
        except websocket.WebSocketTimeoutException:
            return False
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
            return True
        return False

    def close(self) -> None:
        try:
            self.ws.close(timeout=0.2)
        except Exception:  # already closed by the server
            pass


class SockJsStompClient(StompClient):
    """The same client over SockJS's websocket transport (``/wss/stomp/<server>/<session>/websocket``,
    api/sockjs.py): expects the open frame ``o``, sends STOMP text as one-string JSON arrays and
    unwraps ``a[...]`` frames; ``h`` heart-beats are counted in ``sockjs_heartbeats``, a ``c[code,reason]``
    frame is kept in ``close_frame`` and ends the stream (ConnectionError)."""

    def __init__(self, server: str, query: str = "", *, timeout: float = 5.0, server_id: str = "123",
                 session_id: str = "abcdefgh", **options: Any) -> None:
        self.timeout = timeout
        url = f"ws://{server}/wss/stomp/{server_id}/{session_id}/websocket{query}"
        self.ws = websocket.create_connection(url, timeout=timeout, **options)
        self.parser = FrameParser()
        self.pending: list[Frame] = []
        self.sockjs_heartbeats = 0
        self.close_frame: list[Any] | None = None
        opening = self.ws.recv()
        if opening != "o":
            raise ConnectionError(f"expected the SockJS open frame 'o', got {opening!r}")

    def send(self, command: str, **headers: str) -> None:
        self.send_text(serialize(Frame(command, headers)).decode())

    def send_text(self, text: str) -> None:
        self.ws.send(json.dumps([text]))

    def receive(self, timeout: float | None = None) -> Frame:
        self.ws.settimeout(self.timeout if timeout is None else timeout)
        while not self.pending:
            data = self.ws.recv()
            if not data:
                raise ConnectionError("socket closed")
            text = data.decode() if isinstance(data, bytes) else data
            if text == "h":
                self.sockjs_heartbeats += 1
            elif text.startswith("c"):
                self.close_frame = json.loads(text[1:])
                raise ConnectionError(f"SockJS close frame {text}")
            elif text.startswith("a"):
                for message in json.loads(text[1:]):
                    self.pending += self.parser.feed(message.encode())
            else:
                raise AssertionError(f"not a SockJS frame: {text[:80]!r}")
        return self.pending.pop(0)
