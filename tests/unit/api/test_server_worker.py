"""The API's gunicorn worker (``api.server``): the master may import it without importing what the
gevent worker must monkey-patch first, and a refused connection gets a 503 envelope."""

from __future__ import annotations

import json
import subprocess
import sys

from api.server import too_many_connections_reply
from fleet.settings import REPO_ROOT


def test_importing_the_worker_class_loads_no_database_web_or_kafka_module() -> None:
    # gunicorn's master imports the worker class; the worker patches at init and only then
    # imports api.wsgi. Anything imported before the patch keeps unpatched sockets and locks.
    probe = ("import sys, api.server; print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "{'psycopg', 'psycopg_pool', 'flask', 'flask_sock', 'simple_websocket', 'kafka'} or m == 'api.app'))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_connection_over_the_per_address_cap_gets_a_503_envelope() -> None:
    head, _, body = too_many_connections_reply("10.1.2.3").partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 ")
    assert b"Connection: close" in head and f"Content-Length: {len(body)}".encode() in head
    reply = json.loads(body)
    assert reply["code"] == 503 and reply["data"] is None
    assert reply["message"] == "来自同一地址（10.1.2.3）的连接过多" and "localMessage" not in reply
