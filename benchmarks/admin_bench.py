"""Administration benchmark: the vehicle list page over 10,000 vehicles, and a
10,000-row spreadsheet import.

    .venv/bin/python benchmarks/admin_bench.py [--vehicles 10000] [--requests 200] [--import-rows 10000]

Starts a private PostgreSQL (fleet.services.postgres, its own temporary directory and port), applies
the migrations, seeds the demo data with ``--vehicles`` terminals (warehouse.seed: one car each), then
serves the real app with gunicorn (``python -m api``, the production command and gevent worker) and
signs in as the demo ``admin`` (root enterprise, ``isParent=true`` sees every vehicle). Client side:

(a) list page: ``POST /api/common/query/carView.json?countable=true&pageNo=N&pageSize=10`` as the
    console's list page asks it: sorted by plate, unfiltered and filtered by ``plateNumber.like``,
    first pages and deep pages (page 1000 of 10,000 rows), ``--requests`` each, one after the other
    (after warm-ups): p50 / p99 / max. Target p99 <= 100 ms.
(b) import: an XLSX of ``--import-rows`` rows of the ``car`` entity when it is importable, else
    ``carModel`` (the report says which), uploaded to ``POST /api/common/import/{entity}.json``; the
    time from upload to the job's ``done`` (polled every 100 ms), and rows created. Target <= 30 s.

Prints a markdown table for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
import requests  # noqa: E402
from openpyxl import Workbook  # noqa: E402
from tabulate import tabulate  # noqa: E402

from benchmarks.api_bench import percentile, start_api, timed, token  # noqa: E402


def list_cases(vehicles: int) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(label, query parameters, body) of the list page requests."""
    last_page = max(1, vehicles // 10)
    base = {"countable": "true", "pageSize": 10, "isParent": "true", "orderBy": "plateNumber"}
    return [
        ("page 1, sorted by plate", {**base, "pageNo": 1}, {}),
        (f"page {last_page // 2}, sorted by plate", {**base, "pageNo": last_page // 2}, {}),
        (f"page {last_page} (deep), sorted by plate, descending", {**base, "pageNo": last_page, "desc": "true"}, {}),
        ("plate like '000' page 1", {**base, "pageNo": 1}, {"plateNumber.like": "000"}),
        ("plate like '1' page 50", {**base, "pageNo": 50}, {"plateNumber.like": "1"}),
        ("plate like '京B' deep page", {**base, "pageNo": max(1, last_page // 3)}, {"plateNumber.like": "京B"}),
    ]


def bench_list(base: str, headers: dict[str, str], vehicles: int, runs: int) -> list[list[Any]]:
    session = requests.Session()
    session.headers.update(headers)
    url = f"{base}/api/common/query/carView.json"
    rows = []
    for label, params, body in list_cases(vehicles):
        for _ in range(5):
            timed(session, "POST", url, params=params, json=body)
        took = []
        total = 0
        for _ in range(runs):
            ms, data = timed(session, "POST", url, params=params, json=body)
            took.append(ms)
            total = data["total"]
        rows.append([f"(a) carView list: {label} (total {total})", runs, statistics.median(took),
                     percentile(took, 0.99), max(took), round(sum(took)), "p99 <= 100 ms"])
    return rows


def import_rows(entity: str, count: int, tag: str) -> list[list[Any]]:
    """Header and ``count`` valid rows for ``entity`` (carModel, or car when declared importable)."""
    if entity == "carModel":
        return [["名称", "编码", "备注"],
                *([f"型号 {tag}-{i}", f"{tag}{i:06d}", f"导入基准 {i}"] for i in range(count))]
    from api.query.entities import WRITABLE
    from api.query.transfer import import_fields

    spec = WRITABLE[entity]
    names = import_fields(spec)
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    values = {
        "plateNumber": lambda i: f"京{letters[i // 100000 % 23]}{tag[:1].upper()}{i:05d}",
        "vin": lambda i: f"LBENCH{tag[:3].upper()}{i:08d}"[:17],
        "plateColor": lambda i: 2,
    }
    required = [n for n in names if spec.fields[n].required and n not in values]
    if required:
        raise SystemExit(f"the benchmark does not know how to fill required car fields: {required}")
    chosen = [n for n in names if n in values]
    return [[spec.fields[n].label or n for n in chosen], *([values[n](i) for n in chosen] for i in range(count))]


def bench_import(base: str, headers: dict[str, str], rows_wanted: int) -> tuple[list[list[Any]], str]:
    from api.query.spreadsheet_contract import IMPORTABLE

    entity = "car" if "car" in IMPORTABLE else "carModel"
    tag = os.urandom(3).hex()
    book = Workbook(write_only=True)
    sheet = book.create_sheet("rows")
    for row in import_rows(entity, rows_wanted, tag):
        sheet.append(row)
    data = io.BytesIO()
    book.save(data)
    size = len(data.getvalue())
    session = requests.Session()
    session.headers.update(headers)
    started = time.perf_counter()
    reply = session.post(f"{base}/api/common/import/{entity}.json", files={"file": ("bench.xlsx", data.getvalue())},
                         timeout=120).json()
    assert reply["code"] == 0, reply
    accepted_ms = (time.perf_counter() - started) * 1000
    job_id = reply["data"]["jobId"]
    while True:
        job = session.get(f"{base}/api/common/import/{entity}/{job_id}.json", timeout=30).json()["data"]
        if job["state"] != "running":
            break
        time.sleep(0.1)
    wall_s = time.perf_counter() - started
    assert job["state"] == "done" and job["created"] == rows_wanted, {k: job[k] for k in job if k != "errors"} | {
        "errors": job["errors"][:5]}
    rows = [[f"(b) import {rows_wanted} {entity} rows (XLSX {size // 1024} KiB): upload answered", 1,
             accepted_ms, "", "", round(accepted_ms), ""],
            [f"(b) import {rows_wanted} {entity} rows: upload to job done ({job['created']} created)", 1,
             wall_s * 1000, "", "", round(wall_s * 1000), "<= 30 s"]]
    return rows, entity


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=10_000)
    p.add_argument("--requests", type=int, default=200, help="requests per list case")
    p.add_argument("--import-rows", type=int, default=10_000)
    args = p.parse_args(argv)

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.seed import seed_demo

    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="admin-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            t0 = time.monotonic()
            seed_demo(pg.url, terminals=args.vehicles)
            seed_s = time.monotonic() - t0
            with psycopg.connect(pg.url, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")  # as autovacuum would have by now on a live system
            base = start_api(procs, pg.url, workdir)
            headers = {"Authorization": f"Bearer {token(base)}"}
            load_before = os.getloadavg()[0]
            rows = bench_list(base, headers, args.vehicles, args.requests)
            imported, entity = bench_import(base, headers, args.import_rows)
            rows += imported
            load_after = os.getloadavg()[0]
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except Exception:
                    proc.kill()
            pg.destroy()
    print(f"vehicles {args.vehicles}, seed {seed_s:.0f} s, import entity {entity}, load average "
          f"{load_before:.2f} -> {load_after:.2f}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(tabulate([[r[0], r[1], *(round(v, 1) if isinstance(v, float) else v for v in r[2:5]), *r[5:]]
                    for r in rows],
                   headers=["what", "requests", "p50 ms", "p99 ms", "max ms", "wall ms (all)", "target"],
                   tablefmt="github"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
