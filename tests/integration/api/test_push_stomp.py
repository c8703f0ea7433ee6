"""STOMP push end to end: the real app (create_app on the session database, tokens from
/oauth2/token.json) served by a threaded werkzeug server, websocket-client as the browser, and
console.events.v1 records produced to the session's Kafka; the same over SockJS, and the authorization
protocols 1 / 2 / 3 (Basic on REST and in CONNECT, client credentials on the token call)."""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import websocket
from werkzeug.serving import make_server

from api.basic_auth import UNAUTHORIZED_TEXT
from api.open_platform import hash_secret
from api.push import STOMP_SUBPROTOCOLS
from api.stomp import Frame
from fleet.settings import ApiSettings
from fleet.topics import CONSOLE_EVENTS
from tests.integration.api.conftest import ENGLISH, error_text
from tests.support.stomp_client import SockJsStompClient
from tests.support.stomp_client import StompClient as SharedStompClient
from warehouse.passwords import hash_password

PASSWORD = "push-test-pw-1"
DELIVERY_S = 2.0


@dataclass(frozen=True)
class Enterprise:
    id: int
    path: str
    user_name: str


@pytest.fixture(scope="module")
def enterprises(pg_url: str) -> dict[str, Enterprise]:
    """A root enterprise with two subsidiaries, one user each."""
    from warehouse.db import connect

    suffix = uuid.uuid4().hex[:8]
    password_hash = hash_password(PASSWORD)
    made: dict[str, Enterprise] = {}
    conn = connect(pg_url)
    try:
        with conn.transaction(), conn.cursor() as cur:
            for label, parent in (("root", None), ("sub_a", "root"), ("sub_b", "root")):
                parent_ent = made.get(parent) if parent else None
                cur.execute(
                    "INSERT INTO enterprise (parent_id, name, short_name) VALUES (%s, %s, %s) RETURNING id",
                    (parent_ent.id if parent_ent else None, f"push {label} {suffix}", label),
                )
                row = cur.fetchone()
                assert row is not None
                eid = int(row[0])
                path = f"{parent_ent.path if parent_ent else '/'}{eid}/"
                cur.execute("UPDATE enterprise SET path = %s WHERE id = %s", (path, eid))
                user_name = f"push_{label}_{suffix}"
                cur.execute(
                    "INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES (%s, %s, %s, %s)",
                    (eid, user_name, password_hash, label),
                )
                made[label] = Enterprise(eid, path, user_name)
    finally:
        conn.close()
    return made


@pytest.fixture(scope="module")
def server(
    pg_url: str, kafka_bootstrap: str, enterprises: dict[str, Enterprise], tmp_path_factory: Any
) -> Iterator[str]:
    """Base URL ``127.0.0.1:port`` of the app served by a threaded werkzeug server."""
    from api import create_app

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLEET_KAFKA_BOOTSTRAP", kafka_bootstrap)
        app = create_app(
            ApiSettings(token_secret="push-test-secret"), pg_url, var_dir=tmp_path_factory.mktemp("var")
        )
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, name="push-test-server", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        app.extensions["fleet_push"].close()


@pytest.fixture(scope="module")
def producer(kafka_bootstrap: str) -> Iterator[Any]:
    from kafka import KafkaProducer

    prod = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    yield prod
    prod.close()


def access_token(server: str, user_name: str) -> str:
    reply = requests.get(
        f"http://{server}/oauth2/token.json",
        params={"grant_type": "password", "username": user_name, "password": PASSWORD},
        timeout=10,
    )
    body = reply.json()
    assert body["code"] == 0, body
    return str(body["data"]["access_token"])


class StompClient(SharedStompClient):
    def __init__(self, server: str, query: str = "", **options: Any) -> None:
        super().__init__(server, query, timeout=DELIVERY_S, **options)


@pytest.fixture
def clients() -> Iterator[list[StompClient]]:
    opened: list[StompClient] = []
    yield opened
    for client in opened:
        client.close()


def subscribed(
    server: str, clients: list[StompClient], ent: Enterprise, kind: str = "message"
) -> StompClient:
    client = StompClient(server)
    clients.append(client)
    assert (
        client.connect(Authorization=f"Bearer {access_token(server, ent.user_name)}").command == "CONNECTED"
    )
    client.subscribe(f"/user/{ent.id}/{kind}")
    return client


