"""A few closed days of generated history for every vehicle of a database, with their reports built, for
the console's report screens in Chromium (tests/e2e/test_report_pages.py) and the cockpit benchmark.

``build_report_days(url, days, lake_dir)``: the generator of ``make up`` (warehouse.history: positions every
``interval_s``, alarm episodes, ACC / business-state transitions, the online log) over the ``days`` local days
(Asia/Shanghai) before today, for every vehicle with a master terminal and no position in them yet; then the
report build of ``fleet reports build`` (orchestration.cli.run_build) for those days and their months. Today
is left to the live fleet (the simulator's positions and ``device_last`` are not touched).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

REPORT_ZONE = ZoneInfo("Asia/Shanghai")


@dataclass(frozen=True)
class ReportDays:
    first: date
    last: date
    positions: int
    alarms: int
    seconds: float


def build_report_days(url: str, days: int, lake_dir: Path, *, interval_s: float = 300.0,
                      now: datetime | None = None) -> ReportDays:
    """Generates and builds the ``days`` closed local days before today (see the module doc)."""
    import time

    from fleet.settings import ReportSettings
    from orchestration.build import ReportsEnv
    from orchestration.cli import run_build
    from warehouse.db import connect
    from warehouse.history import load_history, vehicles_with_master_device
    from warehouse.history_events import Events

    started = time.monotonic()
    today = (now or datetime.now(UTC)).astimezone(REPORT_ZONE).date()
    first, last = today - timedelta(days=days), today - timedelta(days=1)
    start = datetime(first.year, first.month, first.day, tzinfo=REPORT_ZONE)
    end = datetime(today.year, today.month, today.day, tzinfo=REPORT_ZONE)
    events = Events()
    with connect(url) as conn:
        have = {r[0] for r in conn.execute("SELECT DISTINCT device_id FROM gps WHERE fix_at >= %s AND fix_at < %s",
                                           (start, end))}
        todo = [v for v in vehicles_with_master_device(conn) if v.device_id not in have]
        conn.commit()
        positions = load_history(conn, todo, start, end, interval_s, events=events, update_last=False) if todo else 0
    env = ReportsEnv.from_settings(url, ReportSettings(start_date=first.isoformat()))
    env.lake_dir = lake_dir
    run_build(env, first, last)
    return ReportDays(first, last, positions, len(events.alarms), time.monotonic() - started)
