"""``build_definitions(settings, database_url)``: the reports' Dagster ``Definitions``; ``defs`` is what
``dagster-webserver -m orchestration.definitions`` and ``dagster-daemon run -m orchestration.definitions``
load (built when Dagster loads the code location, from the environment then: FLEET_DATABASE_URL,
FLEET_REPORT_*).

Jobs run in-process, one at a time (``var/dagster/dagster.yaml``: the queued run coordinator with
``max_concurrent_runs: 1``), so a report run never takes both cores from ingest.
"""

import dagster as dg

from fleet.settings import ReportSettings, database_url, report_notebook_pages_dir
from orchestration.assets import daily_assets, monthly_assets
from orchestration.build import ReportsEnv
from orchestration.notebooks import NOTEBOOK_JOB, notebook_asset, notebook_schedule
from orchestration.partitions import daily, monthly
from orchestration.resources import RESOURCE_KEY
from orchestration.schedules import build_schedules
from orchestration.sensors import build_sensor

DAY_JOB, MONTH_JOB = "reports_day", "reports_month"


def build_definitions(settings: ReportSettings | None = None, db_url: str | None = None,
                      env: ReportsEnv | None = None) -> dg.Definitions:
    settings = settings or ReportSettings()
    env = env or ReportsEnv.from_settings(db_url or database_url(), settings)
    day_assets = daily_assets(daily(settings))
    month_assets = monthly_assets(monthly(settings))
    day_job = dg.define_asset_job(DAY_JOB, selection=dg.AssetSelection.assets(day_assets),
                                  executor_def=dg.in_process_executor)
    month_job = dg.define_asset_job(MONTH_JOB, selection=dg.AssetSelection.assets(month_assets),
                                    executor_def=dg.in_process_executor)
    pages = notebook_asset(report_notebook_pages_dir(settings))
    pages_job = dg.define_asset_job(NOTEBOOK_JOB, selection=dg.AssetSelection.assets(pages),
                                    executor_def=dg.in_process_executor)
    return dg.Definitions(
        assets=[day_assets, month_assets, pages],
        jobs=[day_job, month_job, pages_job],
        schedules=[*build_schedules(settings, day_job, month_job), notebook_schedule(pages_job, settings.tz)],
        sensors=[build_sensor(settings, day_job, month_job)],
        resources={RESOURCE_KEY: env},
    )


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions()