def produce(producer: Any, ent: Enterprise, value: dict[str, Any]) -> None:
    event = {"enterprise_id": ent.id, "enterprise_path": ent.path, **value}
    producer.send(CONSOLE_EVENTS, key=str(ent.id).encode(), value=json.dumps(event).encode())
    producer.flush()


def push(ent: Enterprise, marker: str) -> dict[str, Any]:
    return {"kind": "push", "push": {"type": 1, "data": {"marker": marker, "online": True}}}


def test_subscriber_receives_its_enterprise_push_within_two_seconds(server, enterprises, producer, clients):
    ent = enterprises["sub_a"]
    client = subscribed(server, clients, ent)
    produce(producer, ent, push(ent, "own"))
    frame = client.receive(DELIVERY_S)
    assert frame.command == "MESSAGE"
    assert frame.headers["destination"] == f"/user/{ent.id}/message"
    assert frame.headers["subscription"] == "sub-0"
    assert frame.headers["content-type"] == "application/json"
    assert json.loads(frame.body) == {"type": 1, "data": {"marker": "own", "online": True}}


def test_parent_receives_subsidiary_event_and_sibling_does_not(server, enterprises, producer, clients):
    root, sub_a, sub_b = (enterprises[k] for k in ("root", "sub_a", "sub_b"))
    root_client = subscribed(server, clients, root)
    a_client = subscribed(server, clients, sub_a)
    b_client = subscribed(server, clients, sub_b)
    produce(producer, sub_b, push(sub_b, "of-b"))
    produce(producer, sub_a, push(sub_a, "of-a"))  # per-key order differs, so compare sets per client
    assert json.loads(b_client.receive().body)["data"]["marker"] == "of-b"
    root_markers = {json.loads(root_client.receive().body)["data"]["marker"] for _ in range(2)}
    assert root_markers == {"of-a", "of-b"}
    # sub_a's first message is its own: sub_b's event (produced first) never reached it
    assert json.loads(a_client.receive().body)["data"]["marker"] == "of-a"
    with pytest.raises(websocket.WebSocketTimeoutException):
        a_client.receive(0.5)


def test_positions_destination_gets_typed_batches(server, enterprises, producer, clients):
    ent = enterprises["sub_b"]
    client = subscribed(server, clients, ent, kind="positions")
    fields, rows = ["carId", "deviceId", "lng", "lat", "speed"], [[6, 5, 116.4, 39.9, 42.0]]
    produce(producer, ent, {"kind": "positions", "fields": fields, "rows": rows})
    frame = client.receive()
    assert frame.headers["destination"] == f"/user/{ent.id}/positions"
    assert json.loads(frame.body) == {"type": "positions", "fields": fields, "rows": rows}


def test_subscribing_another_enterprise_is_refused_and_closed(server, enterprises, clients):
    client = StompClient(server)
    clients.append(client)
    client.connect(passcode=access_token(server, enterprises["sub_a"].user_name))
    client.send("SUBSCRIBE", id="x", destination=f"/user/{enterprises['root'].id}/message")
    frame = client.receive()
    assert (frame.command, frame.headers["message"]) == ("ERROR", "无权订阅该地址")
    assert client.closed_within(DELIVERY_S)


def test_bad_token_is_refused_and_closed(server, clients):
    client = StompClient(server)
    clients.append(client)
    frame = client.connect(Authorization="Bearer not-a-token")
    assert frame.command == "ERROR"
    assert frame.headers["message"].startswith("认证失败")
    assert client.closed_within(DELIVERY_S)


@pytest.mark.parametrize(("language", "local"), [
    ("zh-CN", "无权订阅该地址"), ("zh-HK", "無權訂閲該地址"), ("en-US", "forbidden destination")])
def test_error_frames_carry_the_chinese_message_and_the_sessions_language(server, enterprises, clients,
                                                                           language, local):
    # the error envelope's rule (platform-spec §8) on the push socket: message the Chinese text for every
    # client, localMessage and the body in the language CONNECT names
    client = StompClient(server)
    clients.append(client)
    client.connect(passcode=access_token(server, enterprises["sub_a"].user_name), **{"X-Fleet-Language": language})
    client.send("SUBSCRIBE", id="x", destination=f"/user/{enterprises['root'].id}/message")
    frame = client.receive()
    assert frame.command == "ERROR"
    assert (frame.headers["message"], frame.headers["localMessage"]) == ("无权订阅该地址", local)
    assert frame.body.decode().startswith(local)
    refused = StompClient(server)
    clients.append(refused)
    failed = refused.connect(Authorization="Bearer not-a-token", **{"X-Fleet-Language": language})
    assert failed.headers["message"].startswith("认证失败：")
    assert failed.headers["localMessage"].startswith({"zh-CN": "认证失败：", "zh-HK": "認證失敗：",
                                                      "en-US": "authentication failed: "}[language])


