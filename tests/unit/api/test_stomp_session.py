"""The STOMP session state machine: CONNECT authentication, subscription authorisation, receipts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from api.stomp import AuthenticationFailed, Frame, StompSession


@dataclass(frozen=True)
class FakePrincipal:
    user_id: int
    user_name: str
    enterprise_id: int
    enterprise_path: str


TOKENS = {"tok-3": FakePrincipal(7, "alice", 3, "/1/3/")}


def authenticate(token: str) -> FakePrincipal:
    try:
        return TOKENS[token]
    except KeyError:
        raise AuthenticationFailed("token expired or invalid") from None


ENGLISH = {"X-Fleet-Language": "en-US"}


def connect_frame(**headers: str) -> Frame:
    return Frame("CONNECT", {"accept-version": "1.2,1.1,1.0", **headers})


def connected_session(heart_beat: str = "10000,10000") -> StompSession:
    session = StompSession(authenticate)
    [reply] = session.handle(connect_frame(Authorization="Bearer tok-3", **{"heart-beat": heart_beat}))
    assert reply.command == "CONNECTED"
    return session


def subscribe(destination: str, sub_id: str = "sub-0", **headers: str) -> Frame:
    return Frame("SUBSCRIBE", {"id": sub_id, "destination": destination, **headers})


def test_connect_with_bearer_header_answers_connected_1_2_with_negotiated_heartbeat():
    session = StompSession(authenticate, server_heartbeat=(10000, 10000))
    [reply] = session.handle(connect_frame(Authorization="Bearer tok-3", **{"heart-beat": "4000,20000"}))
    assert reply.command == "CONNECTED"
    assert reply.headers["version"] == "1.2"
    assert reply.headers["heart-beat"] == "20000,10000"
    assert reply.headers["user-name"] == "alice"
    assert session.heartbeat == (20000, 10000)
    assert session.principal.enterprise_id == 3


@pytest.mark.parametrize(
    "headers",
    [{"passcode": "tok-3"}, {"login": "tok-3"}, {"login": "alice", "passcode": "tok-3"}],
)
def test_connect_accepts_token_in_passcode_or_login(headers):
    session = StompSession(authenticate)
    assert [f.command for f in session.handle(connect_frame(**headers))] == ["CONNECTED"]


def test_stomp_command_is_accepted_like_connect():
    session = StompSession(authenticate)
    frame = Frame("STOMP", {"accept-version": "1.2", "host": "x", "passcode": "tok-3"})
    assert [f.command for f in session.handle(frame)] == ["CONNECTED"]


def test_connect_falls_back_to_the_websocket_query_token():
    session = StompSession(authenticate, query_token="tok-3")
    assert session.handle(connect_frame())[0].command == "CONNECTED"


def test_bad_token_gets_error_and_closes():
    session = StompSession(authenticate)
    [reply] = session.handle(connect_frame(Authorization="Bearer nope", **ENGLISH))
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "认证失败"  # the Chinese text, for every client
    assert reply.headers["localMessage"] == "authentication failed: token expired or invalid"
    assert session.closing and not session.connected


def test_missing_token_gets_error_naming_the_header():
    [reply] = StompSession(authenticate).handle(connect_frame(**ENGLISH))
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "认证失败：缺少访问令牌"
    assert "missing access token" in reply.headers["localMessage"]
    assert "Authorization: Bearer" in reply.headers["localMessage"]


def test_basic_authorization_reaches_authenticate_whole():
    # authorization protocol 1 (console-spec §7): the authenticate callable decides on Basic
    seen: list[str] = []

    def record(token: str) -> FakePrincipal:
        seen.append(token)
        raise AuthenticationFailed("Basic refused here")

    [reply] = StompSession(record).handle(connect_frame(Authorization="Basic YWxpY2U6cHc=", **ENGLISH))
    assert seen == ["Basic YWxpY2U6cHc="]
    assert reply.command == "ERROR"
    assert reply.headers["localMessage"] == "authentication failed: Basic refused here"


def test_another_authorization_scheme_is_refused_with_a_clear_message():
    [reply] = StompSession(authenticate).handle(connect_frame(Authorization="Digest abc", **ENGLISH))
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "认证失败：Authorization 头必须是 Bearer 访问令牌或 Basic 凭证"
    assert "must be 'Bearer <access token>' or 'Basic <credentials>'" in reply.headers["localMessage"]


def test_rejects_client_without_stomp_1_2():
    session = StompSession(authenticate)
    [reply] = session.handle(Frame("CONNECT", {"accept-version": "1.0,1.1", "passcode": "tok-3"}))
    assert reply.command == "ERROR"
    assert reply.headers["version"] == "1.2"
    assert session.closing


def test_malformed_heartbeat_header_is_an_error():
    [reply] = StompSession(authenticate).handle(connect_frame(passcode="tok-3", **{"heart-beat": "x"}))
    assert reply.command == "ERROR"
    assert "heart-beat" in reply.headers["message"]


def test_frames_before_connect_are_refused():
    session = StompSession(authenticate)
    [reply] = session.handle(subscribe("/user/3/message"))
    assert reply.command == "ERROR"
    # no CONNECT, so no language named yet: the Chinese text in every header and the body
    assert reply.headers["message"] == reply.headers["localMessage"] == "请先发送 CONNECT 帧"
    assert reply.body.decode() == "请先发送 CONNECT 帧"
    assert session.closing


def test_second_connect_is_an_error():
    session = connected_session()
    assert session.handle(connect_frame(passcode="tok-3"))[0].headers["message"] == "连接已建立，不能重复连接"


def test_subscribe_own_enterprise_message_and_positions_with_receipt():
    session = connected_session()
    assert session.handle(subscribe("/user/3/message", "a", receipt="r1")) == [
        Frame("RECEIPT", {"receipt-id": "r1"})
    ]
    assert session.handle(subscribe("/user/3/positions", "b")) == []
    assert session.kinds == {"message", "positions"}


def test_subscribe_other_enterprise_is_forbidden_destination_and_closes():
    session = connected_session()
    [reply] = session.handle(subscribe("/user/1/message", receipt="r1"))  # even the parent's
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "无权订阅该地址"
    assert reply.headers["receipt-id"] == "r1"
    assert session.closing and not session.subscriptions


@pytest.mark.parametrize(
    "destination",
    ["/user/3/other", "/topic/3/message", "/user/3/message/x", "/user/abc/message", "/user//message"],
)
def test_subscribe_unknown_destination_is_an_error(destination):
    [reply] = connected_session().handle(subscribe(destination))
    assert reply.headers["message"] == "未知的订阅地址"


def test_subscribe_needs_id_and_destination():
    [reply] = connected_session().handle(Frame("SUBSCRIBE", {"destination": "/user/3/message"}))
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "SUBSCRIBE 缺少 id 或 destination 头"


def test_duplicate_subscription_id_is_an_error():
    session = connected_session()
    session.handle(subscribe("/user/3/message", "a"))
    assert "已在使用" in session.handle(subscribe("/user/3/positions", "a"))[0].headers["message"]


def test_only_auto_ack_is_supported():
    reply = connected_session().handle(subscribe("/user/3/message", ack="client"))
    assert reply[0].headers["message"] == "仅支持 ack:auto"


def test_unsubscribe_stops_messages_and_sends_receipt():
    session = connected_session()
    session.handle(subscribe("/user/3/message", "a"))
    assert session.handle(Frame("UNSUBSCRIBE", {"id": "a", "receipt": "u"})) == [
        Frame("RECEIPT", {"receipt-id": "u"})
    ]
    assert session.message_frames("message", b"{}") == []
    assert session.handle(Frame("UNSUBSCRIBE", {"id": "never"})) == []  # idempotent


def test_send_is_refused_on_a_push_only_socket():
    [reply] = connected_session().handle(Frame("SEND", {"destination": "/user/3/message"}, b"x"))
    assert reply.command == "ERROR"
    assert reply.headers["message"] == "推送连接只下发消息，不支持 SEND"


def test_disconnect_sends_receipt_then_closes():
    session = connected_session()
    session.handle(subscribe("/user/3/message"))
    assert session.handle(Frame("DISCONNECT", {"receipt": "bye"})) == [
        Frame("RECEIPT", {"receipt-id": "bye"})
    ]
    assert session.closing and not session.subscriptions
    assert session.handle(subscribe("/user/3/message", "z")) == []  # nothing after closing


def test_message_frames_carry_destination_subscription_and_increasing_ids():
    session = connected_session()
    session.handle(subscribe("/user/3/message", "m"))
    session.handle(subscribe("/user/3/positions", "p"))
    [first] = session.message_frames("message", b'{"type":1,"data":{}}')
    [second] = session.message_frames("positions", b'{"type":"positions","data":[]}')
    assert first.command == "MESSAGE"
    assert first.headers == {
        "destination": "/user/3/message",
        "subscription": "m",
        "message-id": "1",
        "content-type": "application/json",
    }
    assert first.body == b'{"type":1,"data":{}}'
    assert (second.headers["subscription"], second.headers["message-id"]) == ("p", "2")


@pytest.mark.parametrize(
    ("language", "local"),
    [
        ("zh-CN", "无权订阅该地址"),
        ("zh-HK", "無權訂閲該地址"),
        ("en-US", "forbidden destination"),
        ("en-GB", "forbidden destination"),
    ],
)
def test_error_frame_is_chinese_in_message_and_the_sessions_language_in_local_message(language, local):
    # platform-spec §8's rule for the error envelope, applied to ERROR frames: message the Chinese text for
    # every client, localMessage (and the body) in CONNECT's X-Fleet-Language
    session = StompSession(authenticate)
    session.handle(connect_frame(passcode="tok-3", **{"X-Fleet-Language": language}))
    [reply] = session.handle(subscribe("/user/1/message"))
    assert reply.headers["message"] == "无权订阅该地址"
    assert reply.headers["localMessage"] == local
    assert reply.body.decode() == f"{local}\n/user/1/message is not your enterprise's"


def test_a_refused_connect_is_answered_in_the_language_it_names():
    [reply] = StompSession(authenticate).handle(
        connect_frame(Authorization="Bearer nope", **{"X-Fleet-Language": "zh-HK"}))
    assert (reply.headers["message"], reply.headers["localMessage"]) == ("认证失败", "認證失敗")


def test_a_bilingual_authentication_reason_keeps_both_parts():
    def refuse(token: str) -> FakePrincipal:
        raise AuthenticationFailed("会话已失效，请重新登录 (session invalid or expired, please sign in again)")

    [reply] = StompSession(refuse).handle(connect_frame(passcode="x", **ENGLISH))
    assert reply.headers["message"] == "认证失败：会话已失效，请重新登录"
    assert reply.headers["localMessage"] == "authentication failed: session invalid or expired, please sign in again"
