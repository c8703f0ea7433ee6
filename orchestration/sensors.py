"""``late_positions``: re-materialise the days (and their months) that late rows landed in.

The position path marks ``report_dirty_day (day, enterprise_id, marked_at)`` in the same transaction as a
late fix of a closed local day (0x0704 backlog, replay). Every ``sensor_interval_s`` the sensor reads the
marks newer than its cursor and asks for one run of each day's partition and one of each month's, keyed by
the newest mark (``run_key``: a burst of marks for one day makes one run). ``AutomationCondition.eager``
cannot do this: it only looks at the latest time partition (docs/reports.md §7).
"""

from datetime import date, datetime

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.partitions import month_of
from warehouse.db import connect


def dirty_days(env: ReportsEnv, after: datetime | None) -> list[tuple[date, datetime]]:
    """(day, newest mark) of the days marked after ``after`` (all when None), oldest day first."""
    with connect(env.database_url) as conn:
        rows = conn.execute(
            "SELECT day, max(marked_at) FROM report_dirty_day WHERE %s::timestamptz IS NULL OR marked_at > %s"
            " GROUP BY day ORDER BY day", (after, after)).fetchall()
    return [(r[0], r[1]) for r in rows]


def build_sensor(settings: ReportSettings, day_job: AssetJob,
                 month_job: AssetJob) -> dg.SensorDefinition:
    start = date.fromisoformat(settings.start_date)

    @dg.sensor(name="late_positions", jobs=[day_job, month_job], minimum_interval_seconds=settings.sensor_interval_s,
               default_status=dg.DefaultSensorStatus.RUNNING)
    def late_positions(context: dg.SensorEvaluationContext, reports: dg.ResourceParam[ReportsEnv]) -> dg.SensorResult:
        env = reports  # the resource named RESOURCE_KEY
        after = datetime.fromisoformat(context.cursor) if context.cursor else None
        marks = dirty_days(env, after)
        if not marks:
            return dg.SensorResult(skip_reason="no late rows")
        today = env.today()
        requests: list[dg.RunRequest] = []
        months: dict[str, datetime] = {}
        for day, marked in marks:
            if not start <= day < today:
                continue
            key = day.isoformat()
            requests.append(dg.RunRequest(job_name=day_job.name, partition_key=key, run_key=f"{key}@{marked.isoformat()}"))
            month = month_of(key)
            months[month] = max(marked, months.get(month, marked))
        requests += [dg.RunRequest(job_name=month_job.name, partition_key=m, run_key=f"{m}@{marked.isoformat()}")
                     for m, marked in sorted(months.items())]
        newest = max(marked for _, marked in marks)
        return dg.SensorResult(run_requests=requests, cursor=newest.isoformat())

    return late_positions