def test_access_token_query_parameter_is_accepted(server, enterprises, clients):
    token = access_token(server, enterprises["root"].user_name)
    client = StompClient(server, f"?access_token={token}")
    clients.append(client)
    assert client.connect().command == "CONNECTED"


def test_disconnect_gets_its_receipt_then_the_socket_closes(server, enterprises, clients):
    client = subscribed(server, clients, enterprises["root"])
    client.send("DISCONNECT", receipt="bye-1")
    frame = client.receive()
    assert frame == Frame("RECEIPT", {"receipt-id": "bye-1"})
    assert client.closed_within(DELIVERY_S)


def test_handshake_selects_the_stomp_subprotocol_a_browser_offers(
    server: str, enterprises: dict[str, Enterprise]
) -> None:
    client = StompClient(server, subprotocols=["v10.stomp", "v11.stomp", "v12.stomp"])
    try:
        # The handshake takes the client's first offer it speaks; the version is settled by CONNECT.
        assert client.ws.getsubprotocol() in STOMP_SUBPROTOCOLS
        token = access_token(server, next(iter(enterprises.values())).user_name)
        connected = client.connect(Authorization=f"Bearer {token}")
        assert connected.command == "CONNECTED", connected
        assert connected.headers["version"] == "1.2"
    finally:
        client.ws.close()


def test_alarm_push_names_the_alarm_in_the_language_sent_in_connect(server, enterprises, producer, clients):
    """Push texts follow the console's language (CONNECT's X-Fleet-Language, as on HTTP): each subscriber
    reads the alarm's name and a command result's message in its own language."""
    ent = enterprises["sub_a"]
    readers = {}
    for language in ("zh-CN", "zh-HK", "en-US"):
        client = StompClient(server)
        clients.append(client)
        token = access_token(server, ent.user_name)
        assert client.connect(Authorization=f"Bearer {token}", **{"X-Fleet-Language": language}).command == "CONNECTED"
        client.subscribe(f"/user/{ent.id}/message")
        readers[language] = client
    alarm = {"alarmId": 1, "key": "adas_1", "level": 1, "type": 5, "desc": "一级 前向碰撞报警"}
    produce(producer, ent, {"kind": "push", "push": {"type": 13, "data": alarm}})
    result = {"commandId": 7, "message": "终端不支持该指令 (the terminal does not support this command)"}
    produce(producer, ent, {"kind": "push", "push": {"type": 12, "data": result}})
    names = {language: json.loads(client.receive(DELIVERY_S).body)["data"]["desc"] for language, client in readers.items()}
    assert names == {"zh-CN": "一级 前向碰撞报警", "zh-HK": "一級 前向碰撞報警",
                     "en-US": "Level 1 Forward collision warning"}
    results = {language: json.loads(client.receive(DELIVERY_S).body)["data"] for language, client in readers.items()}
    assert results["en-US"]["localMessage"] == "the terminal does not support this command"
    assert results["zh-HK"]["localMessage"] == "終端不支援該指令"
    assert results["zh-CN"]["localMessage"] == "终端不支持该指令"
    # as the error envelope: the Chinese text for every subscriber, no English suffix
    assert all(data["message"] == "终端不支持该指令" for data in results.values())


@pytest.fixture(scope="module")
def colleague(pg_url: str, enterprises: dict[str, Enterprise]) -> tuple[int, Enterprise, int]:
    """A second user of sub_a: (sub_a's first user id, sub_a as the colleague signs in, colleague id)."""
    from warehouse.db import connect

    ent = enterprises["sub_a"]
    name = f"{ent.user_name}_colleague"
    conn = connect(pg_url)
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES (%s, %s, %s, %s)"
                        " RETURNING id", (ent.id, name, hash_password(PASSWORD), "colleague"))
            row = cur.fetchone()
            cur.execute("SELECT id FROM app_user WHERE user_name = %s", (ent.user_name,))
            first = cur.fetchone()
    finally:
        conn.close()
    assert row is not None and first is not None
    return int(first[0]), Enterprise(ent.id, ent.path, name), int(row[0])


