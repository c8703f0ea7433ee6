"""A report job runs against Dagster's PostgreSQL storage as `fleet up` configures it (dagster-postgres with
the postgresql+psycopg2 URL: with SQLAlchemy 2.1 a plain postgresql:// URL selects psycopg 3 and every event
write fails, docs/reports.md §7)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from fleet.launcher import ensure_dagster_database, prepare_dagster_home
from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.definitions import MONTH_JOB, build_definitions

warnings.filterwarnings("ignore", category=dg.BetaWarning)


@pytest.fixture(scope="module")
def fleet_db(pg_url: str) -> Iterator[str]:
    from tests.support.databases import create_database, drop_database

    url = create_database(pg_url, "dagsterpg")
    try:
        yield url
    finally:
        drop_database(pg_url, url.rsplit("/", 1)[0] + "/" + url.rsplit("/", 1)[1] + "_dagster")
        drop_database(pg_url, url)


def test_a_month_run_and_its_events_are_stored_in_postgresql(fleet_db: str, tmp_path: Path) -> None:
    settings = ReportSettings(dagster_home=str(tmp_path / "dagster"), start_date="2026-09-01")
    home = prepare_dagster_home(settings, fleet_db)
    assert "postgresql+psycopg2://" in (home / "dagster.yaml").read_text()
    assert ensure_dagster_database(fleet_db)  # exists now: nothing to do
    instance = dg.DagsterInstance.from_config(str(home))
    try:
        env = ReportsEnv.from_settings(fleet_db, settings)
        env.lake_dir = tmp_path / "lake"
        job = build_definitions(settings, env=env).resolve_job_def(MONTH_JOB)
        result = job.execute_in_process(partition_key="2026-10-01", instance=instance)
        assert result.success
        runs = instance.get_run_records()
        assert [r.dagster_run.run_id for r in runs] == [result.run_id]
        assert "2026-10-01" in instance.get_materialized_partitions(dg.AssetKey("car_month_report"))
    finally:
        instance.dispose()
