"""Guards of the STOMP socket: allowed origins, caps per address and per user,
and sessions that end when their token stops verifying (expired or revoked)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from api.push import StompConnection
from api.push_guard import ConnectionLimits, origin_allowed, per_user_admission, refuse
from api.push_hub import PushHub
from api.stomp import AuthenticationFailed, Frame, FrameParser, StompSession
from tests.unit.api.test_stomp_fanout import FakeWebSocket, connect, subscribe

# -- Origin -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("origin", "host"), [
    (None, "api.example:8080"),  # non-browser clients send no Origin
    ("http://127.0.0.1:8080", "127.0.0.1:8080"),
    ("https://console.example", "console.example"),
    ("https://console.example", "console.example:443"),
    ("HTTP://API.EXAMPLE:8080", "api.example:8080"),
])
def test_own_origin_or_no_origin_is_allowed_by_default(origin, host):
    assert origin_allowed(origin, host)


@pytest.mark.parametrize(("origin", "host"), [
    ("http://evil.example", "127.0.0.1:8080"),
    ("http://127.0.0.1:9999", "127.0.0.1:8080"),  # another port is another origin
    ("null", "127.0.0.1:8080"),  # sandboxed frames, file:// pages
    ("http://127.0.0.1:8080", None),
    ("ftp://127.0.0.1:8080", "127.0.0.1:8080"),
    ("http://127.0.0.1:notaport", "127.0.0.1:8080"),
])
def test_foreign_origin_is_refused_by_default(origin, host):
    assert not origin_allowed(origin, host)


def test_configured_origins_replace_the_own_origin():
    allowed = ("https://console.example", "http://10.0.0.5:3000")
    assert origin_allowed("https://console.example:443", "api.internal:8080", allowed)
    assert origin_allowed("http://10.0.0.5:3000", "api.internal:8080", allowed)
    assert not origin_allowed("http://api.internal:8080", "api.internal:8080", allowed)


# -- caps ---------------------------------------------------------------------------------------------


def test_limits_refuse_beyond_the_cap_and_free_a_slot_on_close():
    limits = ConnectionLimits(max_per_address=2, max_per_user=1)
    assert limits.open_socket("10.0.0.1") and limits.open_socket("10.0.0.1")
    assert not limits.open_socket("10.0.0.1")
    assert limits.open_socket("10.0.0.2")  # another address has its own budget
    limits.close_socket("10.0.0.1")
    assert limits.open_socket("10.0.0.1")
    assert limits.start_session("u") and not limits.start_session("u")
    limits.end_session("u")
    assert limits.sessions_of("u") == 0 and limits.start_session("u")


def test_zero_means_no_cap():
    limits = ConnectionLimits(0, 0)
    assert all(limits.open_socket("a") for _ in range(1000))
    assert all(limits.start_session("u") for _ in range(1000))


@dataclass(frozen=True)
class Principal:
    user_name: str
    enterprise_id: int


class Tokens:
    """An authenticator whose tokens can be revoked (as verify_access_token does after a password change)."""

    def __init__(self) -> None:
        self.revoked: set[str] = set()
        self.calls = 0

    def __call__(self, token: str) -> Principal:
        self.calls += 1
        if token in self.revoked:
            raise AuthenticationFailed("会话已被撤销 (session revoked)")
        return Principal(token, 3)


def connect_frame(token: str) -> Frame:
    return Frame("CONNECT", {"accept-version": "1.2", "passcode": token})


def test_session_beyond_the_per_user_cap_gets_an_error_naming_the_user():
    limits = ConnectionLimits(0, 1)
    first = StompSession(Tokens(), admit=per_user_admission(limits))
    second = StompSession(Tokens(), admit=per_user_admission(limits))
    assert first.handle(connect_frame("alice"))[0].command == "CONNECTED" and first.admitted
    reply = second.handle(connect_frame("alice"))[0]
    assert reply.command == "ERROR" and "alice" in reply.headers["message"]
    assert second.closing and not second.admitted


def test_reverify_is_silent_while_the_token_holds_and_errs_once_revoked():
    tokens = Tokens()
    session = StompSession(tokens)
    session.handle(connect_frame("alice"))
    assert session.reverify() == []
    tokens.revoked.add("alice")
    reply = session.reverify()
    assert reply[0].command == "ERROR" and reply[0].headers["message"] == "会话已结束：会话已被撤销"
    assert session.closing


def test_reverify_before_connect_checks_nothing():
    tokens = Tokens()
    assert StompSession(tokens).reverify() == []
    assert tokens.calls == 0


def serve(tokens: Tokens, ws: FakeWebSocket, limits: ConnectionLimits, token_check_s: float) -> threading.Thread:
    session = StompSession(tokens, admit=per_user_admission(limits))
    connection = StompConnection(ws, session, PushHub(), token_check_s=token_check_s, limits=limits)
    thread = threading.Thread(target=connection.run, daemon=True)
    thread.start()
    return thread


def test_open_subscription_is_closed_with_an_error_when_its_token_is_revoked():
    tokens, ws, limits = Tokens(), FakeWebSocket(), ConnectionLimits(0, 4)
    thread = serve(tokens, ws, limits, token_check_s=0.05)
    assert connect(ws, "alice").command == "CONNECTED"
    subscribe(ws, "/user/3/message")
    checks = tokens.calls
    ws.closed.wait(0.3)
    assert not ws.closed.is_set() and tokens.calls > checks  # re-verified, still valid: kept open
    tokens.revoked.add("alice")
    frame = ws.next_frame()
    assert frame.command == "ERROR" and frame.headers["message"].startswith("会话已结束")
    thread.join(2)
    assert ws.closed.is_set() and not thread.is_alive()
    assert limits.sessions_of("alice") == 0  # its slot of the per-user cap is free again


def test_closed_connection_gives_its_user_slot_back():
    tokens, limits = Tokens(), ConnectionLimits(0, 1)
    ws = FakeWebSocket()
    thread = serve(tokens, ws, limits, token_check_s=30)
    connect(ws, "bob")
    assert limits.sessions_of("bob") == 1
    ws.client_sends(Frame("DISCONNECT", {}))
    thread.join(2)
    assert limits.sessions_of("bob") == 0


class _Recorder:
    def __init__(self) -> None:
        self.sent: list[str | bytes] = []
        self.closed = False

    def send(self, data: str | bytes) -> None:
        self.sent.append(data)

    def close(self, reason: int | None = None, message: str | None = None) -> None:
        self.closed = True


@pytest.mark.parametrize(("language", "local"), [("zh-HK", "來自 10.0.0.1 的推送連接過多"),
                                                 ("en-US", "too many STOMP sockets from 10.0.0.1")])
def test_a_refused_socket_gets_the_session_errors_shape_in_the_upgrades_language(language, local):
    ws = _Recorder()
    refuse(ws, "来自 10.0.0.1 的推送连接过多 (too many STOMP sockets from 10.0.0.1)", language)
    [frame] = FrameParser().feed(str(ws.sent[0]).encode())
    assert frame.command == "ERROR" and ws.closed
    assert frame.headers["message"] == "来自 10.0.0.1 的推送连接过多"
    assert frame.headers["localMessage"] == frame.body.decode() == local