def test_a_command_result_reaches_its_sender_and_not_another_user_of_the_enterprise(
        server, enterprises, producer, clients, colleague):
    sender_id, colleague_ent, _ = colleague
    sender = subscribed(server, clients, enterprises["sub_a"])
    other = subscribed(server, clients, colleague_ent)
    parent = subscribed(server, clients, enterprises["root"])
    result = {"kind": "push", "user_id": sender_id,
              "push": {"type": 11, "data": {"commandId": 1, "marker": "mine", "createdBy": sender_id}}}
    produce(producer, enterprises["sub_a"], result)
    assert json.loads(sender.receive().body)["data"]["marker"] == "mine"
    for bystander in (other, parent):
        with pytest.raises(websocket.WebSocketTimeoutException):
            bystander.receive(0.5)
    # an unaddressed push (the platform's own command) still reaches every session of the enterprise
    produce(producer, enterprises["sub_a"], push(enterprises["sub_a"], "all"))
    for client in (sender, other, parent):
        assert json.loads(client.receive().body)["data"]["marker"] == "all"


# --- SockJS/STOMP at /wss/stomp and the authorization protocols 1 / 2 / 3 (console-spec §7, platform-spec §9).
# ``server`` above runs protocol 3 (the default).


def basic(user_name: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user_name}:{password}".encode()).decode()


def serve_app(pg_url: str, kafka_bootstrap: str, var_dir: Any, **settings: Any) -> Iterator[str]:
    from api import create_app

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLEET_KAFKA_BOOTSTRAP", kafka_bootstrap)
        app = create_app(ApiSettings(token_secret="sockjs-test-secret", **settings), pg_url, var_dir=var_dir)
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, name="push-test-server-2", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        app.extensions["fleet_push"].close()


@pytest.fixture(scope="module")
def basic_server(pg_url: str, kafka_bootstrap: str, enterprises: dict[str, Enterprise],
                 tmp_path_factory: Any) -> Iterator[str]:
    """Authorization protocol 1: Basic userName:password on REST and in CONNECT."""
    # session_check_ttl_s 0: a revoked credential is refused at once (the default trusts it up to 15 s)
    yield from serve_app(pg_url, kafka_bootstrap, tmp_path_factory.mktemp("var1"), auth_protocol=1,
                         session_check_ttl_s=0.0)


@pytest.fixture(scope="module")
def client_server(pg_url: str, kafka_bootstrap: str, enterprises: dict[str, Enterprise],
                  tmp_path_factory: Any) -> Iterator[str]:
    """Authorization protocol 2: the token call authenticates the client with Basic."""
    yield from serve_app(pg_url, kafka_bootstrap, tmp_path_factory.mktemp("var2"), auth_protocol=2)


@pytest.fixture
def sockets() -> Iterator[list[SockJsStompClient]]:
    opened: list[SockJsStompClient] = []
    yield opened
    for client in opened:
        client.close()


def sockjs(server: str, sockets: list[SockJsStompClient], **options: Any) -> SockJsStompClient:
    client = SockJsStompClient(server, timeout=DELIVERY_S, session_id=uuid.uuid4().hex[:8], **options)
    sockets.append(client)
    return client


def test_info_offers_the_websocket_transport_only(server):
    reply = requests.get(f"http://{server}/wss/stomp/info", timeout=10)
    assert reply.status_code == 200
    body = reply.json()
    assert body["websocket"] is True and body["cookie_needed"] is False
    assert isinstance(body["entropy"], int)
    assert "no-cache" in reply.headers["Cache-Control"]
    # the polling and streaming transports are not served (websocket only, as the info says)
    for transport in ("xhr_streaming", "xhr", "eventsource"):
        assert requests.post(f"http://{server}/wss/stomp/123/abcdefgh/{transport}", timeout=10).status_code == 404
    assert requests.get(f"http://{server}/wss/stomp/123/abcdefgh/eventsource", timeout=10).status_code == 404


