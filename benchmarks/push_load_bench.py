"""Push load benchmark: REST latency while 1,000 STOMP subscribers and 50 slow clients
hold the API.

    .venv/bin/python benchmarks/push_load_bench.py [--subscribers 1000] [--slow 50] [--duration 60]
        [--push-rate 1] [--worker-class gevent|gthread] [--slow-body 0] [--addresses 1] [--keep-caps]

Starts a private PostgreSQL and Kafka (fleet.services, temporary directory, free ports), the demo
seed (20 terminals) and the API exactly as ``fleet up`` does (``python -m api``; ``--worker-class
gthread`` gives the shape before the gevent worker: one thread per connection, 32 threads). Caps that would
refuse this one-address load (STOMP sockets and sessions, connections per address) are turned off
through their ``FLEET_API_*`` settings: every client here is 127.0.0.1.

A load process (gevent, websocket-client) opens ``--subscribers`` STOMP sockets (100 at a time),
each CONNECTed with a bearer token of one of the three demo admins and SUBSCRIBEd to its
enterprise's ``positions``, ``--slow`` clients that send one header byte per second and
``--slow-body`` clients that send complete headers of a form ``POST`` to the token endpoint
announcing a 1,000-byte body, then one body byte per second (both reconnect when the server cuts them off, as an attacker would). Slow
clients of either kind are spread over ``--addresses`` loopback source addresses (127.0.0.2 and up;
1: all from 127.0.0.1), and ``--keep-caps`` leaves the per-address connection cap at its default
(the attack of a few hosts, each just under the cap). Once they are up, this process measures ``--duration``
seconds of sequential REST probes, alternating ``GET /api/health.json`` and an authenticated
``POST /api/common/query/carView.json?pageSize=10`` (on one keep-alive session, or each on a new
connection with ``--fresh-connections``, as a load balancer's health check: a held connection
would keep its slot whatever the attackers hold), while ``--push-rate`` position events per
second go to console.events.v1 for vehicles of the two subsidiaries in turn (each reaches the
parent's subscribers and that subsidiary's: two thirds of all).

Traffic only to 127.0.0.1; bounded in count and time (the load process ends itself after the
run). Raises the soft ``ulimit -n`` to the hard limit. Prints a table for docs/performance.md;
never a timed assertion.
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and "--load-child" in sys.argv:  # patch before anything imports socket
    from gevent import monkey

    monkey.patch_all()

import argparse
import json
import os
import resource
import secrets
import signal
import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PROBE_TIMEOUT_S = 10.0
OPEN_BATCH = 100


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# -- the load process (gevent) -------------------------------------------------------------------


def as_bytes(data: str | bytes) -> bytes:
    return data.encode() if isinstance(data, str) else data


def load_child(spec: dict[str, Any]) -> None:
    """Holds the subscribers and slow clients; prints JSON lines: {"up": ...} then {"done": ...}."""
    import socket

    import gevent
    import gevent.event
    import websocket

    from api.stomp import Frame, FrameParser, serialize

    port, stop_at = int(spec["port"]), float(spec["stop_at"])
    stopping = gevent.event.Event()  # SIGTERM from the parent once its probes are done

    def running() -> bool:
        return time.time() < stop_at and not stopping.is_set()

    gevent.signal_handler(signal.SIGTERM, stopping.set)
    counts = {"subscribed": 0, "failed": 0, "messages": 0, "closed_early": 0, "slow_cutoffs": 0, "refused": 0}
    addresses = int(spec.get("addresses", 1))

    def source(i: int) -> tuple[str, int]:
        if addresses <= 1:
            return ("127.0.0.1", 0)
        n = i % addresses + 2
        return (f"127.0.{n // 256}.{n % 256}", 0)
    errors: list[str] = []

    def subscriber(token: str, enterprise_id: int) -> None:
        try:
            ws = websocket.create_connection(f"ws://127.0.0.1:{port}/wss/stomp", timeout=20,
                                             subprotocols=["v12.stomp"])
            parser = FrameParser()
            ws.send(serialize(Frame("CONNECT", {"accept-version": "1.2", "heart-beat": "0,0",
                                                "Authorization": f"Bearer {token}"})).decode())
            ws.send(serialize(Frame("SUBSCRIBE", {"id": "p", "destination": f"/user/{enterprise_id}/positions",
                                                  "receipt": "r"})).decode())
            got: list[str] = []
            while "RECEIPT" not in got:
                frames = parser.feed(as_bytes(ws.recv()))
                got += [f.command for f in frames]
                if "ERROR" in got:
                    raise RuntimeError(f"refused: {frames}")
        except Exception as exc:
            counts["failed"] += 1
            if len(errors) < 5:
                errors.append(repr(exc)[:200])
            return
        counts["subscribed"] += 1
        try:
            ws.settimeout(1.0)
            while running():
                try:
                    data = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                if not data:
                    counts["closed_early"] += 1
                    return
                counts["messages"] += len([f for f in parser.feed(as_bytes(data)) if f.command == "MESSAGE"])
        except Exception:
            counts["closed_early"] += 1
        finally:
            ws.close()

    def slow_client(i: int, body: bool) -> None:
        # A form post to the token endpoint: the app reads a form body before any route guard.
        head = (b"POST /oauth2/token.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=" if body
                else b"GET /api/health.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        while running():
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=source(i))
                sock.sendall(head)
                while running():
                    gevent.sleep(1.0)
                    sock.sendall(b"x" if body else b"a")
                    sock.setblocking(False)
                    try:  # an answer (a 503 of the cap, a 408) or the close: the server cut us off
                        if sock.recv(4096, socket.MSG_PEEK):
                            counts["refused"] += 1
                        raise ConnectionError("answered or closed")
                    except BlockingIOError:
                        pass
                    finally:
                        sock.setblocking(True)
            except OSError:
                counts["slow_cutoffs"] += 1  # the server closed it: reconnect, as an attacker would
                gevent.sleep(0.5)

    logins = spec["logins"]
    greenlets = [gevent.spawn(slow_client, i, False) for i in range(int(spec["slow"]))]
    greenlets += [gevent.spawn(slow_client, i, True) for i in range(int(spec.get("slow_body", 0)))]
    for start in range(0, int(spec["subscribers"]), OPEN_BATCH):
        batch = [gevent.spawn(subscriber, *logins[i % len(logins)])
                 for i in range(start, min(start + OPEN_BATCH, int(spec["subscribers"])))]
        gevent.joinall(batch, timeout=0.05)  # let the batch start its handshakes
        greenlets += batch
        while counts["subscribed"] + counts["failed"] < min(start + OPEN_BATCH, int(spec["subscribers"])):
            if time.time() > float(spec["open_by"]):
                break  # measure with what is up (a server that cannot take more)
            gevent.sleep(0.05)
    print(json.dumps({"up": dict(counts), "errors": errors}), flush=True)
    while running():
        gevent.sleep(0.2)
    gevent.joinall(greenlets, timeout=15)
    print(json.dumps({"done": dict(counts)}), flush=True)


# -- the measuring process -----------------------------------------------------------------------


def start_stack(stack: ExitStack, workdir: Path) -> tuple[str, str]:
    from fleet.kafka_admin import ensure_topics
    from fleet.services._system import free_port
    from fleet.services.kafka import KafkaServer
    from fleet.services.postgres import PostgresServer
    from fleet.settings import KafkaSettings
    from warehouse.migrate import apply
    from warehouse.seed import seed_demo

    pg = PostgresServer(workdir / "pg", free_port(), fast=True)
    pg.start()
    stack.callback(pg.destroy)
    apply(pg.url)
    seed_demo(pg.url, terminals=20)
    kafka = KafkaServer(workdir / "kafka", free_port(), free_port())
    kafka.start()
    stack.callback(kafka.stop)
    ensure_topics(kafka.bootstrap, KafkaSettings().topic_partitions)
    return pg.url, kafka.bootstrap


def start_api(stack: ExitStack, workdir: Path, db_url: str, bootstrap: str, worker_class: str,
              keep_caps: bool = False) -> int:
    import requests

    from fleet.services._system import free_port

    port = free_port()
    env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
           "FLEET_API_HOST": "127.0.0.1", "FLEET_API_PORT": str(port), "FLEET_API_TOKEN_SECRET": secrets.token_hex(32),
           "FLEET_API_WORKER_CLASS": worker_class, "FLEET_API_STOMP_MAX_PER_ADDRESS": "0",
           "FLEET_API_STOMP_MAX_PER_USER": "0", "FLEET_API_MAX_CONNECTIONS_PER_ADDRESS": "0"}
    if keep_caps:
        env.pop("FLEET_API_MAX_CONNECTIONS_PER_ADDRESS")
    log = (workdir / "api.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "api"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    stack.callback(stop_process, proc)
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"http://127.0.0.1:{port}/api/health.json", timeout=2).status_code == 200:
                return port
        except requests.RequestException:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"the API did not start; see {workdir / 'api.log'}")
        time.sleep(0.3)


def stop_process(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def logins(base: str, db_url: str) -> list[tuple[str, int]]:
    import psycopg
    import requests

    from warehouse.seed import DEMO_PASSWORD, PARENT, SUBSIDIARY_A, SUBSIDIARY_B

    out = []
    with psycopg.connect(db_url) as conn:
        for user in (PARENT.admin, SUBSIDIARY_A.admin, SUBSIDIARY_B.admin):
            reply = requests.post(f"{base}/oauth2/token.json", timeout=30, params={
                "grant_type": "password", "username": user, "password": DEMO_PASSWORD}).json()
            assert reply["code"] == 0, reply
            row = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s", (user,)).fetchone()
            assert row is not None
            out.append((str(reply["data"]["access_token"]), int(row[0])))
    return out


def parent_path(db_url: str, enterprise_id: int) -> str:
    import psycopg

    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,)).fetchone()
    assert row is not None
    return str(row[0])


def probe(session: Any, method: str, url: str, **kwargs: Any) -> float | None:
    """Latency in ms of one request answered 200; None for an error or a timeout."""
    import requests

    started = time.perf_counter()
    try:
        reply = session.request(method, url, timeout=PROBE_TIMEOUT_S, **kwargs)
    except requests.RequestException:
        return None
    return (time.perf_counter() - started) * 1000 if reply.status_code == 200 else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--subscribers", type=int, default=1000)
    p.add_argument("--slow", type=int, default=50)
    p.add_argument("--duration", type=float, default=60.0, help="seconds of REST probes under load")
    p.add_argument("--push-rate", type=float, default=1.0, help="position events per second to all subscribers")
    p.add_argument("--worker-class", choices=("gevent", "gthread"), default="gevent")
    p.add_argument("--slow-body", type=int, default=0, help="clients sending a body one byte per second")
    p.add_argument("--addresses", type=int, default=1, help="loopback source addresses of the slow clients")
    p.add_argument("--keep-caps", action="store_true", help="keep the per-address connection cap at its default")
    p.add_argument("--fresh-connections", action="store_true",
                   help="each probe on a new connection, as a load balancer's health check (default: one keep-alive session)")
    args = p.parse_args(argv)
    fd_limit = raise_fd_limit()

    import requests
    from kafka import KafkaProducer

    from fleet.topics import CONSOLE_EVENTS

    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="push-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        db_url, bootstrap = start_stack(stack, workdir)
        port = start_api(stack, workdir, db_url, bootstrap, args.worker_class, args.keep_caps)
        base = f"http://127.0.0.1:{port}"
        tokens = logins(base, db_url)
        # Events alternate between the two subsidiaries' vehicles: each reaches the parent's
        # subscribers and that subsidiary's (subscriber i signs in as admin i % 3).
        targets = [(eid, parent_path(db_url, eid)) for _, eid in tokens[1:]]
        per_login = [len(range(i, args.subscribers, len(tokens))) for i in range(len(tokens))]
        expected = 0
        session = requests.Session()
        query = {"headers": {"Authorization": f"Bearer {tokens[0][0]}"}, "params": {"pageSize": 10}, "json": {}}
        idle = {"health": [probe(session, "GET", f"{base}/api/health.json") for _ in range(50)],
                "query": [probe(session, "POST", f"{base}/api/common/query/carView.json", **query) for _ in range(50)]}

        open_budget_s = 30 + args.subscribers / 20
        spec = {"port": port, "logins": tokens, "subscribers": args.subscribers, "slow": args.slow,
                "slow_body": args.slow_body, "addresses": args.addresses,
                "open_by": time.time() + open_budget_s, "stop_at": time.time() + open_budget_s + args.duration}
        child = subprocess.Popen([sys.executable, __file__, "--load-child", json.dumps(spec)], cwd=REPO,
                                 stdout=subprocess.PIPE, text=True)
        stack.callback(stop_process, child)
        t_open = time.monotonic()
        assert child.stdout is not None
        up = json.loads(child.stdout.readline() or "{}")
        open_s = time.monotonic() - t_open
        producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
        stack.callback(producer.close)
        load_before = os.getloadavg()[0]
        loaded: dict[str, list[float | None]] = {"health": [], "query": []}
        pushed = 0
        end = time.monotonic() + args.duration
        next_push = time.monotonic()
        while time.monotonic() < end:
            if args.push_rate and time.monotonic() >= next_push:
                target_id, path = targets[pushed % len(targets)]
                event = {"kind": "positions", "enterprise_id": target_id, "enterprise_path": path,
                         "fields": ["deviceId", "lng", "lat", "speed"], "rows": [[pushed, 116.4, 39.9, 40.0]]}
                producer.send(CONSOLE_EVENTS, key=str(target_id).encode(), value=json.dumps(event).encode())
                expected += per_login[0] + per_login[1 + pushed % len(targets)]
                pushed += 1
                next_push += 1 / args.push_rate
            if args.fresh_connections:
                session.close()  # the next probe opens a new connection and waits for the server to accept it
            loaded["health"].append(probe(session, "GET", f"{base}/api/health.json"))
            if args.fresh_connections:
                session.close()
            loaded["query"].append(probe(session, "POST", f"{base}/api/common/query/carView.json", **query))
            time.sleep(0.02)
        producer.flush()
        load_after = os.getloadavg()[0]
        time.sleep(2.0)  # the last pushes reach the subscribers
        child.send_signal(signal.SIGTERM)
        done = json.loads(child.stdout.readline() or "{}").get("done", {})

    rows = []
    for phase, samples in (("idle", idle), ("under load", loaded)):
        for name, values in samples.items():
            ok = [v for v in values if v is not None]
            rows.append([f"{name} ({phase})", len(values), len(values) - len(ok),
                         *(round(f(ok), 1) if ok else "-" for f in (statistics.median,
                                                                   lambda v: percentile(v, 0.99), max))])
    from tabulate import tabulate

    print(f"worker class {args.worker_class}; {args.subscribers} subscribers requested, "
          f"{up.get('up', {}).get('subscribed')} subscribed ({up.get('up', {}).get('failed')} failed) in {open_s:.0f} s; "
          f"{args.slow} slow-header and {args.slow_body} slow-body clients from {args.addresses} address(es)"
          f"{' (caps kept)' if args.keep_caps else ''}; {args.duration:.0f} s of probes"
          f"{' (each on a new connection)' if args.fresh_connections else ''}; {pushed} events pushed, "
          f"{done.get('messages')} of {expected} MESSAGE frames received, {done.get('closed_early')} subscribers dropped, "
          f"slow clients cut off {done.get('slow_cutoffs')} times ({done.get('refused')} with an answer); ulimit -n {fd_limit}; "
          f"load average {load_before:.2f} -> {load_after:.2f}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    if up.get("errors"):
        print(f"first subscriber errors: {up['errors']}")
    print(tabulate(rows, headers=["probe", "requests", "errors/timeouts", "p50 ms", "p99 ms", "max ms"],
                   tablefmt="github"))
    return 0


if __name__ == "__main__":
    if "--load-child" in sys.argv:
        load_child(json.loads(sys.argv[sys.argv.index("--load-child") + 1]))
        sys.exit(0)
    sys.exit(main())
