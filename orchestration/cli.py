"""``fleet reports build --since DAY [--until DAY]``: report days and their months in one process, without
the Dagster daemon (the first ``fleet up``, a backfill, the tests). Same code as the assets
(``orchestration.build``); when ``DAGSTER_HOME`` names an instance, each built partition is recorded there as
a materialisation, so the Dagster UI shows it done.
"""

import os
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import click

from fleet.settings import ReportSettings, database_url
from orchestration.build import DAY_TABLES, MONTH_TABLES, ReportsEnv, build_day, build_month


@dataclass
class BuildSummary:
    days: list[date] = field(default_factory=list)
    skipped: list[date] = field(default_factory=list)
    months: list[date] = field(default_factory=list)
    seconds: float = 0.0
    failed_checks: list[str] = field(default_factory=list)


def done_days(env: ReportsEnv, first: date, last: date) -> set[date]:
    """Days of the range whose rows are final (not provisional)."""
    from warehouse.db import connect

    with connect(env.database_url) as conn:
        rows = conn.execute("SELECT DISTINCT day FROM car_day_report WHERE day BETWEEN %s AND %s AND NOT provisional",
                            (first, last)).fetchall()
    return {r[0] for r in rows}


def _recorder() -> object | None:
    home = os.environ.get("DAGSTER_HOME")
    if not home or not Path(home).is_dir():
        return None
    import dagster as dg

    return dg.DagsterInstance.get()


def _record(instance: object | None, tables: tuple[str, ...], partition: str) -> None:
    if instance is None:
        return
    import dagster as dg

    for table in tables:
        instance.report_runless_asset_event(  # type: ignore[attr-defined]
            dg.AssetMaterialization(asset_key=table, partition=partition,
                                    metadata={"source": "fleet reports build"}))


def run_build(env: ReportsEnv, first: date, last: date, *, skip_done: bool = False,
              say: object = None) -> BuildSummary:
    """Build ``first..last`` (local days) then their months; ``skip_done``: days with final rows are skipped
    (today is always rebuilt: its rows are provisional)."""
    started = time.monotonic()
    summary = BuildSummary()
    today = env.today()
    last = min(last, today)
    skip = done_days(env, first, last) - {today} if skip_done else set()
    instance = _recorder()
    day = first
    while day <= last:
        if day in skip:
            summary.skipped.append(day)
        else:
            built = build_day(env, day, datetime.now(UTC))
            summary.days.append(day)
            summary.failed_checks += [f"{day} {c.name}: {c.detail}" for c in built.checks if not c.passed]
            _record(instance, DAY_TABLES, day.isoformat())
            if callable(say):
                say(f"reports: {day} in {sum(built.seconds.values()):.1f} s ({built.rows.get('car_day_report', 0)} vehicles)")
        day += timedelta(days=1)
    for month in sorted({d.replace(day=1) for d in summary.days}):
        build_month(env, month)
        summary.months.append(month)
        _record(instance, MONTH_TABLES, month.isoformat())
    summary.seconds = time.monotonic() - started
    return summary


@click.group("reports")
def reports_command() -> None:
    """Reports: build report days and months (the Dagster daemon does it on schedule)."""


@reports_command.command("build")
@click.option("--since", "since", required=True, help="first local day, YYYY-MM-DD")
@click.option("--until", "until", default=None, help="last local day, YYYY-MM-DD (default: today)")
@click.option("--skip-done", is_flag=True, help="skip the days whose rows are final already")
def build_command(since: str, until: str | None, skip_done: bool) -> None:
    """Materialise the report days SINCE..UNTIL and their months in this process."""
    settings = ReportSettings()
    env = ReportsEnv.from_settings(database_url(), settings)
    first = date.fromisoformat(since)
    last = date.fromisoformat(until) if until else env.today()
    summary = run_build(env, first, last, skip_done=skip_done, say=click.echo)
    click.echo(f"built {len(summary.days)} day(s), skipped {len(summary.skipped)}, {len(summary.months)} month(s)"
               f" in {summary.seconds:.1f} s")
    for line in summary.failed_checks:
        click.echo(f"check failed: {line}", err=True)
