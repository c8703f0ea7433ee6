"""Dashboard alarm counts benchmark: ``GET /api/dashboard/alarmCounts.json`` with 10,000
vehicles and 1,000,000 alarms.

    .venv/bin/python benchmarks/alarm_counts_bench.py [--vehicles 10000] [--alarms 1000000] [--days 60] [--runs 100]

Starts a private PostgreSQL (its own temporary directory and port), applies the migrations, seeds the demo
data with ``--vehicles`` terminals, inserts ``--alarms`` alarms spread evenly over the last ``--days`` days
(ten keys: terminal bits, ADAS/DSM, platform, video; 30 % unhandled; bulk-loaded with the rollup triggers
off, then the rollups rebuilt by migration 0021's backfill), ANALYZEs, serves the real app
(``python -m api``) and signs in as the demo root ``admin`` (``isParent=true``: every alarm is in scope).
Then ``--runs`` sequential calls (after warm-ups) per range today / week / month: p50 / p99 / max and the
rows the range covers. Target p99 <= 100 ms. Prints a markdown table for docs/performance.md; never a
timed assertion.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402
from tabulate import tabulate  # noqa: E402

from benchmarks.api_bench import percentile, start_api, timed, token  # noqa: E402

MIGRATION = REPO / "warehouse" / "migrations" / "0021_alarm_queries.sql"
BACKFILL = MIGRATION.read_text().split("-- alarms stored before this migration", 1)[1]
KEYS = [("a0", 1, None), ("a1", 1, None), ("a2", 1, None), ("a3", 1, None), ("adas_1", 5, 1), ("adas_2", 5, 2),
        ("dsm_1", 6, 1), ("dsm_2", 6, 2), ("p_overspeed", 3, None), ("v0", 2, None)]


def seed_alarms(db_url: str, alarms: int, days: int) -> None:
    keys = [k for k, _, _ in KEYS]
    types = [t for _, t, _ in KEYS]
    levels = [lv for _, _, lv in KEYS]
    with psycopg.connect(db_url) as conn:
        # bulk load: the rollup triggers off, then the rollups rebuilt by the migration's own backfill
        conn.execute("ALTER TABLE alarm DISABLE TRIGGER USER")
        conn.execute(
            """WITH d AS (SELECT id, car_id, enterprise_id, phone, (row_number() OVER (ORDER BY id)) - 1 AS rn
                          FROM device WHERE car_id IS NOT NULL),
                    c AS (SELECT count(*) AS n FROM d)
               INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time,
                                  alarm_flags, state, lat, lng, speed)
               SELECT d.enterprise_id, d.id, d.car_id, 'P' || d.id, d.phone, (%(types)s::int[])[s.n %% 10 + 1],
                      (%(keys)s::text[])[s.n %% 10 + 1], (%(levels)s::int[])[s.n %% 10 + 1],
                      now() - (s.n::double precision / %(total)s) * %(days)s * interval '1 day',
                      0, CASE WHEN s.n %% 10 < 3 THEN 0 ELSE 2 END, 39.9, 116.4, 60
               FROM generate_series(0, %(total)s - 1) AS s(n) CROSS JOIN c JOIN d ON d.rn = (s.n::bigint * 7919) %% c.n
               ON CONFLICT DO NOTHING""",
            {"types": types, "keys": keys, "levels": levels, "total": alarms, "days": days})
        conn.execute("ALTER TABLE alarm ENABLE TRIGGER USER")
        conn.execute("TRUNCATE alarm_day_count, alarm_device_latest")
        conn.execute(BACKFILL)
        conn.commit()
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE alarm")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=10_000)
    p.add_argument("--alarms", type=int, default=1_000_000)
    p.add_argument("--days", type=int, default=60)
    p.add_argument("--runs", type=int, default=100)
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.seed import seed_demo

    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="alarm-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            t0 = time.monotonic()
            seed_demo(pg.url, terminals=args.vehicles)
            seed_alarms(pg.url, args.alarms, args.days)
            seed_s = time.monotonic() - t0
            base = start_api(procs, pg.url, workdir)
            session = requests.Session()
            session.headers.update({"Authorization": f"Bearer {token(base)}"})
            url = f"{base}/api/dashboard/alarmCounts.json"
            load_before = os.getloadavg()[0]
            rows: list[list[Any]] = []
            for name in ("today", "week", "month"):
                params = {"range": name, "isParent": "true"}
                for _ in range(5):
                    timed(session, "GET", url, params=params)
                times: list[float] = []
                data: dict[str, Any] = {}
                for _ in range(args.runs):
                    ms, data = timed(session, "GET", url, params=params)
                    times.append(ms)
                covered = sum(item["count"] for item in data["byType"])
                rows.append([f"alarmCounts range={name}", f"{covered:,}", data["alarmingVehicles"], len(times),
                             round(statistics.median(times), 1), round(percentile(times, 0.99), 1),
                             round(max(times), 1)])
            print(f"\n{args.vehicles:,} vehicles, {args.alarms:,} alarms over {args.days} days; seed {seed_s:.0f} s;"
                  f" load {load_before:.1f} -> {os.getloadavg()[0]:.1f}\n")
            print(tabulate(rows, headers=["request", "alarms in range", "alarming vehicles", "runs", "p50 ms",
                                          "p99 ms", "max ms"], tablefmt="github"))
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
            pg.destroy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
