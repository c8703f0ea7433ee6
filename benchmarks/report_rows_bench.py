"""A report's first rows in the browser (performance target: a report's first rows <= 1 s).

    scripts/build-console.sh && .venv/bin/python benchmarks/report_rows_bench.py
    .venv/bin/python benchmarks/report_rows_bench.py --vehicles 200 --days 7 --rounds 5 --waterfall
    .venv/bin/python benchmarks/report_rows_bench.py --before-dist /tmp/dist-before --profile 20
    .venv/bin/python benchmarks/report_rows_bench.py --reports /report/dailyMileage --rounds 1 --trace /tmp/load.json

Needs the built console (scripts/build-console.sh) and Debian's /usr/bin/chromium.

Setup (as cockpit_bench.py): private PostgreSQL and Kafka in a temporary directory (or FLEET_DATABASE_URL /
FLEET_KAFKA_BOOTSTRAP), the demo seed with ``--vehicles`` terminals, ``--days`` closed days of generated
history built into the report tables; the API under gunicorn serving dashboards/dist; headless Chromium at
1600 x 900 signed in once as ``admin`` (the parent enterprise).

Measured for each report of ``--reports``, each round in a new browser context (cold: no HTTP cache, the
signed-in session copied into its sessionStorage), then reloaded in the same context (warm), from the
navigation's start (performance.timeOrigin) to the next animation frame after the report table's first
data row is in the DOM. ``--waterfall`` prints, for the last cold load of each report, every request the
page made before its first row (start and end in ms, what it was): where the time goes. ``--trace`` records
Chromium's timeline of one more cold load and prints what the page's main thread did before the first row,
by kind and by 100 ms: where it was busy, and where it waited (a timer, a script still being parsed).
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
from collections import Counter
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
  const b = { row: null, start: 0 };
  window.__reportBench = b;
  let seen = false;
  // --navigate: the next first row is timed from an in-app navigation starting now
  b.reset = () => { seen = false; b.row = null; b.start = performance.now(); };
  const check = () => {
    if (seen) return;
    const row = document.querySelector('[data-testid=list-table] tbody tr.ant-table-row');
    if (row) { seen = true; requestAnimationFrame(() => { b.row = performance.now() - b.start; }); }
  };
  const start = () => new MutationObserver(check).observe(document.documentElement, { subtree: true, childList: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""

READ_FIGURES = """
() => {
  const b = window.__reportBench;
  const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
  const resources = performance.getEntriesByType('resource')
    .filter((e) => e.startTime >= b.start && e.startTime < b.start + b.row);
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
    p.add_argument("--before-dist", type=Path, default=None, metavar="DIR",
                   help="also serve this other build of the console (a copy of dashboards/dist before a change) from a"
                        " second API on the same database, and load each report from both in every round, in"
                        " alternating order: before and after measured under the same machine load")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="after the rounds, profile one more cold load of the first report (V8's sampling profiler"
                        " over CDP) and print the N functions and the scripts with the most self time before its"
                        " first row")
    p.add_argument("--navigate", action="store_true",
                   help="also open each report from the dashboard index as a menu link does (the router's"
                        " navigation, no page load), in a new context after the warm load, timed from the"
                        " navigation to the first row painted: the report's code is not in yet, as when a user"
                        " opens it from the menu")
    p.add_argument("--trace", type=Path, default=None, metavar="FILE",
                   help="after the rounds, record Chromium's timeline of one more cold load of the first report into"
                        " FILE (open it in chrome://tracing or Perfetto) and print the renderer main thread's work"
                        " before the first row by kind (script, parse and compile, style, layout, paint) and by"
                        " 100 ms of the load")
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


# The router follows history's popstate (react-router's BrowserRouter), as it follows a link's pushState.
NAVIGATE = """
(path) => { window.__reportBench.reset(); history.pushState({}, '', path); dispatchEvent(new PopStateEvent('popstate')); }
"""


