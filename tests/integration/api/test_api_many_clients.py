"""The API as `fleet up` runs it (``python -m api``, gunicorn) under many and hostile clients
(the STOMP frame limit, STOMP sessions ending, the WebSocket Origin check): REST keeps
answering while sockets and slow clients are open, STOMP caps and deadlines hold, pushes from
Kafka still arrive."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import websocket

from fleet.topics import CONSOLE_EVENTS
from tests.e2e.support import ApiProcess
from tests.integration.api.conftest import Demo
from tests.support.stomp_client import StompClient
from warehouse.seed import DEMO_PASSWORD

PROBE_TIMEOUT_S = 2.0  # a health probe slower than this counts as the API being down


def start_api(env: dict[str, str], port: int, log: Path, **settings: str) -> ApiProcess:
    api = ApiProcess({**env, **{f"FLEET_API_{k.upper()}": v for k, v in settings.items()}}, port, log)
    api.start()
    return api


@pytest.fixture(scope="module")
def roomy(stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """The API with its default settings."""
    api = start_api(stack_env, free_port(), tmp_path_factory.mktemp("roomy") / "api.log")
    yield api
    api.stop()


@pytest.fixture(scope="module")
def tight(stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """The API with small caps and short deadlines, so the tests see them act."""
    api = start_api(stack_env, free_port(), tmp_path_factory.mktemp("tight") / "api.log",
                    stomp_max_per_user="2", stomp_max_per_address="4", stomp_connect_timeout_s="1",
                    access_token_ttl_s="4", stomp_token_check_s="1", header_timeout_s="2",
                    max_connections_per_address="12")
    yield api
    api.stop()


def token(api: ApiProcess, user: str = "admin_a") -> str:
    reply = requests.get(f"{api.base_url}/oauth2/token.json", timeout=10, params={
        "grant_type": "password", "username": user, "password": DEMO_PASSWORD}).json()
    assert reply["code"] == 0, reply
    return str(reply["data"]["access_token"])


def health_ms(api: ApiProcess) -> float:
    """Time of one /api/health.json; fails the test when it takes longer than PROBE_TIMEOUT_S."""
    started = time.monotonic()
    reply = requests.get(f"{api.base_url}/api/health.json", timeout=PROBE_TIMEOUT_S)
    assert reply.status_code == 200, reply.text
    return (time.monotonic() - started) * 1000


class Stomp(StompClient):
    def __init__(self, api: ApiProcess, **options: Any) -> None:
        super().__init__(f"127.0.0.1:{api.port}", **options)


def enterprise_of(pg_url: str, user: str) -> tuple[int, str]:
    from warehouse.db import connect

    with connect(pg_url) as conn:
        row = conn.execute("SELECT e.id, e.path FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id"
                           " WHERE u.user_name = %s", (user,)).fetchone()
    assert row is not None
    return int(row[0]), str(row[1])


# -- many clients (§2) ------------------------------------------------------------------------------


def test_health_answers_while_100_stomp_sockets_wait_for_connect(roomy: ApiProcess) -> None:
    sockets = [Stomp(roomy) for _ in range(100)]
    try:
        probes = [health_ms(roomy) for _ in range(10)]
    finally:
        for s in sockets:
            s.close()
    assert max(probes) < PROBE_TIMEOUT_S * 1000


def test_health_answers_while_60_clients_send_a_header_byte_per_second(roomy: ApiProcess) -> None:
    slow = [socket.create_connection(("127.0.0.1", roomy.port)) for _ in range(60)]
    try:
        for s in slow:
            s.sendall(b"GET /api/health.json HTTP/1.1\r\nX-Slow: ")
        probes = []
        for _ in range(4):
            for s in slow:
                try:
                    s.sendall(b"a")
                except OSError:
                    pass  # cut off already: that is fine
            probes.append(health_ms(roomy))
            time.sleep(0.5)
    finally:
        for s in slow:
            s.close()
    assert max(probes) < PROBE_TIMEOUT_S * 1000


def test_a_client_sending_its_headers_slowly_is_cut_off_at_the_header_deadline(tight: ApiProcess) -> None:
    slow = socket.create_connection(("127.0.0.1", tight.port))
    slow.settimeout(0.5)
    started = time.monotonic()
    slow.sendall(b"GET /api/health.json HTTP/1.1\r\n")
    closed_after = None
    try:
        while time.monotonic() - started < 8:  # the deadline is 2 s; a byte a second keeps it busy
            try:
                slow.sendall(b"X")
                if slow.recv(1024) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
    finally:
        slow.close()
    assert closed_after is not None and closed_after < 5


def test_connections_beyond_the_per_address_cap_are_refused_with_503(tight: ApiProcess) -> None:
    held = [socket.create_connection(("127.0.0.1", tight.port)) for _ in range(12)]
    try:
        time.sleep(0.3)  # let the server accept them all
        reply = requests.get(f"{tight.base_url}/api/health.json", timeout=PROBE_TIMEOUT_S)
        assert reply.status_code == 503
        assert reply.json()["code"] == 503 and reply.json()["message"] == "来自同一地址（127.0.0.1）的连接过多"
    finally:
        for s in held:
            s.close()
    time.sleep(0.3)
    assert requests.get(f"{tight.base_url}/api/health.json", timeout=PROBE_TIMEOUT_S).status_code == 200


# -- STOMP caps, deadlines and the frame limit (§2, §4) ---------------------------------------------


def test_socket_without_connect_is_closed_at_the_configured_deadline(tight: ApiProcess) -> None:
    client = Stomp(tight)
    try:
        frame = client.receive(timeout=3.0)  # configured: 1 s
        assert frame.command == "ERROR" and "未收到 CONNECT 帧" in frame.headers["message"]
        assert client.closed_within(2.0)
    finally:
        client.close()


def test_stomp_sessions_beyond_the_per_user_cap_are_refused(tight: ApiProcess) -> None:
    bearer = token(tight)  # signing in takes a while (argon2): before opening sockets that must CONNECT in 1 s
    clients = [Stomp(tight) for _ in range(3)]
    try:
        for client in clients[:2]:
            connected = client.connect_bearer(bearer)
            assert connected.command == "CONNECTED", connected
        refused = clients[2].connect_bearer(bearer)
        assert refused.command == "ERROR"
        assert "admin_a" in refused.headers["message"] and "2" in refused.headers["message"]
        assert clients[2].closed_within(2.0)
        clients[0].close()  # a slot frees when a session ends
        bearer = token(tight)
        again = Stomp(tight)
        clients.append(again)
        assert again.connect_bearer(bearer).command == "CONNECTED"
    finally:
        for c in clients:
            c.close()


def test_stomp_sockets_beyond_the_per_address_cap_are_refused(tight: ApiProcess) -> None:
    clients = [Stomp(tight) for _ in range(4)]
    try:
        extra = Stomp(tight)
        clients.append(extra)
        frame = extra.receive(timeout=3.0)
        assert frame.command == "ERROR" and "127.0.0.1" in frame.headers["message"]
        assert extra.closed_within(2.0)
    finally:
        for c in clients:
            c.close()


def test_a_websocket_message_over_64_kib_is_refused_before_it_is_complete(tight: ApiProcess) -> None:
    client = Stomp(tight)
    try:
        chunk = "x" * (16 * 1024)
        client.ws.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_TEXT, 0))
        refused = False
        for _ in range(512):  # up to 8 MiB, never finished: the server must not wait for the end
            try:
                client.ws.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_CONT, 0))
            except (OSError, websocket.WebSocketConnectionClosedException):
                refused = True
                break
            client.ws.settimeout(0.01)
            try:
                opcode, data = client.ws.recv_data(control_frame=True)
            except websocket.WebSocketTimeoutException:
                continue
            except (OSError, websocket.WebSocketConnectionClosedException):
                refused = True
                break
            assert opcode == websocket.ABNF.OPCODE_CLOSE
            assert int.from_bytes(data[:2], "big") == 1009  # message too big
            refused = True
            break
        assert refused
    finally:
        client.close()


# -- sessions end when their token does (§5) ------------------------------------------------------


def test_stomp_session_is_closed_with_an_error_when_its_token_expires(tight: ApiProcess, pg_url: str) -> None:
    enterprise_id, _ = enterprise_of(pg_url, "admin_a")
    bearer = token(tight)
    client = Stomp(tight)
    try:
        assert client.connect_bearer(bearer).command == "CONNECTED"  # the token lives 4 s, checked every 1 s
        client.subscribe(f"/user/{enterprise_id}/message")
        frame = client.receive(timeout=8.0)
        assert frame.command == "ERROR"
        assert frame.headers["message"].startswith("会话已结束：")
        assert client.closed_within(2.0)
    finally:
        client.close()


# -- Origin (§7) ------------------------------------------------------------------------------------


def test_websocket_from_a_foreign_origin_gets_403(tight: ApiProcess) -> None:
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        Stomp(tight, origin="http://evil.example")
    assert refused.value.status_code == 403


def test_websocket_from_the_api_origin_or_without_origin_is_accepted(tight: ApiProcess) -> None:
    for options in ({"origin": f"http://127.0.0.1:{tight.port}"}, {"suppress_origin": True}):
        bearer = token(tight, "admin_b")
        client = Stomp(tight, **options)
        try:
            assert client.connect_bearer(bearer).command == "CONNECTED"
        finally:
            client.close()


# -- pushes still flow (the Kafka consumer under the server's worker) -------------------------------


def test_push_from_kafka_reaches_a_subscriber(roomy: ApiProcess, pg_url: str, kafka_bootstrap: str) -> None:
    from kafka import KafkaProducer

    enterprise_id, path = enterprise_of(pg_url, "admin_b")
    client = Stomp(roomy)
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    try:
        assert client.connect_bearer(token(roomy, "admin_b")).command == "CONNECTED"
        client.subscribe(f"/user/{enterprise_id}/message")
        event = {"kind": "push", "enterprise_id": enterprise_id, "enterprise_path": path,
                 "push": {"type": 1, "data": {"marker": "gevent"}}}
        producer.send(CONSOLE_EVENTS, key=str(enterprise_id).encode(), value=json.dumps(event).encode())
        producer.flush()
        frame = client.receive(timeout=5.0)
        assert frame.command == "MESSAGE"
        assert json.loads(frame.body)["data"]["marker"] == "gevent"
    finally:
        producer.close()
        client.close()


# -- stopping (`fleet up` sends SIGTERM and kills after 15 s) -----------------------------------


def test_sigterm_stops_the_api_promptly_with_stomp_sessions_open(
        stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int], tmp_path: Path) -> None:
    api = start_api(stack_env, free_port(), tmp_path / "api.log")
    clients: list[Stomp] = []
    try:
        bearer = token(api)
        for _ in range(3):
            clients.append(Stomp(api))
            assert clients[-1].connect_bearer(bearer).command == "CONNECTED"
        assert api.proc is not None
        api.proc.terminate()
        api.proc.wait(timeout=12)  # raises TimeoutExpired when the sockets hold the shutdown
    finally:
        for c in clients:
            c.close()
        api.stop()