def test_sockjs_websocket_delivers_a_pushed_console_event(server, enterprises, producer, sockets):
    ent = enterprises["sub_a"]
    client = sockjs(server, sockets)
    connected = client.connect(Authorization=f"Bearer {access_token(server, ent.user_name)}")
    assert connected.command == "CONNECTED", connected
    client.subscribe(f"/user/{ent.id}/message")
    produce(producer, ent, push(ent, "over sockjs"))
    frame = client.receive(DELIVERY_S)
    assert frame.command == "MESSAGE"
    assert frame.headers["destination"] == f"/user/{ent.id}/message"
    assert json.loads(frame.body) == {"type": 1, "data": {"marker": "over sockjs", "online": True}}
    client.send("DISCONNECT", receipt="bye")
    assert client.receive().headers["receipt-id"] == "bye"
    with pytest.raises(ConnectionError):
        client.receive()
    assert client.close_frame == [3000, "Go away!"]


def test_sockjs_refuses_a_foreign_origin_before_the_upgrade(server, sockets):
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        sockjs(server, sockets, origin="https://evil.example")
    assert refused.value.status_code == 403
    reply = requests.get(f"http://{server}/wss/stomp/info", headers={"Origin": "https://evil.example"},
                         timeout=10)
    assert reply.status_code == 403


def test_sockjs_closes_a_session_without_connect_and_one_with_broken_framing(pg_url, kafka_bootstrap,
                                                                            tmp_path_factory, sockets):
    for server in serve_app(pg_url, kafka_bootstrap, tmp_path_factory.mktemp("var-timeout"),
                        stomp_connect_timeout_s=0.3):
        client = sockjs(server, sockets)
        frame = client.receive(3.0)
        assert frame.command == "ERROR" and frame.headers["message"] == "0.3 秒内未收到 CONNECT 帧"
        with pytest.raises(ConnectionError):
            client.receive(3.0)
        broken = sockjs(server, sockets)
        broken.ws.send("CONNECT not json")
        with pytest.raises(ConnectionError):
            broken.receive(3.0)
        assert broken.close_frame == [1002, "Broken framing."]


def test_sockjs_message_over_the_frame_cap_is_refused_while_it_arrives(server, sockets):
    client = sockjs(server, sockets)
    client.send_text("SEND\n\n" + "x" * 70_000 + "\x00")
    assert client.closed_within(3.0)


def test_basic_connect_is_refused_under_protocol_3(server, enterprises, sockets):
    client = sockjs(server, sockets)
    frame = client.connect(Authorization=basic(enterprises["sub_a"].user_name, PASSWORD),
                           **{"X-Fleet-Language": "en-US"})
    assert frame.command == "ERROR"
    assert frame.headers["message"] == "认证失败：Basic 认证未启用，请使用访问令牌"
    assert "only accepted under authorization protocol 1" in frame.headers["localMessage"]
    reply = requests.get(f"http://{server}/api/user/current.json",
                         headers={"Authorization": basic(enterprises["sub_a"].user_name, PASSWORD)}, timeout=10)
    assert (reply.status_code, reply.json()["code"]) == (401, 40002)
    bearer = requests.get(f"http://{server}/api/user/current.json", timeout=10, headers={
        "Authorization": f"Bearer {access_token(server, enterprises['sub_a'].user_name)}"})
    assert bearer.json()["data"]["authProtocol"] == 3


def test_basic_connect_under_protocol_1_receives_pushes(basic_server, enterprises, producer, sockets):
    ent = enterprises["sub_b"]
    client = sockjs(basic_server, sockets)
    connected = client.connect(Authorization=basic(ent.user_name, PASSWORD))
    assert connected.command == "CONNECTED", connected
    assert connected.headers["user-name"] == ent.user_name
    client.subscribe(f"/user/{ent.id}/message")
    produce(producer, ent, push(ent, "basic"))
    frame = client.receive(DELIVERY_S)
    assert frame.command == "MESSAGE" and b'"basic"' in frame.body
    wrong = sockjs(basic_server, sockets)
    refused = wrong.connect(Authorization=basic(ent.user_name, "not-the-password"))
    assert refused.command == "ERROR"
    assert UNAUTHORIZED_TEXT in refused.headers["message"]
    # Bearer keeps working beside Basic
    bearer = sockjs(basic_server, sockets)
    assert bearer.connect(Authorization=f"Bearer {access_token(basic_server, ent.user_name)}").command == "CONNECTED"


