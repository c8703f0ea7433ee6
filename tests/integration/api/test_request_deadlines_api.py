"""The API as `fleet up` runs it (``python -m api``, gunicorn's gevent worker) against slow request
bodies and many connections from a few clients: a body has a deadline (408, then the connection
closes), so slow bodies cannot hold every connection of the worker and starve the health check;
once the worker is half full a client gets no more than its busy share; the per-client connection
cap also holds over IPv6, counting the /64.

Slow bodies are sent as form posts to the token endpoint: the app reads a form body before any
route guard (to refuse NUL bytes), so the body is read whoever sends it.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from fleet.settings import REPO_ROOT
from tests.e2e.support import ApiProcess
from tests.integration.api.conftest import Demo

SLOW_FORM_HEAD = (b"POST /oauth2/token.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n")


@pytest.fixture(scope="module")
def deadlines(stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int],
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """A small worker (24 connections, 8 per client) with a 1.5 s body deadline."""
    settings = {"body_timeout_s": "1.5", "worker_connections": "24", "max_connections_per_address": "8",
                "header_timeout_s": "5"}
    api = ApiProcess({**stack_env, **{f"FLEET_API_{k.upper()}": v for k, v in settings.items()}}, free_port(),
                     tmp_path_factory.mktemp("deadlines") / "api.log")
    api.start()
    yield api
    api.stop()


@pytest.fixture(scope="module")
def crowded(stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiProcess]:
    """20 connections per worker, 16 per client, 4 per client once 10 are open."""
    settings = {"worker_connections": "20", "max_connections_per_address": "16",
                "busy_connections_per_address": "4"}
    api = ApiProcess({**stack_env, **{f"FLEET_API_{k.upper()}": v for k, v in settings.items()}}, free_port(),
                     tmp_path_factory.mktemp("crowded") / "api.log")
    api.start()
    yield api
    api.stop()


def slow_body(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    sock.sendall(SLOW_FORM_HEAD + b"grant_type=")
    return sock


def trickle(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        try:
            sock.sendall(b"x")
        except OSError:
            pass  # cut off already


def test_a_body_sent_a_byte_at_a_time_gets_408_and_the_connection_closes_at_the_deadline(
    deadlines: ApiProcess,
) -> None:
    sock = slow_body(deadlines.port)
    sock.settimeout(0.5)
    started = time.monotonic()
    received = b""
    closed_after = None
    try:
        while time.monotonic() - started < 10:
            try:
                sock.sendall(b"x")
            except OSError:
                closed_after = time.monotonic() - started
                break
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                continue
            if not chunk:
                closed_after = time.monotonic() - started
                break
            received += chunk
    finally:
        sock.close()
    assert received.startswith(b"HTTP/1.1 408 "), received[:200]
    assert b'"code":408' in received.replace(b" ", b"") and b"Connection: close" in received
    assert closed_after is not None and closed_after < 6


def test_health_answers_while_slow_bodies_hold_every_connection_of_the_worker(deadlines: ApiProcess) -> None:
    # 3 clients x 8 (each just at its cap) = the worker's 24 connections, all in a body that never ends
    held = [slow_body(deadlines.port, f"127.0.0.{2 + i // 8}") for i in range(24)]
    try:
        time.sleep(0.5)
        trickle(held)
        started = time.monotonic()
        reply = requests.get(f"{deadlines.base_url}/api/health.json", timeout=8)
        waited = time.monotonic() - started
        trickle(held)
    finally:
        for sock in held:
            sock.close()
    assert reply.status_code == 200
    assert waited < 6  # the body deadline (1.5 s) freed connections; nothing else would have


def health_from(port: int, source: str) -> tuple[int, dict[str, Any]]:
    """GET /api/health.json from ``source`` (a loopback address): (status, envelope)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
    try:
        connection.request("GET", "/api/health.json")
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        connection.close()


def test_clients_just_under_the_cap_cannot_fill_the_worker_together(crowded: ApiProcess) -> None:
    held = [socket.create_connection(("127.0.0.1", crowded.port), source_address=("127.0.0.2", 0))
            for _ in range(10)]  # under the cap of 16, and the worker is half full now
    try:
        time.sleep(0.3)
        over = health_from(crowded.port, "127.0.0.2")  # its 11th: over the busy share of 4
        held += [socket.create_connection(("127.0.0.1", crowded.port), source_address=("127.0.0.3", 0))
                 for _ in range(3)]
        time.sleep(0.3)
        small = health_from(crowded.port, "127.0.0.3")  # its 4th: within the share
        other = health_from(crowded.port, "127.0.0.1")  # holds none
    finally:
        for sock in held:
            sock.close()
    assert over[0] == 503 and over[1]["code"] == 503
    assert small[0] == 200 and other[0] == 200


def _health_until(port: int, status: int, timeout_s: float = 10.0) -> requests.Response:
    """GET /api/health.json on [::1] until it answers ``status`` (or ``timeout_s`` passed): the last reply."""
    deadline = time.monotonic() + timeout_s
    while True:
        reply = requests.get(f"http://[::1]:{port}/api/health.json", timeout=5)
        if reply.status_code == status or time.monotonic() > deadline:
            return reply
        time.sleep(0.1)


def test_a_client_over_its_connection_cap_is_refused_over_ipv6(
    stack_env: dict[str, str], demo: Demo, free_port: Callable[[], int], tmp_path: Path
) -> None:
    try:
        probe = socket.socket(socket.AF_INET6)
        probe.bind(("::1", 0))
        probe.close()
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    port = free_port()
    env = {**stack_env, "FLEET_API_HOST": "[::1]", "FLEET_API_PORT": str(port), "FLEET_API_WORKERS": "1",
           "FLEET_API_MAX_CONNECTIONS_PER_ADDRESS": "4", "FLEET_API_TOKEN_SECRET": "ipv6-test-secret"}
    with (tmp_path / "api.log").open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "api"], cwd=REPO_ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"http://[::1]:{port}/api/health.json", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "api.log").read_text()
            time.sleep(0.3)
        held = [socket.create_connection(("::1", port)) for _ in range(4)]
        try:
            # the four count once the server has accepted them (a loaded machine takes longer than a moment)
            refused = _health_until(port, 503)
        finally:
            for sock in held:
                sock.close()
        assert refused.status_code == 503 and refused.json()["message"] == "来自同一地址（::/64）的连接过多"
        assert _health_until(port, 200).status_code == 200  # and stop counting once closed
    finally:
        proc.terminate()
        proc.wait(30)
