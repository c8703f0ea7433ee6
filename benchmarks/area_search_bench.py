"""Area vehicle search benchmark: ``POST /api/fence/areaSearch.json`` over one day of 1,000 vehicles.

    .venv/bin/python benchmarks/area_search_bench.py [--vehicles 1000] [--interval-s 30] [--requests 30]
        [--before PATH]

Starts a private PostgreSQL (fleet.services.postgres, its own temporary directory and port), applies the
migrations, seeds the demo with ``--vehicles`` terminals and COPYs one day of fixes for each (a fix every
``--interval-s`` seconds: 2,880 a vehicle at 30 s, random drives within 15 km of the simulator's centre),
then serves the real app (``python -m api``, gunicorn + gevent) and signs in as the root ``admin``
(``isParent``: every vehicle). Each case asks ``--requests`` times for the whole 24 h window, one request
after the other (after a warm-up): p50 / p99 / max, the median CPU a request costs the API and PostgreSQL
(their process trees in /proc: the figure that does not depend on the machine's load) and the visits found.
Target p99 <= 2 s.

``--before PATH``: a checkout of the code to compare with (``git worktree add /tmp/area-before main``) serves
the same database from a second API; each case's requests alternate between the two, so both see the same
machine load, and the run stops when their answers (every visit) differ.

Prints a markdown table for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import psycopg  # noqa: E402
import requests  # noqa: E402
from tabulate import tabulate  # noqa: E402

from benchmarks.api_bench import percentile, start_api, token  # noqa: E402

CENTRE = (116.39, 39.91)
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def tree_cpu_s(roots: list[int]) -> float:
    """CPU seconds of the process trees under ``roots`` (from /proc): each live process's own, plus what its
    exited children used (a query's parallel workers), so a request's CPU is the difference around it."""
    parents: dict[int, int] = {}
    own: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            own[int(entry.name)] = sum(int(f) for f in fields[11:15]) * TICK_S
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, list(roots)
    while todo:
        pid = todo.pop()
        total += own.get(pid, 0.0)
        todo.extend(children.get(pid, ()))
    return total
DAY = datetime(2026, 11, 30, tzinfo=UTC)


def cases() -> list[tuple[str, dict[str, Any]]]:
    lng, lat = CENTRE
    return [
        ("circle 500 m at the centre", {"center": [lng, lat], "radius": 500}),
        ("circle 3 km (the demo depot)", {"center": [lng, lat], "radius": 3000}),
        ("rectangle 2 x 2 km", {"topLeft": [lng + 0.03, lat + 0.03], "bottomRight": [lng + 0.053, lat + 0.012]}),
        ("polygon 5 vertices, ~4 km", {"rings": [[[lng + 0.05, lat + 0.03], [lng + 0.1, lat + 0.03],
                                                  [lng + 0.11, lat + 0.055], [lng + 0.07, lat + 0.07],
                                                  [lng + 0.035, lat + 0.055]]]}),
        ("circle 10 km (most of the fleet)", {"center": [lng, lat], "radius": 10_000}),
    ]


def copy_day(url: str, interval_s: float) -> int:
    """One day of random drives for every demo device, COPYed into gps: how many rows."""
    rng = np.random.default_rng(25)
    steps = int(86400 / interval_s)
    m_per_deg_lat = 111_320.0
    m_per_deg_lng = m_per_deg_lat * math.cos(math.radians(CENTRE[1]))
    with psycopg.connect(url) as conn:
        devices = conn.execute("SELECT id, car_id, enterprise_id FROM device WHERE car_id IS NOT NULL").fetchall()
        total = 0
        with conn.cursor() as cur, cur.copy("COPY gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                                            " FROM STDIN") as copy:
            for device_id, car_id, enterprise_id in devices:
                r = 15_000 * math.sqrt(rng.random()) * 0.8
                angle = rng.uniform(0, 2 * math.pi)
                heading = rng.uniform(0, 2 * math.pi) + np.cumsum(rng.normal(0, 0.3, steps))
                speed = np.clip(rng.normal(35, 15, steps), 0, 90)  # km/h
                metres = speed / 3.6 * interval_s
                x = r * math.cos(angle) + np.cumsum(metres * np.sin(heading))
                y = r * math.sin(angle) + np.cumsum(metres * np.cos(heading))
                # stay inside 15 km: fold back at the edge
                x = np.where(np.abs(x) > 15_000, np.sign(x) * 30_000 - x, x)
                y = np.where(np.abs(y) > 15_000, np.sign(y) * 30_000 - y, y)
                lngs, lats = CENTRE[0] + x / m_per_deg_lng, CENTRE[1] + y / m_per_deg_lat
                buf = io.StringIO()
                for i in range(steps):
                    at = DAY + timedelta(seconds=i * interval_s)
                    buf.write(f"{device_id}\t{at.isoformat()}\t{car_id}\t{enterprise_id}\t{lngs[i]:.6f}\t"
                              f"{lats[i]:.6f}\t{speed[i]:.1f}\n")
                copy.write(buf.getvalue())
                total += steps
        conn.commit()
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=1000)
    p.add_argument("--interval-s", type=float, default=30.0)
    p.add_argument("--requests", type=int, default=30, help="requests per case")
    p.add_argument("--before", type=Path, help="a checkout to compare with, serving the same data")
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.partitions import ensure_gps_partitions
    from warehouse.seed import seed_demo

    procs: list[Any] = []
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="area-search-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            seed_demo(pg.url, terminals=args.vehicles)
            with psycopg.connect(pg.url) as conn:
                ensure_gps_partitions(conn, DAY.date())
                conn.commit()
            t0 = time.monotonic()
            fixes = copy_day(pg.url, args.interval_s)
            copy_s = time.monotonic() - t0
            with psycopg.connect(pg.url, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE gps")
            apis = {"after": start_api(procs, pg.url, workdir)}
            trees = {"after": [procs[-1].pid]}
            if args.before is not None:
                (workdir / "before").mkdir()
                apis["before"] = start_api(procs, pg.url, workdir / "before", repo=args.before.resolve())
                trees["before"] = [procs[-1].pid]
            postmaster = int((pg.data_dir / "postmaster.pid").read_text().split()[0])
            sessions = {}
            for name, base in apis.items():
                sessions[name] = requests.Session()
                sessions[name].headers["Authorization"] = f"Bearer {token(base)}"
            window = {"startTime": DAY.isoformat(), "endTime": (DAY + timedelta(hours=24)).isoformat()}
            load_before = os.getloadavg()[0]
            for label, geometry in cases():
                body = {"geometry": geometry, **window}
                times: dict[str, list[float]] = {name: [] for name in apis}
                cpu_ms: dict[str, list[float]] = {name: [] for name in apis}
                answers: dict[str, Any] = {}
                for name, base in apis.items():  # warm-up
                    sessions[name].post(f"{base}/api/fence/areaSearch.json", json=body, timeout=120)
                for _ in range(args.requests):
                    for name, base in apis.items():
                        cpu0 = tree_cpu_s([postmaster, *trees[name]])
                        started = time.perf_counter()
                        reply = sessions[name].post(f"{base}/api/fence/areaSearch.json", json=body, timeout=120).json()
                        times[name].append((time.perf_counter() - started) * 1000)
                        cpu_ms[name].append((tree_cpu_s([postmaster, *trees[name]]) - cpu0) * 1000)
                        assert reply["code"] == 0, reply
                        answers[name] = reply["data"]
                if "before" in answers:
                    assert answers["before"] == answers["after"], f"{label}: the answers differ"
                row = [label, answers["after"]["total"]]
                for name in ("before", "after") if "before" in apis else ("after",):
                    row += [f"{percentile(times[name], 0.5):.0f}", f"{percentile(times[name], 0.99):.0f}",
                            f"{max(times[name]):.0f}", f"{percentile(cpu_ms[name], 0.5):.0f}"]
                rows.append(row)
                print(*rows[-1], sep=" | ", file=sys.stderr, flush=True)  # progress on a slow machine
            load_after = os.getloadavg()[0]
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except Exception:
                    proc.kill()
            pg.destroy()
    print(f"vehicles {args.vehicles}, {fixes} fixes in one day (every {args.interval_s:g} s), COPY {copy_s:.0f} s, "
          f"load average {load_before:.1f} -> {load_after:.1f}, {args.requests} requests per case")
    headers = ["area (24 h window)", "visits"]
    for name in ("before", "after") if args.before is not None else ("after",):
        prefix = f"{name} " if args.before is not None else ""
        headers += [f"{prefix}p50 ms", f"{prefix}p99 ms", f"{prefix}max ms", f"{prefix}CPU ms"]
    if args.before is not None:
        print("before: the checkout at", args.before, "; the same visits from both (checked)")
    print(tabulate(rows, headers=headers, tablefmt="github"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
