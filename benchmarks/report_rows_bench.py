"""A report's first rows in the browser (performance target: a report's first rows <= 1 s).

    scripts/build-console.sh && .venv/bin/python benchmarks/report_rows_bench.py
    .venv/bin/python benchmarks/report_rows_bench.py --vehicles 200 --days 7 --rounds 5 --waterfall

Needs the built console (scripts/build-console.sh) and Debian's /usr/bin/chromium.

Setup (as cockpit_bench.py): private PostgreSQL and Kafka in a temporary directory (or FLEET_DATABASE_URL /
FLEET_KAFKA_BOOTSTRAP), the demo seed with ``--vehicles`` terminals, ``--days`` closed days of generated
history built into the report tables; the API under gunicorn serving dashboards/dist; headless Chromium at
1600 x 900 signed in once as ``admin`` (the parent enterprise).

Measured for each report of ``--reports``, each round in a new browser context (cold: no HTTP cache, the
signed-in session copied into its sessionStorage), then reloaded in the same context (warm), from the
navigation's start (performance.timeOrigin) to the next animation frame after the report table's first
data row is in the DOM. ``--waterfall`` prints, for the last cold load of each report, every request the
page made before its first row (start and end in ms, what it was): where the time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import browser_map_bench as bmb  # noqa: E402
from cockpit_bench import session_of  # noqa: E402
from tabulate import tabulate  # noqa: E402

TARGET_MS = 1000.0
REPORTS = ("/report/dailyMileage", "/report/mileage", "/report/online", "/report/alarm", "/report/alarmOverview",
           "/report/kpi")

# The first row of a report table (antd marks data rows .ant-table-row; the empty placeholder is not one),
# stamped at the next animation frame (painted), from the navigation's start.
PAGE_PROBE = """
(() => {
  const b = { row: null };
  window.__reportBench = b;
  let seen = false;
  const check = () => {
    if (seen) return;
    const row = document.querySelector('[data-testid=list-table] tbody tr.ant-table-row');
    if (row) { seen = true; requestAnimationFrame(() => { b.row = performance.now(); }); }
  };
  const start = () => new MutationObserver(check).observe(document.documentElement, { subtree: true, childList: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""

READ_FIGURES = """
() => {
  const b = window.__reportBench;
  const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
  const resources = performance.getEntriesByType('resource').filter((e) => e.startTime < b.row);
  const api = resources.filter((e) => new URL(e.name).pathname.startsWith('/api/'));
  const js = resources.filter((e) => e.name.endsWith('.js'));
  const calls = resources.map((e) => ({ start: e.startTime, end: e.responseEnd,
    what: new URL(e.name).pathname + (new URL(e.name).search ? '?' + new URL(e.name).search.slice(1, 60) : '') }));
  // decodedBodySize: the script bytes the browser parsed before the first row (gzip or not)
  const jsKB = js.reduce((n, e) => n + (e.decodedBodySize || 0), 0) / 1024;
  return { row: b.row, fcp: fcp ? fcp.startTime : null, api: api.length, chunks: js.length, jsKB,
           requests: resources.length,
           apiMs: api.reduce((n, e) => n + (e.responseEnd - e.startTime), 0), calls };
}
"""
MEASURES = ("row", "fcp", "api", "chunks", "jsKB", "requests")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=200)
    p.add_argument("--days", type=int, default=7, help="closed days of generated history built into reports")
    p.add_argument("--interval", type=float, default=1800.0, help="seconds between generated positions")
    p.add_argument("--rounds", type=int, default=5, help="cold loads of each report (each followed by a warm one)")
    p.add_argument("--reports", default=",".join(REPORTS), help="comma list of report paths")
    p.add_argument("--waterfall", action="store_true", help="print the requests before the first row of each report")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    p.add_argument("--json", type=Path, default=None, help="also write every sample as JSON here")
    return p.parse_args(argv)


say = bmb.say


def cold_context(browser: Any, base_url: str, session: list[list[str]]) -> Any:
    context = browser.new_context(base_url=base_url, viewport={"width": 1600, "height": 900}, locale="zh-CN",
                                  timezone_id="Asia/Shanghai")
    context.set_default_timeout(60_000)
    entries = json.dumps(session)
    context.add_init_script(f"(() => {{ const s = {entries}; if (!sessionStorage.length) for (const [k, v] of s)"
                            " sessionStorage.setItem(k, v); })();")
    context.add_init_script(PAGE_PROBE)
    return context


def load(page: Any, path: str, reload: bool = False) -> dict[str, Any]:
    if reload:
        page.reload()
    else:
        page.goto(path)
    page.wait_for_function("() => window.__reportBench && window.__reportBench.row !== null", timeout=60_000)
    figures: dict[str, Any] = page.evaluate(READ_FIGURES)
    return figures


def summary(samples: list[dict[str, Any]], reports: list[str]) -> list[list[Any]]:
    rows = []
    for path in reports:
        for kind in ("cold", "warm"):
            chosen = [s for s in samples if s["page"] == path and s["kind"] == kind]
            if not chosen:
                continue
            row: list[Any] = [path, kind, len(chosen)]
            for measure in MEASURES:
                values = [float(s[measure]) for s in chosen if s[measure] is not None]
                row.append("-" if not values else f"{statistics.median(values):.0f} / {max(values):.0f}")
            rows.append(row)
    return rows


def waterfall(sample: dict[str, Any]) -> str:
    lines = [f"{sample['page']} ({sample['kind']}): first row at {sample['row']:.0f} ms, after"
             f" {sample['requests']} requests ({sample['api']} API calls, {sample['chunks']} scripts,"
             f" {sample['jsKB']:.0f} KB of script)"]
    for call in sorted(sample["calls"], key=lambda c: c["start"]):
        lines.append(f"  {call['start']:7.0f} -> {call['end']:7.0f} ms  {call['what']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from fleet.services._system import free_port
    from tests.e2e.support import ApiProcess, console_build_problem, launch_chromium, sign_in
    from tests.support.report_history import build_report_days

    problem = console_build_problem()
    if problem:
        say(problem)
        return 2
    reports = [r for r in args.reports.split(",") if r]
    samples: list[dict[str, Any]] = []
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="report-rows-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = bmb.start_servers(stack, workdir, args)
        bmb.prepare_fleet(db_url, args.vehicles)
        started = time.monotonic()
        built = build_report_days(db_url, args.days, workdir / "lake", interval_s=args.interval)
        say(f"{args.days} days of history ({built.positions:,} positions, {built.alarms:,} alarms) generated and"
            f" built in {time.monotonic() - started:.0f} s")
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_API_TOKEN_SECRET": secrets.token_urlsafe(32)}
        api = ApiProcess(env, free_port(), workdir / "api.log")
        api.start()
        stack.callback(api.stop)

        playwright = stack.enter_context(sync_playwright())
        browser = launch_chromium(playwright)
        stack.callback(browser.close)
        signing = browser.new_context(base_url=api.base_url, locale="zh-CN", timezone_id="Asia/Shanghai")
        first = signing.new_page()
        sign_in(first, "admin", path="/dashboard/index")
        session = session_of(first)
        signing.close()
        say(f"signed in; {args.rounds} cold + warm loads of {len(reports)} reports")
        errors: list[str] = []
        for round_no in range(args.rounds + 1):  # round 0 warms the API and PostgreSQL, not counted
            for path in reports:
                context = cold_context(browser, api.base_url, session)
                page = context.new_page()
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                for kind in ("cold", "warm"):
                    figures = load(page, path, reload=kind == "warm")
                    if round_no:
                        samples.append({"page": path, "kind": kind, "round": round_no, **figures})
                context.close()
            if round_no:
                last = [s for s in samples if s["round"] == round_no and s["kind"] == "cold"]
                say(f"round {round_no}: first rows " + ", ".join(f"{s['page']} {s['row']:.0f} ms" for s in last))
        load_avg = os.getloadavg()[0]

    if errors:
        print(f"\n{len(errors)} errors in the page, first ones:\n  " + "\n  ".join(errors[:5]))
    print(f"\nreport first rows: {args.vehicles} vehicles, {args.days} days of built reports, 1600x900,"
          f" {os.cpu_count()} CPUs, load {load_avg:.1f}, {datetime.now(UTC):%Y-%m-%d}")
    print("ms from the navigation's start to the first row painted, median / max (api: calls before it;"
          " chunks: scripts loaded before it; jsKB: their decoded size; requests: all requests before it):")
    print(tabulate(summary(samples, reports), headers=["report", "load", "n", *MEASURES], tablefmt="github"))
    if args.waterfall:
        for path in reports:
            cold = [s for s in samples if s["page"] == path and s["kind"] == "cold"]
            if cold:
                print("\n" + waterfall(cold[-1]))
    cold_rows = [float(s["row"]) for s in samples if s["kind"] == "cold"]
    if cold_rows:
        worst = max(cold_rows)
        print(f"\nresult: cold first rows median {statistics.median(cold_rows):.0f} ms, max {worst:.0f} ms"
              f" (target <= {TARGET_MS:.0f} ms: {'holds' if worst <= TARGET_MS else 'missed'})")
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "samples": samples},
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
