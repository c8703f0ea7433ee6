"""Backfill of the report partitions as Dagster runs (the first ``fleet up`` builds its generated history so).

``backfill_reports(instance, settings, env, first, last)``: every daily partition of ``first..last`` that the
instance does not hold as materialised (and today's, always: it is provisional) and their months, as runs of
the report jobs over contiguous partition ranges (the assets' ``BackfillPolicy.single_run()``: one run and
one process for a stretch of days, not one per day). The runs, their asset checks and each partition's
materialisation are in the instance, so the Dagster UI shows the history as built by Dagster, with its
runs, and nothing it did not build.

``first_report_day(database_url, reports)``: where the daily partitions start: a partition before the
fleet's first day of data would show as missing in the UI for ever.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import dagster as dg
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.definitions import DAY_JOB, MONTH_JOB, build_definitions
from orchestration.notebooks import NOTEBOOK_JOB
from orchestration.partitions import month_of
from warehouse.db import connect

BACKFILL_TAG = "fleet/backfill"


@dataclass
class BackfillSummary:
    days: list[str] = field(default_factory=list)
    months: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    failed_run_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0


def first_report_day(database_url: str, reports: ReportSettings, today: date) -> date:
    """The first local day of the fleet's data: its earliest report day or its earliest position within the
    generated history's reach (``history_days`` + 2 days back; looked up day by day, so only the first
    days with data are scanned), today when there is neither; never before ``reports.start_date``."""
    zone = ZoneInfo(reports.tz)
    found: list[date] = []
    with connect(database_url) as conn:
        row = conn.execute("SELECT min(day) FROM car_day_report").fetchone()
        if row and row[0] is not None:
            found.append(row[0])
        day, limit = today - timedelta(days=reports.history_days + 2), min([today, *found])
        while day <= limit:
            start = datetime(day.year, day.month, day.day, tzinfo=zone)
            fix = conn.execute("SELECT min(fix_at) FROM gps WHERE fix_at >= %s AND fix_at < %s",
                               (start, start + timedelta(days=1))).fetchone()
            if fix and fix[0] is not None:
                found.append(fix[0].astimezone(zone).date())
                break
            day += timedelta(days=1)
    return max(date.fromisoformat(reports.start_date), min(found, default=today))


def ranges(keys: Sequence[str], wanted: list[str]) -> list[tuple[str, str]]:
    """``wanted`` (a subset of the ordered partition ``keys``) as (first, last) stretches of neighbours."""
    position = {key: i for i, key in enumerate(keys)}
    stretches: list[tuple[str, str]] = []
    previous = -2
    for key in sorted(wanted, key=position.__getitem__):
        if position[key] == previous + 1:
            stretches[-1] = (stretches[-1][0], key)
        else:
            stretches.append((key, key))
        previous = position[key]
    return stretches


def _run(job: dg.JobDefinition, instance: dg.DagsterInstance, first: str, last: str,
         summary: BackfillSummary) -> None:
    tags = {ASSET_PARTITION_RANGE_START_TAG: first, ASSET_PARTITION_RANGE_END_TAG: last, BACKFILL_TAG: "true"}
    result = job.execute_in_process(instance=instance, tags=tags, raise_on_error=False)
    (summary.run_ids if result.success else summary.failed_run_ids).append(result.run_id)


def backfill_reports(instance: dg.DagsterInstance, settings: ReportSettings, env: ReportsEnv,
                     first: date, last: date) -> BackfillSummary:
    """Materialise the missing daily partitions of ``first..last`` (today's always) and their months as
    Dagster runs recorded in ``instance``. A failing run is listed in ``failed_run_ids`` (its error is in
    the instance's event log, seen in the UI); the other stretches still run."""
    started = time.monotonic()
    summary = BackfillSummary()
    defs = build_definitions(settings, env=env)
    day_job, month_job = defs.resolve_job_def(DAY_JOB), defs.resolve_job_def(MONTH_JOB)
    today = env.today().isoformat()
    assert day_job.partitions_def is not None and month_job.partitions_def is not None
    keys = [k for k in day_job.partitions_def.get_partition_keys() if first.isoformat() <= k <= last.isoformat()]
    done = instance.get_materialized_partitions(dg.AssetKey("car_day_report"))
    summary.days = [k for k in keys if k not in done or k == today]
    summary.skipped = [k for k in keys if k not in summary.days]
    for start, end in ranges(keys, summary.days):
        _run(day_job, instance, start, end, summary)
    month_keys = month_job.partitions_def.get_partition_keys()
    summary.months = sorted({month_of(k) for k in summary.days} & set(month_keys))
    for start, end in ranges(month_keys, summary.months):
        _run(month_job, instance, start, end, summary)
    summary.seconds = time.monotonic() - started
    return summary


def render_notebook_pages(instance: dg.DagsterInstance, settings: ReportSettings, env: ReportsEnv) -> bool:
    """The analyst notebooks executed on the lake and rendered (orchestration/notebooks.py) as a run of the
    ``notebook_pages`` job in ``instance``; False when that run failed (its error is in the instance)."""
    job = build_definitions(settings, env=env).resolve_job_def(NOTEBOOK_JOB)
    return job.execute_in_process(instance=instance, raise_on_error=False).success