def navigate(page: Any, path: str) -> dict[str, Any]:
    """The first row of ``path`` opened in the running console from the dashboard index by the router."""
    page.goto("/dashboard/index")
    page.wait_for_selector("[data-testid=menu]", timeout=60_000)  # the full shell: the first content is in
    page.wait_for_timeout(500)
    page.evaluate(NAVIGATE, path)
    page.wait_for_function("() => window.__reportBench && window.__reportBench.row !== null", timeout=60_000)
    figures: dict[str, Any] = page.evaluate(READ_FIGURES)
    return figures


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
    builds = sorted({s["build"] for s in samples}, reverse=True)  # "this", or "before" then "after"
    for path in reports:
        for kind, build in [(k, b) for k in ("cold", "warm", "navigate") for b in builds]:
            chosen = [s for s in samples if s["page"] == path and s["kind"] == kind and s["build"] == build]
            if not chosen:
                continue
            row: list[Any] = [path, kind if build == "this" else f"{kind} {build}", len(chosen)]
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


def profile_cold_load(browser: Any, base_url: str, session: list[list[str]], path: str) -> dict[str, Any]:
    """One cold load of ``path`` under V8's sampling profiler (100 µs), stopped at the first row. The page
    first opens a file of the same origin, so the navigation to ``path`` stays in the profiled renderer."""
    context = cold_context(browser, base_url, session)
    page = context.new_page()
    page.goto("/favicon.svg")
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 100})
    cdp.send("Profiler.start")
    figures = load(page, path)
    profile = cdp.send("Profiler.stop")["profile"]
    context.close()
    return {"figures": figures, "profile": profile}


def profile_tables(profile: dict[str, Any], top: int) -> str:
    """Self time (ms) by function and by script of a CDP CPU profile, the largest first."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    by_function: dict[str, float] = {}
    by_script: dict[str, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]
        script = frame["url"].rsplit("/", 1)[-1] or "-"
        name = f"{frame['functionName'] or '(anonymous)'} {script}:{frame['lineNumber'] + 1}"
        by_function[name] = by_function.get(name, 0.0) + delta / 1000
        by_script[script if frame["url"] else frame["functionName"]] = (
            by_script.get(script if frame["url"] else frame["functionName"], 0.0) + delta / 1000)
    total = sum(by_script.values())
    lines = [f"profiled {total:.0f} ms of the main thread; self time by script:"]
    lines += [f"  {ms:7.1f} ms  {name}" for name, ms in sorted(by_script.items(), key=lambda i: -i[1])[:top]]
    lines.append("self time by function:")
    lines += [f"  {ms:7.1f} ms  {name}" for name, ms in sorted(by_function.items(), key=lambda i: -i[1])[:top]]
    return "\n".join(lines)


# The renderer main thread's top-level events of a timeline, named by what they do (Chromium's trace event names).
TRACE_KINDS = {
    "EvaluateScript": "script", "v8.evaluateModule": "script", "FunctionCall": "script", "TimerFire": "script",
    "EventDispatch": "script", "FireAnimationFrame": "script", "RunMicrotasks": "script", "v8.run": "script",
    "v8.compile": "parse and compile", "v8.compileModule": "parse and compile", "V8.CompileCode": "parse and compile",
    "v8.parseOnBackground": "parse and compile", "ParseHTML": "parse HTML", "ParseAuthorStyleSheet": "parse CSS",
    "UpdateLayoutTree": "style", "RecalculateStyles": "style", "Layout": "layout", "UpdateLayerTree": "paint",
    "Paint": "paint", "PrePaint": "paint", "Layerize": "paint", "Commit": "paint", "GC": "garbage collection",
    "MinorGC": "garbage collection", "MajorGC": "garbage collection", "V8.GC_SCAVENGER": "garbage collection",
}


def trace_cold_load(browser: Any, base_url: str, session: list[list[str]], path: str, out: Path) -> dict[str, Any]:
    """One cold load of ``path`` recorded with Chromium's timeline categories into ``out``."""
    context = cold_context(browser, base_url, session)
    page = context.new_page()
    page.goto("/favicon.svg")
    browser.start_tracing(page=page, path=str(out), screenshots=False,
                          categories=["devtools.timeline", "v8", "v8.execute", "disabled-by-default-devtools.timeline",
                                      "blink.user_timing", "loading"])
    figures = load(page, path)
    browser.stop_tracing()
    context.close()
    return {"figures": figures, "path": path}


