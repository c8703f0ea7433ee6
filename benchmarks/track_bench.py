"""Track and last-position reads over 10,000 vehicles x 30 days of positions.

    .venv/bin/python benchmarks/track_bench.py [--vehicles 10000] [--days 30] [--dense 3]
        [--background-interval-s 1800] [--runs 50] [--explain] [--alarm-extras]

Starts a private PostgreSQL (fleet.services.postgres, fsync off), applies the migrations, seeds the demo
with ``--vehicles`` terminals (warehouse.seed: one car each), then loads history with the bulk loader
(warehouse.history, COPY): the ``--dense`` measured vehicles at full density (a fix every 10 s: 8,640 a
day, 259,200 in 30 days each), every other vehicle a fix every ``--background-interval-s`` over the same
30 days (2.6 billion rows at full density do not fit this machine; the sparse fleet still fills every
daily partition and its primary key with 10,000 devices, which is what a read has to find its way
through). Then VACUUM ANALYZE, a third of the devices online, and the real app (``python -m api``,
gunicorn, production defaults) signed in as the demo ``admin`` (``isParent=true`` sees every vehicle).

Measured one after the other (after warm-ups), ``--runs`` each, p50 / p99 / max:

(a) one vehicle's UTC day, 8,640 points, every point: ``GET /api/gps/car/{id}/track.json?maxPoints=0``
    (target p99 <= 200 ms) and the old path ``POST /api/common/query/gps.json?pageSize=10000`` (before);
(b) last positions of every vehicle in one call: ``POST /api/gps/last.json?isParent=true`` (p99 <= 50 ms to
    the reply's last byte; the same with the client's JSON parse shown apart);
(c) 30 days of one vehicle thinned to the screen: ``track.json`` with the default maxPoints 2000
    (p99 <= 500 ms), and the same as CSV export (every point, streamed) for reference.

``--explain`` prints EXPLAIN (ANALYZE, BUFFERS) of the day and month reads. ``--alarm-extras`` gives the
measured vehicles' fixes the extras a real terminal's fixes have (the loader writes none: mileage, fuel,
signal, satellites, IO, 0x14 = 0) and an ADAS item at 20:30 past each hour and a DSM item at 40:30
(48 active-safety fixes a day), before the day summaries are made: what the track point alarm fields
cost on realistic rows. Prints a markdown table for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402
from tabulate import tabulate  # noqa: E402

from benchmarks.api_bench import percentile, start_api, timed, token  # noqa: E402

FULL_DENSITY_S = 10.0


# The measured vehicles' fixes with a real terminal's extras, an ADAS item at :20:30 and a DSM item at :40:30
# (each with the shared block of the codec: position, time, alarm number).
_ALARM_EXTRAS = """
UPDATE gps SET extras = jsonb_build_object('mileage_km', mileage_km, 'fuel_l', fuel_l, 'record_speed_kmh', speed_kmh,
    'vehicle_signal_status', 0, 'io_status', 0, 'rssi', 25, 'gnss_satellites', 12, 'video_alarm_flags', 0)
  || CASE date_part('epoch', fix_at)::bigint %% 3600
       WHEN 1230 THEN jsonb_build_object('adas_alarm', jsonb_build_object('alarm_id', 1, 'flag', 0, 'type', 1, 'level', 1,
         'front_speed_kmh', 50, 'headway_s', 1.2, 'deviation_type', 0, 'road_sign_type', 0, 'road_sign_data', 0,
         'speed_kmh', 40, 'altitude_m', 20, 'lat', lat, 'lng', lng, 'vehicle_status', 3, 'time', fix_at,
         'alarm_no', jsonb_build_object('terminal_id', 'B000001', 'time', fix_at, 'seq', 0, 'attachments', 2)))
       WHEN 2430 THEN jsonb_build_object('dsm_alarm', jsonb_build_object('alarm_id', 2, 'flag', 0, 'type', 2, 'level', 2,
         'fatigue_degree', 0,
         'speed_kmh', 40, 'altitude_m', 20, 'lat', lat, 'lng', lng, 'vehicle_status', 3, 'time', fix_at,
         'alarm_no', jsonb_build_object('terminal_id', 'B000001', 'time', fix_at, 'seq', 0, 'attachments', 2)))
       ELSE '{}'::jsonb END
