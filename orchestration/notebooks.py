"""``analyst_notebooks``: the notebooks of ``notebooks/`` executed on the lake and rendered to HTML
(``warehouse.notebook_pages``), so the console shows them with their charts. One unpartitioned asset after the
report tables, its job ``notebook_pages`` and a nightly schedule after the reports (02:15 local); the first
``fleet up`` runs it after its backfill (orchestration/backfill.py)."""

from pathlib import Path

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

from orchestration.build import ReportsEnv
from orchestration.resources import RESOURCE_KEY

NOTEBOOK_JOB = "notebook_pages"


def notebook_asset(pages_dir: Path) -> dg.AssetsDefinition:
    @dg.asset(name="analyst_notebooks", group_name="analysis", required_resource_keys={RESOURCE_KEY},
              deps=[dg.AssetDep("car_day_report"), dg.AssetDep("kpi_enterprise_day"), dg.AssetDep("trip")],
              description="the analyst notebooks executed on the lake, rendered to HTML for the console")
    def analyst_notebooks(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        """Fails when a notebook fails (its previous page stays served; the error is in the index)."""
        from warehouse.notebook_pages import render_notebooks

        env: ReportsEnv = getattr(context.resources, RESOURCE_KEY)
        pages = render_notebooks(env.lake_dir, pages_dir)
        failed = [f"{p.name}: {p.error}" for p in pages if p.error]
        if failed:
            raise dg.Failure(description="notebooks failed: " + "; ".join(failed))
        return dg.MaterializeResult(metadata={"pages": dg.MetadataValue.int(len(pages)),
                                              "folder": dg.MetadataValue.path(str(pages_dir))})

    return analyst_notebooks


def notebook_schedule(job: AssetJob, tz: str) -> dg.ScheduleDefinition:
    return dg.ScheduleDefinition(name="notebook_pages_nightly", cron_schedule="15 2 * * *", job=job,
                                 execution_timezone=tz, default_status=dg.DefaultScheduleStatus.RUNNING)
