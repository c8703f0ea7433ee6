"""When reports are built (times in the report time zone):

- ``reports_nightly`` 01:30: yesterday's day partition, final (late fixes of the evening are in by then);
- ``reports_nightly_month`` 01:45: yesterday's month (on days 1-3 also the month before: late backlogs);
- ``reports_intraday`` every ``intraday_minutes`` 07:00-23:59: today's provisional day partition;
- ``reports_weekly`` Sunday 02:30: the last 8 days again, the safety net behind the late-data sensor.
"""

from datetime import date, datetime, timedelta

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

from fleet.settings import ReportSettings
from orchestration.partitions import month_of

RUNNING = dg.DefaultScheduleStatus.RUNNING  # on from the first start (a schedule is off by default in Dagster)


def _local_day(context: dg.ScheduleEvaluationContext, tz: str) -> date:
    moment = context.scheduled_execution_time or datetime.now()
    from zoneinfo import ZoneInfo

    return moment.astimezone(ZoneInfo(tz)).date()


def build_schedules(settings: ReportSettings, day_job: AssetJob,
                    month_job: AssetJob) -> list[dg.ScheduleDefinition]:
    tz = settings.tz

    @dg.schedule(name="reports_nightly", cron_schedule="30 1 * * *", job=day_job, execution_timezone=tz,
                 default_status=RUNNING)
    def nightly(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        yesterday = (_local_day(context, tz) - timedelta(days=1)).isoformat()
        return dg.RunRequest(run_key=f"nightly-{yesterday}", partition_key=yesterday)

    @dg.schedule(name="reports_nightly_month", cron_schedule="45 1 * * *", job=month_job, execution_timezone=tz,
                 default_status=RUNNING)
    def nightly_month(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest]:
        today = _local_day(context, tz)
        yesterday = today - timedelta(days=1)
        months = {month_of(yesterday.isoformat())}
        if today.day <= 3:
            months.add(month_of((today.replace(day=1) - timedelta(days=1)).isoformat()))
        return [dg.RunRequest(run_key=f"nightly-month-{m}-{today}", partition_key=m) for m in sorted(months)]

    @dg.schedule(name="reports_intraday", cron_schedule=f"*/{settings.intraday_minutes} 7-23 * * *", job=day_job,
                 execution_timezone=tz, default_status=RUNNING)
    def intraday(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        return dg.RunRequest(partition_key=_local_day(context, tz).isoformat(), tags={"provisional": "true"})

    @dg.schedule(name="reports_weekly", cron_schedule="30 2 * * 0", job=day_job, execution_timezone=tz,
                 default_status=RUNNING)
    def weekly(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest]:
        today = _local_day(context, tz)
        days = [(today - timedelta(days=k)).isoformat() for k in range(1, 9)]
        return [dg.RunRequest(run_key=f"weekly-{d}-{today}", partition_key=d) for d in days
                if d >= settings.start_date]

    return [nightly, nightly_month, intraday, weekly]
