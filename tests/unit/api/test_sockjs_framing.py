"""SockJS framing adapter (api/sockjs.py): what a sockjs-client sees on the wire, and what the
STOMP connection behind it reads."""

from __future__ import annotations

import json
import queue
import time

import pytest

from api.sockjs import SockJsSocket, close_frame, decode_client, info, message_frame, valid_ids
from api.stomp import Frame, FrameParser, serialize


class FakeWebSocket:
    def __init__(self, incoming: list[str | bytes] | None = None) -> None:
        self.sent: list[str | bytes] = []
        self.incoming: queue.Queue[str | bytes] = queue.Queue()
        for item in incoming or []:
            self.incoming.put(item)
        self.closed = False

    def send(self, data: str | bytes) -> None:
        if self.closed:
            raise ConnectionError("closed")
        self.sent.append(data)

    def receive(self, timeout: float | None = None) -> str | bytes | None:
        try:
            return self.incoming.get(timeout=timeout if timeout is not None else 1.0)
        except queue.Empty:
            return None

    def close(self, reason: int | None = None, message: str | None = None) -> None:
        self.closed = True


def test_info_says_websocket_only_without_cookie():
    body = info()
    assert body["websocket"] is True
    assert body["cookie_needed"] is False
    assert body["origins"] == ["*:*"]
    assert isinstance(body["entropy"], int) and 0 <= body["entropy"] < 2**32
    assert info(["https://console.example"])["origins"] == ["https://console.example"]


def test_open_frame_then_messages_as_json_arrays():
    ws = FakeWebSocket()
    sock = SockJsSocket(ws, heartbeat_s=0)
    sock.start()
    stomp = serialize(Frame("MESSAGE", {"destination": "/user/3/message"}, '{"t":"车"}'.encode()))
    sock.send(stomp.decode())
    sock.send("\n")
    assert ws.sent[0] == "o"
    [strings] = [json.loads(ws.sent[1][1:])]
    assert ws.sent[1].startswith("a")
    assert FrameParser().feed(strings[0].encode())[0].body == '{"t":"车"}'.encode()
    assert ws.sent[2] == 'a["\\n"]'


def test_client_array_strings_are_joined_into_stomp_bytes():
    connect = serialize(Frame("CONNECT", {"accept-version": "1.2"})).decode()
    half = len(connect) // 2
    ws = FakeWebSocket([json.dumps([connect[:half], connect[half:]]), json.dumps("\n"), "[]"])
    sock = SockJsSocket(ws, heartbeat_s=0)
    assert sock.receive(1.0) == connect
    assert sock.receive(1.0) == "\n"
    assert sock.receive(0.05) is None  # an empty array carries nothing; then the timeout passes


@pytest.mark.parametrize("bad", ["not json", '{"a": 1}', "[1, 2]", '["ok", null]', b"\xff\xfe"])
def test_broken_framing_closes_the_session_with_1002(bad):
    ws = FakeWebSocket([bad])
    sock = SockJsSocket(ws, heartbeat_s=0)
    with pytest.raises(ConnectionError):
        sock.receive(1.0)
    assert ws.sent[-1] == 'c[1002,"Broken framing."]'
    assert ws.closed
    with pytest.raises(ConnectionError):
        sock.receive(0.01)


def test_close_sends_the_close_frame_once_then_closes():
    ws = FakeWebSocket()
    sock = SockJsSocket(ws, heartbeat_s=0)
    sock.close()
    sock.close()
    assert ws.sent == ['c[3000,"Go away!"]']
    assert ws.closed
    other = FakeWebSocket()
    SockJsSocket(other, heartbeat_s=0).close(1000, "Normal closure")
    assert other.sent == ['c[1000,"Normal closure"]']


def test_heartbeat_frames_while_open_and_none_after_close():
    ws = FakeWebSocket()
    sock = SockJsSocket(ws, heartbeat_s=0.02)
    sock.start()
    deadline = time.monotonic() + 2.0
    while ws.sent.count("h") < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ws.sent[0] == "o" and ws.sent.count("h") >= 2
    sock.close()
    sent = len(ws.sent)
    time.sleep(0.1)
    assert len(ws.sent) == sent and ws.sent[-1] == 'c[3000,"Go away!"]'


def test_frame_helpers_and_ids():
    assert message_frame(['a"b']) == 'a["a\\"b"]'
    assert close_frame(3000, "Go away!") == 'c[3000,"Go away!"]'
    assert decode_client("") == []
    assert valid_ids("123", "abcdefgh")
    assert not valid_ids("1.2", "abc") and not valid_ids("123", "") and not valid_ids("1", "a" * 65)
