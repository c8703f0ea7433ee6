"""The first start's report history is built by Dagster: after the demo seed and its generated days, the
launcher's backfill leaves every daily partition of the seeded days (and their months) materialised in
Dagster's instance by a successful run (not a run-less event written beside Dagster), and the daily
partitions begin at the fleet's first day of data, so the UI lists none as missing."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from fleet.launcher import StackState, prepare_dagster_home, settle_report_start, start_report_backfill
from fleet.settings import ReportSettings
from orchestration.build import DAY_TABLES, MONTH_TABLES
from orchestration.definitions import DAY_JOB, MONTH_JOB, build_definitions
from warehouse.db import connect

warnings.filterwarnings("ignore", category=dg.BetaWarning)
HISTORY_DAYS = 2


@pytest.fixture()
def seeded(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    from tests.support.databases import create_database, drop_database
    from warehouse.history import seed_report_history
    from warehouse.seed import seed_demo

    url = create_database(pg_url, "backfill")
    home = tmp_path / "dagster"
    for name, value in {"FLEET_REPORT_HISTORY_DAYS": str(HISTORY_DAYS), "FLEET_REPORT_DAGSTER_STORAGE": "sqlite",
                        "FLEET_REPORT_DAGSTER_HOME": str(home), "FLEET_REPORT_LAKE_DIR": str(tmp_path / "lake"),
                        "FLEET_DATABASE_URL": url}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FLEET_REPORT_START_DATE", raising=False)
    try:
        seed_demo(url, terminals=3)
        seed_report_history(url, HISTORY_DAYS, 1800.0, recent_days=0)
        yield url, home
    finally:
        drop_database(pg_url, url)


def test_seeded_history_is_materialised_by_dagster_runs_from_its_first_day(seeded: tuple[str, Path]) -> None:
    url, home = seeded
    start = settle_report_start(url)  # what `fleet up` does after the seed
    prepare_dagster_home(ReportSettings(), url)
    thread = start_report_backfill(StackState(database_url=url))
    assert thread is not None
    thread.join(timeout=600)

    settings = ReportSettings()
    assert settings.start_date == start
    defs = build_definitions(settings, db_url=url)
    day_keys = defs.resolve_job_def(DAY_JOB).partitions_def.get_partition_keys()  # type: ignore[union-attr]
    month_keys = defs.resolve_job_def(MONTH_JOB).partitions_def.get_partition_keys()  # type: ignore[union-attr]
    with connect(url) as conn:
        seeded_days = {r[0].isoformat() for r in conn.execute(
            "SELECT DISTINCT (fix_at AT TIME ZONE 'Asia/Shanghai')::date FROM gps")}
    assert seeded_days and seeded_days <= set(day_keys)
    assert day_keys[0] == min(seeded_days)  # no partition before the fleet's data

    with dg.DagsterInstance.from_config(str(home)) as instance:
        for table in DAY_TABLES:
            assert instance.get_materialized_partitions(dg.AssetKey(table)) == set(day_keys), table
        for table in MONTH_TABLES:
            assert instance.get_materialized_partitions(dg.AssetKey(table)) == set(month_keys), table
        events = instance.fetch_materializations(dg.AssetKey("car_day_report"), limit=1000).records
        assert {e.partition_key for e in events} == set(day_keys)
        runs = {e.run_id for e in events}
        assert "" not in runs  # each one written by a run, none beside Dagster
        statuses = {r.dagster_run.status for r in instance.get_run_records(dg.RunsFilter(run_ids=list(runs)))}
        assert statuses == {dg.DagsterRunStatus.SUCCESS}
        assert len(runs) == 1  # the stretch of days is one run, not one process per day
        checks = instance.get_latest_asset_check_evaluation_record(
            dg.AssetCheckKey(dg.AssetKey("car_day_report"), "rows_are_live_vehicles"))  # type: ignore[attr-defined]
        assert checks is not None and checks.run_id in runs
