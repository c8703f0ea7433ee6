"""Reports benchmark (docs/reports.md §10): N vehicles x D days of generated history at one fix
per interval, then the report figures: the gps read of one local day (ADBC), one day's partition (read /
compute / write / lake), the whole range from raw positions (the backfill), the month from the daily rollups,
the month's mileage from the raw Parquet lake with DuckDB, and every report API call's latency (p50 / p99,
in-process Flask test client on the same data).

Not a test: prints a table for docs/performance.md. Runs on a private PostgreSQL (fsync off) under a temporary
directory. The history comes from the same generator as ``make up`` (warehouse.history, with alarm episodes,
state and online logs). Full size: ``--vehicles 1000 --days 30 --interval 30`` (~86 M fixes; hours to
generate with the Python generator on 2 cores); a reduced run states its size in the table.

    .venv/bin/python benchmarks/reports_bench.py --vehicles 200 --days 7 --interval 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from protocols.china_time import CHINA_TZ

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """Median wall seconds over ``runs`` and the last result."""
    took, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        took.append(time.perf_counter() - started)
    return statistics.median(took), result


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def generate(url: str, vehicles: int, days: int, interval_s: float, end: datetime) -> dict[str, Any]:
    import psycopg

    from warehouse.history import load_history, vehicles_with_master_device
    from warehouse.history_events import Events
    from warehouse.seed import seed_demo

    t0 = time.monotonic()
    seed_demo(url, terminals=vehicles)
    seeded = time.monotonic()
    start = end - timedelta(days=days)
    with psycopg.connect(url) as conn:
        fleet = vehicles_with_master_device(conn)
        conn.commit()
        events = Events()
        rows = load_history(conn, fleet, start, end, interval_s, events=events)
    loaded = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("gps", "alarm", "acc_state_log", "biz_state_log", "device_online_log"):
            conn.execute(f"VACUUM ANALYZE {table}")
    return {"rows": rows, "alarms": len(events.alarms), "seed_s": seeded - t0, "load_s": loaded - seeded,
            "vacuum_s": time.monotonic() - loaded}


def api_latency(url: str, workdir: Path, day: date, runs: int) -> list[list[Any]]:
    from api.app import create_app
    from api.db import get_db
    from fleet.settings import ApiSettings
    from warehouse.seed import DEMO_PASSWORD

    app = create_app(ApiSettings(token_secret="bench-secret"), url, var_dir=workdir / "api-var")
    client = app.test_client()
    reply: Any = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": "admin",
                                                               "password": DEMO_PASSWORD})
    headers = {"Authorization": f"Bearer {reply.json['data']['access_token']}"}
    key = day.strftime("%Y%m%d")
    month = int(key[:6])
    first = (day - timedelta(days=6)).strftime("%Y%m%d")
    car_id = app.test_client().post("/api/common/query/carView.json", headers=headers, json={},
                                    query_string={"isParent": "true", "pageSize": 1}).json["data"]["list"][0]["carId"]
    calls: list[tuple[str, str, dict[str, Any], Any]] = [
        ("POST", "/api/common/query/carDayReport.json", {"isParent": "true", "countable": "true", "pageSize": 50},
         {"date.eq": int(key)}),
        ("POST", "/api/common/query/carMonthReport.json", {"isParent": "true", "countable": "true"}, {"month.eq": month}),
        ("POST", "/api/common/query/carYearReport.json", {"isParent": "true", "countable": "true"}, {}),
        ("POST", "/api/report/sum/car_year_report.json", {"isParent": "true", "select": "mileageKm,trips"}, {}),
        ("GET", "/api/report/car/dayReport/query.json", {"carId": car_id, "startDate": first, "endDate": key}, None),
        ("GET", "/api/report/car/dayReport/sum.json", {"carId": car_id, "startDate": first, "endDate": key}, None),
        ("POST", "/api/report/car/dayReport/sum.json", {"isParent": "true", "startDate": first, "endDate": key,
                                                        "group": "date", "select": "mileageKm,driveS"}, {}),
        ("POST", "/api/report/car/dayReport/page/sum.json", {"isParent": "true", "startDate": first, "endDate": key,
                                                             "select": "mileageKm,driveS,trips"}, {}),
        ("POST", "/api/report/addAndSum/car_month_report.json", {"isParent": "true", "sum": "mileageKm",
                                                                 "group": "enterpriseId"}, {"month.eq": month}),
        ("GET", "/api/report/car/carModel/sum.json", {"isParent": "true"}, None),
        ("POST", "/api/report/count/device_day_report.json", {"isParent": "true"}, {"date.eq": int(key), "a1.gt": 0}),
        ("POST", "/api/report/distinctCount/device_month_report.json", {"isParent": "true"},
         {"month.eq": month, "a1.gt": 0}),
        ("POST", "/api/report/distinctCount/device_year_report.json", {"isParent": "true"},
         {"year.eq": day.year, "a1.gt": 0}),
        ("POST", "/api/common/query/enterpriseTodayOnlineCarReport.json", {"isParent": "true"}, None),
        ("POST", "/api/common/query/enterpriseCarBizstateReport.json", {"isParent": "true"}, None),
        ("POST", "/api/common/query/enterpriseVideoCarBizstateReport.json", {"isParent": "true"}, None),
        ("GET", "/api/report/kpi/enterprise.json", {"isParent": "true", "startDate": first, "endDate": key}, None),
        ("POST", "/api/common/query/trip.json", {"isParent": "true", "countable": "true", "pageSize": 50},
         {"date.eq": int(key)}),
        ("POST", "/api/common/query/kpiEnterpriseDay.json", {"isParent": "true"}, {"date.eq": int(key)}),
    ]
    table = []
    try:
        for method, path, args, body in calls:
            took = []
            for _ in range(runs):
                started = time.perf_counter()
                out = (client.post(path, headers=headers, query_string=args, json=body or {}) if method == "POST"
                       else client.get(path, headers=headers, query_string=args))
                took.append((time.perf_counter() - started) * 1000)
                assert out.status_code == 200, (path, out.json)
            table.append([f"{method} {path}", f"{statistics.median(took):.1f}", f"{percentile(took, 99):.1f}"])
    finally:
        get_db(app).close()
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=1000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--interval", type=float, default=30.0, help="seconds between fixes")
    p.add_argument("--runs", type=int, default=3, help="repetitions of each timed step (median)")
    p.add_argument("--api-runs", type=int, default=50)
    args = p.parse_args(argv)

    from tabulate import tabulate

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from fleet.settings import ReportSettings
    from orchestration.build import ReportsEnv, build_day, build_month
    from orchestration.cli import run_build
    from warehouse.lake import duckdb_connect
    from warehouse.migrate import apply
    from warehouse.reports.reads import read_points

    now = datetime.now(UTC)
    env_tz = "Asia/Shanghai"
    with tempfile.TemporaryDirectory(prefix="reports-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            settings = ReportSettings(start_date="2020-01-01")
            env = ReportsEnv.from_settings(pg.url, settings)
            env.lake_dir = workdir / "lake"
            today = env.today(now)
            end = datetime.combine(today, datetime.min.time(), tzinfo=CHINA_TZ)  # local midnight
            gen = generate(pg.url, args.vehicles, args.days, args.interval, end)
            first, last = today - timedelta(days=args.days), today - timedelta(days=1)
            window = env.window(last, now)
            read_s, points = timed(lambda: read_points(pg.url, window.read_start, window.read_end), args.runs)
            day_s, built = timed(lambda: build_day(env, last, now), args.runs)
            started = time.perf_counter()
            summary = run_build(env, first, last)
            backfill_s = time.perf_counter() - started
            month = last.replace(day=1)
            month_s, _ = timed(lambda: build_month(env, month), args.runs)
            con = duckdb_connect(env.lake_dir)
            lake_q = """SELECT device_id, sum(km) FROM (
                SELECT device_id, 2 * 6371.0088 * asin(sqrt(pow(sin(radians(lat - lag(lat) OVER w) / 2), 2)
                  + cos(radians(lat)) * cos(radians(lag(lat) OVER w)) * pow(sin(radians(lng - lag(lng) OVER w) / 2), 2)))
                  AS km FROM gps WINDOW w AS (PARTITION BY device_id ORDER BY fix_at)) GROUP BY device_id"""
            lake_s, _ = timed(lambda: con.execute(lake_q).fetchall(), args.runs)
            api = api_latency(pg.url, workdir, last, args.api_runs)
        finally:
            pg.destroy()
    rows = [
        ["size", f"{args.vehicles} vehicles x {args.days} days, a fix every {args.interval:g} s: {gen['rows']:,} fixes,"
                 f" {gen['alarms']:,} alarms"],
        ["generate + COPY (warehouse.history, Python)", f"{gen['load_s']:.1f} s (seed {gen['seed_s']:.1f} s,"
                                                        f" vacuum {gen['vacuum_s']:.1f} s)"],
        ["gps read of one local day (+1 h / +2 h), ADBC", f"{read_s:.2f} s ({points.height:,} rows)"],
        ["one day's partition (build_day)", f"{day_s:.2f} s: " + ", ".join(f"{k} {v:.2f}" for k, v in built.seconds.items())],
        [f"all {len(summary.days)} days from raw positions + months (run_build)", f"{backfill_s:.1f} s"],
        ["the month from the daily rollups (build_month)", f"{month_s:.2f} s"],
        ["the range's per-vehicle GPS km from the raw Parquet lake (DuckDB)", f"{lake_s:.2f} s"],
        ["load average (1 min) at the end", f"{os.getloadavg()[0]:.1f}"],
        ["time zone", env_tz],
    ]
    print(tabulate(rows, tablefmt="github"))
    print()
    print(tabulate(api, headers=["report API call (in-process)", "p50 ms", "p99 ms"], tablefmt="github"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
