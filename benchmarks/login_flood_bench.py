"""Login flood: unknown user names with wrong passwords from many concurrent clients.

    .venv/bin/python benchmarks/login_flood_bench.py [--requests 600] [--clients 30]
        [--verify-concurrency 2] [--address-limit 20] [--addresses 1]

Starts a private PostgreSQL, seeds the demo, serves the real app with ``python -m api`` and sends
``--requests`` password grants for random unknown names over ``--clients`` concurrent clients, from
``--addresses`` loopback source addresses (127.0.0.1 alone, the default: one NAT; more: 127.0.0.2
and up, a flood from many hosts), while a prober reads ``/api/health.json`` every 0.2 s and the demo
administrator, who signed in from 127.0.0.1 before the flood, signs in again every 0.5 s. Measures
the API's peak RSS (gunicorn master and worker, from /proc), the health check p50/p99/max during the
flood, the genuine sign-ins (how many succeeded, p50 and max time), the reply codes, how many
guesses got past the throttle (audit rows other than ``throttled``; an unknown name past it no
longer costs an argon2 check), and the rows the throttle tables hold afterwards. ``--verify-concurrency 32 --address-limit 1000000`` approximates
the API before its login throttle (every guess checked, 32 at once). Prints a table; never a timed assertion.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402
from tabulate import tabulate  # noqa: E402

from benchmarks.api_bench import percentile, start_api  # noqa: E402


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (gunicorn master + workers), MiB."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def post_form(port: int, source: str, form: dict[str, str]) -> int:
    """POST the token endpoint from ``source`` (a loopback address); the envelope's code (-1: no answer)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        connection.request("POST", "/oauth2/token.json", body=urlencode(form),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        return int(json.loads(connection.getresponse().read())["code"])
    except (OSError, ValueError, KeyError):
        return -1
    finally:
        connection.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=600)
    p.add_argument("--clients", type=int, default=30)
    p.add_argument("--verify-concurrency", type=int, default=2)
    p.add_argument("--address-limit", type=int, default=20)
    p.add_argument("--addresses", type=int, default=1, help="loopback source addresses of the flood")
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.seed import DEMO_PASSWORD, PARENT, seed_demo

    os.environ["FLEET_API_LOGIN_VERIFY_CONCURRENCY"] = str(args.verify_concurrency)
    os.environ["FLEET_API_LOGIN_ADDRESS_MAX_FAILURES"] = str(args.address_limit)
    os.environ["FLEET_API_LOGIN_ACCOUNT_MAX_FAILURES"] = str(args.address_limit)
    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="login-flood-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            seed_demo(pg.url, terminals=10)
            base = start_api(procs, pg.url, workdir)
            api_pid = procs[0].pid
            requests.get(f"{base}/api/health.json", timeout=10)
            port = int(base.rsplit(":", 1)[1])
            genuine_form = {"grant_type": "password", "username": PARENT.admin, "password": DEMO_PASSWORD}
            first = requests.post(f"{base}/oauth2/token.json", data=genuine_form, timeout=60).json()
            assert first["code"] == 0, first  # 127.0.0.1 is now an address the administrator signed in from
            idle_rss = tree_rss_mb(api_pid)
            stop = threading.Event()
            health: list[float] = []
            genuine: list[tuple[int, float]] = []
            peak = [idle_rss]

            def probe() -> None:
                session = requests.Session()
                while not stop.is_set():
                    started = time.perf_counter()
                    session.get(f"{base}/api/health.json", timeout=60)
                    health.append((time.perf_counter() - started) * 1000)
                    stop.wait(0.2)

            def sign_in() -> None:
                while not stop.is_set():
                    started = time.perf_counter()
                    code = post_form(port, "127.0.0.1", genuine_form)
                    genuine.append((code, (time.perf_counter() - started) * 1000))
                    stop.wait(0.5)

            def sample() -> None:
                while not stop.is_set():
                    peak[0] = max(peak[0], tree_rss_mb(api_pid))
                    stop.wait(0.05)

            def guess(i: int) -> int:
                source = "127.0.0.1" if args.addresses <= 1 else f"127.0.{(i % args.addresses + 2) // 256}.{(i % args.addresses + 2) % 256}"
                return post_form(port, source, {
                    "grant_type": "password", "username": f"flood_{uuid.uuid4().hex}", "password": "guess-1"})

            watchers = [threading.Thread(target=t) for t in (probe, sample, sign_in)]
            for w in watchers:
                w.start()
            started = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                codes = Counter(pool.map(guess, range(args.requests)))
            wall_s = time.perf_counter() - started
            stop.set()
            for w in watchers:
                w.join()
            with psycopg.connect(pg.url) as conn:
                checked = conn.execute(
                    "SELECT count(*) FROM api_login_audit WHERE reason <> 'throttled'").fetchone()
                throttle_rows = conn.execute("SELECT count(*) FROM api_login_throttle").fetchone()
            genuine_ok = [ms for code, ms in genuine if code == 0]
            genuine_ms = [ms for _, ms in genuine]
            rows = [[
                f"{args.requests} guesses from {args.addresses} address(es), {args.clients} clients, "
                f"verify x{args.verify_concurrency}, address limit {args.address_limit}",
                round(wall_s, 1), dict(sorted(codes.items())), checked[0] if checked else None,
                throttle_rows[0] if throttle_rows else None, round(idle_rss), round(peak[0]),
                round(statistics.median(health)), round(percentile(health, 0.99)), round(max(health)),
                f"{len(genuine_ok)} of {len(genuine)}",
                f"{round(statistics.median(genuine_ms))} / {round(max(genuine_ms))}" if genuine_ms else "-",
            ]]
            print(tabulate(rows, headers=["run", "wall s", "reply codes", "past the throttle", "throttle rows",
                                          "RSS idle MiB", "RSS peak MiB", "health p50 ms", "health p99 ms",
                                          "health max ms", "genuine sign-ins ok",
                                          "genuine sign-in p50 / max ms"], tablefmt="github"))
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(30)
            pg.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