def trace_tables(out: Path, path: str, first_row_ms: float) -> str:
    """The renderer main thread's work before the first row, from a trace: by kind, and by 100 ms of the load.
    Self times: a span's time less its children's counts for its own kind, or its parent's when its name is not
    in TRACE_KINDS (a task's uncounted time is "other")."""
    data = json.loads(out.read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    complete = Counter((e.get("pid"), e.get("tid")) for e in events if e.get("ph") == "X")
    renderers = [(e["pid"], e["tid"]) for e in events
                 if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"]
    if not renderers:
        return "no renderer main thread in the trace"
    main_thread = max(renderers, key=lambda thread: complete[thread])  # the one that ran the page: the busiest
    spans = sorted(((e["ts"], e["ts"] + e["dur"], TRACE_KINDS.get(e["name"], "")) for e in events
                    if (e.get("pid"), e.get("tid")) == main_thread and e.get("ph") == "X" and e.get("dur")),
                   key=lambda span: (span[0], -span[1]))
    # the navigation's start on the trace's clock: the last navigationStart mark of the report's address
    starts = [e["ts"] for e in events if e.get("name") == "navigationStart"
              and path in json.dumps(e.get("args", {}))]
    if not starts:
        return "no navigationStart of the report in the trace"
    origin_us = float(max(starts))
    end_us = origin_us + first_row_ms * 1000.0
    by_kind: dict[str, float] = {}
    buckets: dict[int, dict[str, float]] = {}

    def add(kind: str, start: float, stop: float) -> None:
        start, stop = max(start, origin_us), min(stop, end_us)
        while start < stop:
            bucket = int((start - origin_us) // 100_000)
            edge = min(stop, origin_us + (bucket + 1) * 100_000)
            by_kind[kind] = by_kind.get(kind, 0.0) + (edge - start) / 1000
            row = buckets.setdefault(bucket, {})
            row[kind] = row.get(kind, 0.0) + (edge - start) / 1000
            start = edge

    open_spans: list[list[Any]] = []  # [counted up to, end, kind], outermost first

    def close_until(at: float) -> None:
        """Counts the rest of each open span that ends by ``at``; its parent goes on from its end."""
        while open_spans and open_spans[-1][1] <= at:
            counted, stop, kind = open_spans.pop()
            add(kind, counted, stop)
            if open_spans:
                open_spans[-1][0] = stop

    for start, stop, kind in spans:
        close_until(start)
        if open_spans:  # the parent's own time up to this child
            add(open_spans[-1][2], open_spans[-1][0], start)
            open_spans[-1][0] = start
        open_spans.append([start, stop, kind or (open_spans[-1][2] if open_spans else "other")])
    close_until(float("inf"))
    lines = [f"main thread busy {sum(by_kind.values()):.0f} ms of the {first_row_ms:.0f} ms before the first row:"]
    lines += [f"  {ms:7.1f} ms  {kind}" for kind, ms in sorted(by_kind.items(), key=lambda i: -i[1])]
    kinds = [k for k, _ in sorted(by_kind.items(), key=lambda i: -i[1])][:7]
    lines.append("by 100 ms of the load (ms busy): " + " | ".join(kinds))
    for bucket in sorted(buckets):
        row = buckets[bucket]
        lines.append(f"  {bucket * 100:5d}-{bucket * 100 + 100:<5d} {sum(row.values()):5.0f}  "
                     + "  ".join(f"{row.get(k, 0.0):5.0f}" for k in kinds))
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
        servers = [("this", api.base_url)]
        if args.before_dist:
            before = ApiProcess(env, free_port(), workdir / "api-before.log", console_dir=args.before_dist.resolve())
            before.start()
            stack.callback(before.stop)
            servers = [("before", before.base_url), ("after", api.base_url)]

        playwright = stack.enter_context(sync_playwright())
        browser = launch_chromium(playwright, full=True)
        stack.callback(browser.close)
        signing = browser.new_context(base_url=api.base_url, locale="zh-CN", timezone_id="Asia/Shanghai")
        first = signing.new_page()
        sign_in(first, "admin", path="/dashboard/index")
        session = session_of(first)
        signing.close()
        say(f"signed in; {args.rounds} cold + warm loads of {len(reports)} reports")
        errors: list[str] = []
        for round_no in range(args.rounds + 1):  # round 0 warms the API and PostgreSQL, not counted
            for index, path in enumerate(reports):
                order = servers if (round_no + index) % 2 == 0 else servers[::-1]
                for build, base_url in order:
                    context = cold_context(browser, base_url, session)
                    page = context.new_page()
                    page.on("pageerror", lambda exc: errors.append(str(exc)))
                    for kind in ("cold", "warm", "navigate") if args.navigate else ("cold", "warm"):
                        if kind == "navigate":
                            # a new context: the report's chunks not in the HTTP cache, as before a first visit
                            context.close()
                            context = cold_context(browser, base_url, session)
                            page = context.new_page()
                            page.on("pageerror", lambda exc: errors.append(str(exc)))
                            figures = navigate(page, path)
                        else:
                            figures = load(page, path, reload=kind == "warm")
                        if round_no:
                            samples.append({"page": path, "kind": kind, "round": round_no, "build": build, **figures})
                    context.close()
            if round_no:
                last = [s for s in samples if s["round"] == round_no and s["kind"] == "cold"]
                say(f"round {round_no}: first rows " + ", ".join(
                    f"{s['page']}{'' if s['build'] == 'this' else ' ' + s['build']} {s['row']:.0f} ms" for s in last))
        profiled = [(build, profile_cold_load(browser, base_url, session, reports[0]))
                    for build, base_url in servers] if args.profile else []
        traced = trace_cold_load(browser, servers[-1][1], session, reports[0], args.trace) if args.trace else None
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
            for build, _ in servers:
                cold = [s for s in samples if s["page"] == path and s["kind"] == "cold" and s["build"] == build]
                if cold:
                    print("\n" + ("" if build == "this" else f"[{build}] ") + waterfall(cold[-1]))
    for build, profiled_load in profiled:
        print(f"\nprofile of a cold load of {reports[0]}{'' if build == 'this' else ' (' + build + ')'}"
              f" (first row at {profiled_load['figures']['row']:.0f} ms):")
        print(profile_tables(profiled_load["profile"], args.profile))
    if traced and args.trace:
        print(f"\ntimeline of a cold load of {reports[0]} (first row at {traced['figures']['row']:.0f} ms),"
              f" in {args.trace}:")
        print(trace_tables(args.trace, traced["path"], traced["figures"]["row"]))
    for build, _ in servers:
        cold_rows = [float(s["row"]) for s in samples if s["kind"] == "cold" and s["build"] == build]
        warm_rows = [float(s["row"]) for s in samples if s["kind"] == "warm" and s["build"] == build]
        navigated = [float(s["row"]) for s in samples if s["kind"] == "navigate" and s["build"] == build]
        if cold_rows:
            worst = max(cold_rows)
            print(f"\nresult{'' if build == 'this' else ' ' + build}: cold first rows median"
                  f" {statistics.median(cold_rows):.0f} ms, max {worst:.0f} ms, warm median"
                  f" {statistics.median(warm_rows):.0f} ms (target <= {TARGET_MS:.0f} ms cold:"
                  f" {'holds' if worst <= TARGET_MS else 'missed'})"
                  + (f"; opened from the menu: median {statistics.median(navigated):.0f} ms,"
                     f" max {max(navigated):.0f} ms" if navigated else ""))
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "samples": samples},
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