WHERE device_id = ANY(%s::bigint[])"""


def load(url: str, vehicles: int, days: int, dense: int, background_s: float, end: datetime,
         alarm_extras: bool = False) -> dict[str, Any]:
    from warehouse.history import load_history, summarise_loaded, vehicles_with_master_device
    from warehouse.seed import seed_demo

    t0 = time.monotonic()
    seed_demo(url, terminals=vehicles)
    seeded = time.monotonic()
    start = end - timedelta(days=days)
    with psycopg.connect(url) as conn:
        fleet = vehicles_with_master_device(conn)
        conn.commit()
        measured, rest = fleet[:dense], fleet[dense:]
        rows = load_history(conn, measured, start, end, FULL_DENSITY_S)
        rows += load_history(conn, rest, start, end, background_s)
        if alarm_extras:
            conn.execute(_ALARM_EXTRAS, [[v.device_id for v in measured]])
            conn.commit()
        loaded = time.monotonic()
        conn.execute("UPDATE device SET state = 3, biz_state = 1 WHERE id % 3 = 0")
        conn.commit()
    summarise_loaded(url, start, end)  # the closed days' track summaries, as the history seeder does
    summarised = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        summaries = conn.execute("SELECT count(*), pg_size_pretty(pg_total_relation_size('track_day')) FROM track_day").fetchone()
        conn.execute("VACUUM ANALYZE gps")
        conn.execute("VACUUM ANALYZE device_last")
        conn.execute("VACUUM ANALYZE track_day")
        size = conn.execute("SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_inherits i"
                            " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'gps'::regclass").fetchone()
    return {"measured": measured, "rows": rows, "seed_s": seeded - t0, "load_s": loaded - seeded,
            "summarise_s": summarised - loaded, "summaries": f"{summaries[0]:,} ({summaries[1]})" if summaries else "?",
            "vacuum_s": time.monotonic() - summarised, "size": size[0] if size else "?"}


def explain(url: str, device_id: int, day: datetime, end: datetime, days: int) -> None:
    from psycopg import sql

    from warehouse.queries import positions

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET jit = off")  # as the app's reads (positions.without_jit)
        for label, start, stop in (("day", day, day + timedelta(days=1)), ("month", end - timedelta(days=days), end)):
            rows_sql = sql.SQL("EXPLAIN (ANALYZE, BUFFERS) SELECT coalesce(json_agg({row} ORDER BY g.fix_at), '[]')::text"
                               " FROM gps g WHERE g.device_id = %s AND g.fix_at >= %s AND g.fix_at < %s").format(
                row=positions._row_sql())
            print(f"--- {label}: rows JSON ---")
            for (line,) in conn.execute(rows_sql, [device_id, start, stop]):
                print(line)
            print(f"--- {label}: points for stops and thinning ---")
            points_sql = sql.SQL("EXPLAIN (ANALYZE, BUFFERS) ") + positions.points_sql()
            for (line,) in conn.execute(points_sql, {"device": device_id, "start": start, "end": stop, "still": 5.0}):
                print(line)
        print("--- month: the closed days' track summaries (track.json thinned, parkLog) ---")
        for (line,) in conn.execute(
                "EXPLAIN (ANALYZE, BUFFERS) SELECT day, car_id, enterprise_id, points, times, lngs, lats, speeds, directions,"
                " altitudes, mileages, fuels, alarms, statuses FROM track_day WHERE device_id = %s AND day = ANY(%s::date[])",
                [device_id, [(end - timedelta(days=k)).date() for k in range(1, days + 1)]]):
            print(line)


def series(session: requests.Session, method: str, url: str, runs: int, check: Any, **kwargs: Any) -> list[float]:
    for _ in range(3):
        timed(session, method, url, **kwargs)
    took = []
    for _ in range(runs):
        ms, data = timed(session, method, url, **kwargs)
        check(data)
        took.append(ms)
    return took


def raw_series(session: requests.Session, url: str, runs: int, method: str = "GET", **kwargs: Any) -> tuple[list[float], int]:
    """Time to the reply's last byte (the client does not parse it)."""
    took, size = [], 0
    for i in range(runs + 1):
        started = time.perf_counter()
        reply = session.request(method, url, timeout=120, **kwargs)
        size = len(reply.content)
        assert reply.status_code == 200, reply.text[:300]
        if i:
            took.append((time.perf_counter() - started) * 1000)
    return took, size


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=10_000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--dense", type=int, default=3, help="vehicles with a fix every 10 s (the measured ones)")
    p.add_argument("--background-interval-s", type=float, default=1800.0, help="fix interval of every other vehicle")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--explain", action="store_true")
    p.add_argument("--alarm-extras", action="store_true", help="realistic extras and 2 active-safety items an hour on the measured vehicles")
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply

    procs: list[Any] = []
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    day = end - timedelta(days=2)
    with tempfile.TemporaryDirectory(prefix="track-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            loaded = load(pg.url, args.vehicles, args.days, args.dense, args.background_interval_s, end, args.alarm_extras)
            car = loaded["measured"][0]
            if args.explain:
                explain(pg.url, car.device_id, day, end, args.days)
            base = start_api(procs, pg.url, workdir)
            session = requests.Session()
            session.headers.update({"Authorization": f"Bearer {token(base)}"})
            load_before = os.getloadavg()[0]
            rows: list[list[Any]] = []
            ms = lambda at: int(at.timestamp() * 1000)  # noqa: E731
            track_url = f"{base}/api/gps/car/{car.car_id}/track.json"
            day_query = {"start": ms(day), "end": ms(day + timedelta(days=1)), "isParent": "true"}

            def day_check(data: Any) -> None:
                assert data["returned"] == data["total"] == 8640, (data["total"], data["returned"])

            took = series(session, "GET", track_url, args.runs, day_check, params={**day_query, "maxPoints": 0})
            rows.append(["(a) day of one vehicle, 8,640 points: track.json?maxPoints=0", took, "p99 <= 200 ms"])

            body = {"deviceId": car.device_id, "rangeConditions": [
                {"fieldName": "time", "start": ms(day), "end": ms(day + timedelta(days=1)) - 1, "type": "closedOpen"}]}
            took = series(session, "POST", f"{base}/api/common/query/gps.json", max(10, args.runs // 2),
                          lambda data: None, params={"pageSize": 10000, "isParent": "true"}, json=body)
            rows.append(["(a) before: the same day via POST /api/common/query/gps.json", took, "(old path)"])

            def last_check(data: Any) -> None:
                assert len(data["rows"]) == args.vehicles, len(data["rows"])

            # The API's figure is the request to the reply's last byte; what a client then spends parsing
            # 1.1 MB of JSON is its own (a browser's JSON.parse, Python's json.loads here) and shown apart.
            took, size = raw_series(session, f"{base}/api/gps/last.json", args.runs, "POST", params={"isParent": "true"},
                                    json={})
            rows.append([f"(b) last positions of {args.vehicles:,} vehicles: POST /api/gps/last.json, to the last "
                         f"byte ({size / 1e6:.1f} MB)", took, "p99 <= 50 ms"])
            took = series(session, "POST", f"{base}/api/gps/last.json", args.runs, last_check,
                          params={"isParent": "true"}, json={})
            rows.append(["(b) the same, with the client's json.loads of the reply", took, ""])

            month_query = {"start": ms(end - timedelta(days=args.days)), "end": ms(end), "isParent": "true"}
            returned: list[int] = []

            def month_check(data: Any) -> None:
                assert data["thinned"] and data["total"] == args.days * 8640, data["total"]
                returned.append(data["returned"])

            took = series(session, "GET", track_url, args.runs, month_check, params=month_query)
            rows.append([f"(c) {args.days} days of one vehicle thinned (maxPoints 2000; {returned[-1]:,} of "
                         f"{args.days * 8640:,} points returned)", took, "p99 <= 500 ms"])
            took, size = raw_series(session, f"{base}/api/gps/car/{car.car_id}/track.csv", max(3, args.runs // 10),
                                    params=month_query)
            rows.append([f"(c) {args.days} days as CSV export, every point ({size / 1e6:.1f} MB)", took, ""])
            load_after = os.getloadavg()[0]
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            pg.destroy()
    print(f"vehicles {args.vehicles:,}, {args.days} days: {args.dense} at 10 s"
          f"{' (with alarm extras)' if args.alarm_extras else ''}, the rest every "
          f"{args.background_interval_s:.0f} s = {loaded['rows']:,} gps rows ({loaded['size']}); seed "
          f"{loaded['seed_s']:.0f} s, load {loaded['load_s']:.0f} s ({loaded['rows'] / loaded['load_s']:,.0f} rows/s), "
          f"track day summaries {loaded['summaries']} in {loaded['summarise_s']:.0f} s, "
          f"vacuum {loaded['vacuum_s']:.0f} s; load average {load_before:.2f} -> {load_after:.2f}, "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(tabulate([[label, len(t), round(statistics.median(t), 1), round(percentile(t, 0.99), 1), round(max(t), 1), target]
                    for label, t, target in rows],
                   headers=["what", "requests", "p50 ms", "p99 ms", "max ms", "target"], tablefmt="github"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
