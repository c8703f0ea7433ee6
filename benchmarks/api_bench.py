"""API read benchmark: last positions of 10,000 vehicles, and one vehicle's day of track (8,640 points).

    .venv/bin/python benchmarks/api_bench.py [--vehicles 10000] [--track-runs 50] [--clients 8]

Starts a private PostgreSQL (fleet.services.postgres, its own temporary directory and port), seeds the
demo data with ``--vehicles`` terminals (warehouse.seed), a ``device_last`` row for every device and
8,640 ``gps`` rows (one every 10 s for a UTC day) for one device, then serves the real app with
gunicorn (``python -m api``, the production command; gthread worker when this was measured) and
signs in as the demo ``admin`` (password grant) to get a bearer token. Measures, client side:

- track: ``POST /api/common/query/gps.json?pageSize=10000`` for that device and day, ``--track-runs``
  times one after the other (after 3 warm-ups); every reply must hold the 8,640 points.
- last positions: the API has no bulk "last positions" read (the generic query has no device_last
  entity, and carView/device rows carry no position), so "last positions of 10,000 vehicles" is
  10,000 ``GET /api/gps/device/{id}/last.json`` calls, spread over ``--clients`` keep-alive clients:
  the per-request p50/p99 and the wall time to have all 10,000.
- for comparison: ``POST /api/common/query/carView.json?pageSize=1000`` x 10 pages (the vehicle list
  the console loads), wall time for all pages.

Prints a markdown table for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402
from tabulate import tabulate  # noqa: E402

TRACK_POINTS = 8640  # one fix every 10 s for 24 h


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def seed(db_url: str, vehicles: int, day: datetime) -> int:
    """Demo data, device_last for every device, a day of track for the first device. Returns its id."""
    from warehouse.partitions import ensure_gps_partitions
    from warehouse.seed import seed_demo

    seed_demo(db_url, terminals=vehicles)
    with psycopg.connect(db_url) as conn:
        ensure_gps_partitions(conn, day.date(), 1)
        conn.execute(
            "INSERT INTO device_last (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,"
            " direction_deg, mileage_km, alarm_flags, status_flags, extras, received_at)"
            " SELECT id, %(t)s - (id %% 600) * interval '1 s', car_id, enterprise_id, 116.3 + (id %% 1000) / 5000.0,"
            " 39.8 + (id %% 997) / 5000.0, 50, (id %% 80), (id %% 360), 1000 + id, 0, 3, '{}', %(t)s"
            " FROM device ON CONFLICT (device_id) DO NOTHING", {"t": day + timedelta(hours=23)})
        row = conn.execute("SELECT id, car_id, enterprise_id FROM device WHERE NOT unassigned ORDER BY id LIMIT 1"
                           ).fetchone()
        assert row is not None
        device_id, car_id, enterprise_id = row
        conn.execute(
            "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,"
            " direction_deg, mileage_km, alarm_flags, status_flags, extras, received_at)"
            " SELECT %(d)s, %(t)s + n * interval '10 s', %(c)s, %(e)s, 116.3 + n / 100000.0, 39.9 + n / 200000.0,"
            " 50, (n %% 70), (n %% 360), 1000 + n / 100.0, 0, 3, '{\"mileage_km\": 1.0}', %(t)s + n * interval '10 s'"
            " FROM generate_series(0, %(n)s - 1) n ON CONFLICT DO NOTHING",
            {"d": device_id, "t": day, "c": car_id, "e": enterprise_id, "n": TRACK_POINTS})
        conn.execute("ANALYZE gps")
        conn.execute("ANALYZE device_last")
        conn.commit()
    return int(device_id)


def start_api(stack: list[Any], db_url: str, workdir: Path, repo: Path = REPO) -> str:
    """The API of ``repo`` (this tree, or another checkout to compare with) serving ``db_url``: its base URL."""
    from fleet.services._system import free_port, port_answers

    port = free_port()
    env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_API_HOST": "127.0.0.1", "FLEET_API_PORT": str(port),
           "FLEET_API_TOKEN_SECRET": secrets.token_hex(32)}
    if repo != REPO:
        env["PYTHONPATH"] = str(repo)
    log = (workdir / "api.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "api"], cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT)
    stack.append(proc)
    deadline = time.monotonic() + 60
    while not port_answers(port):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"API did not start; see {workdir / 'api.log'}")
        time.sleep(0.2)
    return f"http://127.0.0.1:{port}"


def token(base: str) -> str:
    from warehouse.seed import DEMO_PASSWORD, PARENT

    reply = requests.post(f"{base}/oauth2/token.json", params={
        "grant_type": "password", "username": PARENT.admin, "password": DEMO_PASSWORD}, timeout=30).json()
    assert reply["code"] == 0, reply
    return str(reply["data"]["access_token"])


def timed(session: requests.Session, method: str, url: str, **kwargs: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    reply = session.request(method, url, timeout=60, **kwargs)
    body = reply.json()
    elapsed_ms = (time.perf_counter() - started) * 1000
    assert reply.status_code == 200 and body["code"] == 0, (reply.status_code, body)
    return elapsed_ms, body["data"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=10_000)
    p.add_argument("--track-runs", type=int, default=50)
    p.add_argument("--clients", type=int, default=8, help="concurrent keep-alive clients for the last positions")
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply

    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="api-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
            t0 = time.monotonic()
            device_id = seed(pg.url, args.vehicles, day)
            seed_s = time.monotonic() - t0
            with psycopg.connect(pg.url) as conn:
                ids = [r[0] for r in conn.execute("SELECT device_id FROM device_last ORDER BY device_id")]
            base = start_api(procs, pg.url, workdir)
            headers = {"Authorization": f"Bearer {token(base)}"}
            load_before = os.getloadavg()[0]
            rows: list[list[Any]] = []

            # one vehicle's day of track
            session = requests.Session()
            session.headers.update(headers)
            body = {"deviceId": device_id, "rangeConditions": [
                {"fieldName": "time", "start": int(day.timestamp() * 1000),
                 "end": int((day + timedelta(days=1)).timestamp() * 1000) - 1, "type": "closedOpen"}]}
            url = f"{base}/api/common/query/gps.json"
            for _ in range(3):
                timed(session, "POST", url, params={"pageSize": 10000, "isParent": "true"}, json=body)
            track: list[float] = []
            for _ in range(args.track_runs):
                ms, data = timed(session, "POST", url, params={"pageSize": 10000, "isParent": "true"}, json=body)
                assert len(data["list"]) == TRACK_POINTS, len(data["list"])
                track.append(ms)
            rows.append(["track: gps.json, 8,640 points, sequential", len(track), statistics.median(track),
                         percentile(track, 0.99), max(track), "", "p99 <= 200 ms"])

            # last positions of every vehicle, per-vehicle endpoint
            sessions: dict[int, requests.Session] = {}

            def last(device: int) -> float:
                import threading

                s = sessions.setdefault(threading.get_ident(), requests.Session())
                s.headers.update(headers)
                ms, data = timed(s, "GET", f"{base}/api/gps/device/{device}/last.json", params={"isParent": "true"})
                assert data and data["deviceId"] == device
                return ms

            for device in ids[:200]:  # warm-up
                last(device)
            started = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                lasts = list(pool.map(last, ids))
            wall_ms = (time.perf_counter() - started) * 1000
            rows.append([f"last positions: {len(ids)} x last.json, {args.clients} clients", len(lasts),
                         statistics.median(lasts), percentile(lasts, 0.99), max(lasts), round(wall_ms),
                         "p99 <= 50 ms (for all of them)"])
            started = time.perf_counter()
            lasts1 = [last(device) for device in ids[:2000]]
            rows.append(["last.json, 1 client, 2,000 vehicles", len(lasts1), statistics.median(lasts1),
                         percentile(lasts1, 0.99), max(lasts1), round((time.perf_counter() - started) * 1000), ""])

            # the vehicle list, 1,000 per page
            pages: list[float] = []
            started = time.perf_counter()
            got = 0
            for page in range(1, (len(ids) + 999) // 1000 + 1):
                ms, data = timed(session, "POST", f"{base}/api/common/query/carView.json",
                                 params={"pageSize": 1000, "pageNo": page, "isParent": "true"}, json={})
                pages.append(ms)
                got += len(data["list"])
            rows.append([f"carView.json, 1,000 per page ({got} rows)", len(pages), statistics.median(pages),
                         percentile(pages, 0.99), max(pages), round((time.perf_counter() - started) * 1000), ""])
            load_after = os.getloadavg()[0]
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            pg.destroy()
    print(f"vehicles {args.vehicles}, seed {seed_s:.0f} s, load average {load_before:.2f} -> {load_after:.2f}, "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(tabulate([[r[0], r[1], *(round(v, 1) for v in r[2:5]), *r[5:]] for r in rows],
                   headers=["what", "requests", "p50 ms", "p99 ms", "max ms", "wall ms (all)", "target"],
                   tablefmt="github"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