def test_rest_with_basic_under_protocol_1(basic_server, enterprises):
    ent = enterprises["root"]
    url = f"http://{basic_server}/api/user/current.json"
    for _ in range(2):  # the second call is served from the verified-credentials cache
        reply = requests.get(url, headers={"Authorization": basic(ent.user_name, PASSWORD)}, timeout=10)
        assert reply.status_code == 200, reply.text
        assert reply.json()["code"] == 0 and reply.json()["data"]["userName"] == ent.user_name
        assert reply.json()["data"]["authProtocol"] == 1  # the console learns to send Basic from it
    wrong = requests.get(url, headers={"Authorization": basic(ent.user_name, "wrong-password-1")}, timeout=10)
    assert wrong.status_code == 401
    assert wrong.json()["code"] == 401
    assert wrong.json()["message"].startswith(UNAUTHORIZED_TEXT)
    garbage = requests.get(url, headers={"Authorization": "Basic %%%not-base64"}, timeout=10)
    assert (garbage.status_code, garbage.json()["code"]) == (401, 401)


def test_basic_credentials_stop_working_once_the_password_changes(basic_server, enterprises, pg_url):
    from warehouse.db import connect
    from warehouse.passwords import hash_password

    ent = enterprises["sub_a"]
    url = f"http://{basic_server}/api/user/current.json"
    header = {"Authorization": basic(ent.user_name, PASSWORD)}
    assert requests.get(url, headers=header, timeout=10).status_code == 200
    conn = connect(pg_url)
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("UPDATE app_user SET password_hash = %s WHERE user_name = %s",
                        (hash_password("a-new-password-2"), ent.user_name))
        changed = requests.get(url, headers=header, timeout=10)
        fresh = requests.get(url, headers={"Authorization": basic(ent.user_name, "a-new-password-2")}, timeout=10)
    finally:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("UPDATE app_user SET password_hash = %s WHERE user_name = %s",
                        (hash_password(PASSWORD), ent.user_name))
        conn.close()
    # the session epoch moved (0004 trigger): the cached credential is checked again and refused
    assert changed.status_code == 401
    assert fresh.status_code == 200


def test_token_call_under_protocol_2_needs_client_credentials(client_server, enterprises, pg_url):
    from warehouse.db import connect

    ent = enterprises["root"]
    key, secret = f"fwsockjs{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    conn = connect(pg_url)
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("INSERT INTO open_app (enterprise_id, name, app_key, secret_hash) VALUES (%s, %s, %s, %s)",
                        (ent.id, "console client", key, hash_secret(secret)))
    finally:
        conn.close()
    params = {"grant_type": "password", "username": ent.user_name, "password": PASSWORD}
    url = f"http://{client_server}/oauth2/token.json"
    without = requests.get(url, params=params, headers=ENGLISH, timeout=10)
    assert (without.status_code, without.json()["code"]) == (401, 401)
    assert without.json()["message"] == "缺少客户端凭证"
    assert "client_id:client_secret" in error_text(without, "en-US")
    wrong = requests.get(url, params=params, auth=(key, "wrong-secret"), timeout=10)
    assert wrong.status_code == 401
    granted = requests.get(url, params=params, auth=(key, secret), timeout=10)
    assert granted.json()["code"] == 0, granted.text
    token = granted.json()["data"]["access_token"]
    me = requests.get(f"http://{client_server}/api/user/current.json",
                      headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert me.json()["data"]["userName"] == ent.user_name
    assert me.json()["data"]["authProtocol"] == 2
    # the user's own password as Basic is protocol 1's, not 2's
    as_basic = requests.get(f"http://{client_server}/api/user/current.json",
                            headers={"Authorization": basic(ent.user_name, PASSWORD)}, timeout=10)
    assert (as_basic.status_code, as_basic.json()["code"]) == (401, 40002)


def test_wrong_basic_passwords_count_toward_the_sign_in_throttle(basic_server, enterprises, pg_url):
    from warehouse.db import connect

    user_name = f"push_basic_throttle_{uuid.uuid4().hex[:8]}"
    conn = connect(pg_url)
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES (%s, %s, %s, %s)",
                        (enterprises["root"].id, user_name, hash_password(PASSWORD), "throttle"))
    finally:
        conn.close()
    url = f"http://{basic_server}/api/user/current.json"
    codes = [requests.get(url, headers={"Authorization": basic(user_name, f"wrong-{n}")}, timeout=10).status_code
             for n in range(ApiSettings().login_max_failures + 1)]
    assert codes[0] == 401 and codes[-1] == 429, codes
    # the right password is refused too while the account backs off from this address
    blocked = requests.get(url, headers={"Authorization": basic(user_name, PASSWORD)}, timeout=10)
    assert blocked.status_code == 429
