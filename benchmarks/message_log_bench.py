"""Message log benchmark: the upstream message log screen's first page over a `make up`-sized log.

    .venv/bin/python benchmarks/message_log_bench.py [--terminals 200] [--interval 5] [--hours 24] [--requests 20]

Starts a private PostgreSQL (fleet.services.postgres), applies the migrations, seeds the demo data
(``--terminals`` vehicles, as ``fleet up``), creates the daily ``message_log`` partitions as ``fleet up``
does and fills them with one uplink per terminal every ``--interval`` seconds over the last ``--hours``
(``fleet up``'s simulator: 200 terminals every 5 s), then serves the real app (``python -m api``) and
asks what the console's upstream message log asks when it opens on a vehicle: today's frames of that
vehicle, newest first, 10 a page, with the total (``countable=true``). Prints p50 / p99 / max of the
reply and the plans (EXPLAIN ANALYZE) of the page and of the count. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402

from benchmarks.api_bench import percentile, start_api, timed, token  # noqa: E402

FILL = """
INSERT INTO message_log (time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex, decoded)
SELECT t, d.id, c.id, c.enterprise_id, d.phone, 0, 512, (extract(epoch FROM t)::bigint %% 65536)::int,
       repeat('7e0200', 20), '{"alarm": 0, "status": 3, "speedKmh": 40.5}'::jsonb
FROM device d JOIN car c ON c.id = d.car_id,
     generate_series(%(start)s::timestamptz, %(end)s::timestamptz, make_interval(secs => %(interval)s)) AS t
"""


def fill(url: str, hours: float, interval: float, vacuum: bool = True) -> int:
    from warehouse.partitions import MESSAGE_LOG, ensure_partitions

    end = datetime.now(UTC)
    start = end - timedelta(hours=hours)
    with psycopg.connect(url) as conn:
        ensure_partitions(conn, MESSAGE_LOG, start.date() - timedelta(days=1), days_ahead=int(hours // 24) + 3)
        conn.commit()
        for step in range(int(hours) + 1):  # an hour a statement: bounded memory
            lo = start + timedelta(hours=step)
            hi = min(end, lo + timedelta(hours=1) - timedelta(microseconds=1))
            if lo >= end:
                break
            conn.execute(FILL, {"start": lo, "end": hi, "interval": interval})
            conn.commit()
        rows = conn.execute("SELECT count(*) FROM message_log").fetchone()
    with psycopg.connect(url, autocommit=True) as conn:
        # VACUUM marks the pages all-visible, as autovacuum does after each fifth of a partition's growth;
        # without it (--no-vacuum) every heap page of the range is read again (the worst case, right after a write burst)
        conn.execute("VACUUM ANALYZE message_log" if vacuum else "ANALYZE message_log")
    return int(rows[0]) if rows else 0


def console_request(car_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The query the upstream message log sends when it opens on a vehicle (today, 10 a page)."""
    midnight = datetime.combine(date.today(), datetime.min.time(), tzinfo=UTC)
    params = {"countable": "true", "pageNo": 1, "pageSize": 10}
    body = {"carId.eq": car_id, "rangeConditions": [
        {"fieldName": "time", "start": midnight.isoformat(), "end": (midnight + timedelta(days=1)).isoformat()}]}
    return params, body


def statements(conn: psycopg.Connection[Any], car_id: int) -> list[tuple[str, Any, list[Any]]]:
    """The page and the count statements the API runs for the console's request, as the admin."""
    from api.query.entities import QUERYABLE
    from api.query.grammar import parse_query
    from api.query.sqlgen import compile_count, compile_select
    from warehouse.queries.scope import Scope

    entity = QUERYABLE["upstreamMessage"]
    params, body = console_request(car_id)
    query = parse_query(entity, {k: str(v) for k, v in params.items()}, body)
    row = conn.execute("SELECT id, path FROM enterprise WHERE parent_id IS NULL ORDER BY id LIMIT 1").fetchone()
    assert row is not None
    scope = Scope(int(row[0]), str(row[1]), subtree=True)
    return [("page", *compile_select(query, scope)), ("count", *compile_count(query, scope))]


def evict(data_dir: Path) -> None:
    """Drops the database files from the OS page cache (this benchmark's files only)."""
    for path in (data_dir / "base").rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def cold(pg: Any, car_ids: list[int]) -> list[float]:
    """Page + count of each car with nothing cached: the server restarted (shared buffers empty) and
    the files evicted from the OS cache before each, as after a while of other work on a busy host."""
    took = []
    for car_id in car_ids:
        pg.stop()
        evict(pg.data_dir)
        pg.start()
        with psycopg.connect(pg.url) as conn:
            found = statements(conn, car_id)
            started = time.perf_counter()
            for _name, statement, values in found:
                conn.execute(statement, values).fetchall()
            took.append((time.perf_counter() - started) * 1000)
    return took


def explain(url: str, car_id: int) -> str:
    with psycopg.connect(url) as conn:
        out = []
        for name, statement, values in statements(conn, car_id):
            text = statement.as_string(conn)
            plan = conn.execute(psycopg.sql.SQL("EXPLAIN (ANALYZE, BUFFERS) ") + statement, values).fetchall()
            out.append(f"--- {name}: {text}\n" + "\n".join(str(r[0]) for r in plan))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--terminals", type=int, default=200)
    p.add_argument("--interval", type=float, default=5.0)
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--requests", type=int, default=20)
    p.add_argument("--no-vacuum", action="store_true", help="ANALYZE only: no page is marked all-visible yet")
    p.add_argument("--cold-rounds", type=int, default=3, help="cold page + count runs (server restarted, cache evicted)")
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.seed import seed_demo

    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="message-log-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            seed_demo(pg.url, terminals=args.terminals)
            t0 = time.monotonic()
            rows = fill(pg.url, args.hours, args.interval, vacuum=not args.no_vacuum)
            fill_s = time.monotonic() - t0
            with psycopg.connect(pg.url) as conn:
                found = conn.execute("SELECT car_id FROM device WHERE car_id IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
            car_id = int(found[0]) if found else 0
            base = start_api(procs, pg.url, workdir)
            session = requests.Session()
            session.headers.update({"Authorization": f"Bearer {token(base)}"})
            url = f"{base}/api/common/query/upstreamMessage.json"
            params, body = console_request(car_id)
            load = os.getloadavg()[0]
            took, total = [], 0
            for _ in range(args.requests):
                ms, data = timed(session, "POST", url, params=params, json=body)
                took.append(ms)
                total = data["total"]
            plans = explain(pg.url, car_id)
            for proc in procs:  # the API's connections end with the restarts
                proc.terminate()
                proc.wait(timeout=20)
            procs.clear()
            cold_ms = cold(pg, [car_id - i for i in range(args.cold_rounds)])
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except Exception:
                    proc.kill()
            pg.destroy()
    print(f"message_log rows {rows} ({args.terminals} terminals every {args.interval:g} s over {args.hours:g} h,"
          f" filled in {fill_s:.0f} s); car {car_id}: today's total {total}; load {load:.2f};"
          f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"upstreamMessage first page + total, {args.requests} requests: p50 {statistics.median(took):.1f} ms,"
          f" p99 {percentile(took, 0.99):.1f} ms, max {max(took):.1f} ms")
    print(f"cold (restarted, files evicted) page + count SQL, {len(cold_ms)} runs:"
          f" {', '.join(f'{ms:.0f}' for ms in cold_ms)} ms")
    print(plans)
    return 0


if __name__ == "__main__":
    sys.exit(main())
