"""STOMP push end to end: the real app (create_app on the session database, tokens from
/oauth2/token.json) served by a threaded werkzeug server, websocket-client as the browser, and
console.events.v1 records produced to the session's Kafka."""

from __future__ import annotations

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

from api.push import STOMP_SUBPROTOCOLS
from api.stomp import Frame
from fleet.settings import ApiSettings
from fleet.topics import CONSOLE_EVENTS
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
    assert (frame.command, frame.headers["message"]) == ("ERROR", "forbidden destination")
    assert client.closed_within(DELIVERY_S)


def test_bad_token_is_refused_and_closed(server, clients):
    client = StompClient(server)
    clients.append(client)
    frame = client.connect(Authorization="Bearer not-a-token")
    assert frame.command == "ERROR"
    assert frame.headers["message"].startswith("authentication failed")
    assert client.closed_within(DELIVERY_S)


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
    assert all(data["message"] == result["message"] for data in results.values())


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
