"""The report assets in-process on a hand-computed day (tests/support/report_world.py): figures, checks,
month rollups, the Parquet lake, late data through the sensor, reruns without duplicates, the definitions.

One module-scoped database and lake, materialised once (DAY, the next day, the month) and shared.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.definitions import DAY_JOB, MONTH_JOB, build_definitions
from tests.support.report_world import DAY, EXPECTED, NEXT, World, add_late_fixes, seed_report_world
from warehouse.db import connect
from warehouse.lake import Lake

warnings.filterwarnings("ignore", category=dg.BetaWarning)
SETTINGS = ReportSettings(start_date="2026-09-01")
NOW = datetime(2026, 11, 2, 3, 0, tzinfo=UTC)  # DAY and its month are closed


@pytest.fixture(scope="module")
def world(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, ReportsEnv]]:
    from tests.support.databases import create_database, drop_database

    url = create_database(pg_url, "reports")
    world = seed_report_world(url)
    env = ReportsEnv.from_settings(url, SETTINGS)
    env.lake_dir = tmp_path_factory.mktemp("lake")
    defs = build_definitions(SETTINGS, env=env)
    for key in (DAY.isoformat(), NEXT.isoformat()):
        assert materialize(defs, DAY_JOB, key).success
    assert materialize(defs, MONTH_JOB, "2026-10-01").success
    try:
        yield world, env
    finally:
        drop_database(pg_url, url)


def materialize(defs: dg.Definitions, job: str, key: str) -> dg.ExecuteInProcessResult:
    return defs.resolve_job_def(job).execute_in_process(partition_key=key, instance=dg.DagsterInstance.ephemeral())


def row(url: str, query: str, *params: Any) -> dict[str, Any]:
    with connect(url) as conn:
        cur = conn.execute(query, params)  # type: ignore[arg-type]
        names = [d.name for d in cur.description or []]
        found = cur.fetchone()
    assert found is not None, query
    return dict(zip(names, found, strict=True))


def test_car_day_figures_are_the_hand_computed_ones(world: tuple[World, ReportsEnv]) -> None:
    w, _ = world
    a1 = row(w.url, "SELECT * FROM car_day_report WHERE car_id = %s AND date = 20261015", w.a1.car_id)
    for name, value in EXPECTED["a1"].items():
        if name in a1:
            assert a1[name] == pytest.approx(value), name
    assert a1["runtime_source"] == 1 and a1["active"] and a1["online"] and not a1["provisional"]
    assert a1["enterprise_path"].endswith(f"/{w.a1.enterprise_id}/")
    b2 = row(w.url, "SELECT * FROM car_day_report WHERE car_id = %s AND date = 20261015", w.b2.car_id)
    assert b2["mileage_km"] == pytest.approx(9.0) and b2["mileage_source"] == 2
    assert (b2["trips"], b2["drive_s"], b2["runtime_source"]) == (1, 600, 2)
    nxt = row(w.url, "SELECT mileage_km, trips FROM car_day_report WHERE car_id = %s AND date = 20261016", w.b2.car_id)
    assert nxt["mileage_km"] == pytest.approx(11.0) and nxt["trips"] == 0  # the trip is listed once, on DAY
    trip = row(w.url, "SELECT * FROM trip WHERE car_id = %s", w.b2.car_id)
    assert trip["distance_km"] == pytest.approx(20.0) and trip["duration_s"] == 1260 and trip["date"] == 20261015


def test_device_day_counters_and_enterprise_and_kpi_rows(world: tuple[World, ReportsEnv]) -> None:
    w, _ = world
    dev = row(w.url, "SELECT * FROM device_day_report WHERE device_id = %s AND date = 20261015", w.a1.device_id)
    assert (dev["a1"], dev["adas_1"], dev["a0"], dev["alarm_total"], dev["handled"], dev["active_safety"]) == (
        2, 1, 0, 3, 1, 1)
    assert dev["points"] == 33
    ent = row(w.url, "SELECT * FROM enterprise_day_report WHERE enterprise_id = %s AND date = 20261015",
              w.a1.enterprise_id)
    assert (ent["vehicles"], ent["active_vehicles"], ent["trips"], ent["alarms"]) == (2, 1, 1, 3)
    assert ent["mileage_km"] == pytest.approx(20.0)
    kpi = row(w.url, "SELECT * FROM kpi_enterprise_day WHERE enterprise_id = %s AND date = 20261015",
              w.a1.enterprise_id)
    # A1 online with 33 qualified of 35 points; A3 never reported (not joined); 2 overspeed alarms
    assert (kpi["vehicles"], kpi["online_vehicles"], kpi["qualified_points"], kpi["total_points"]) == (2, 1, 33, 35)
    assert kpi["qualification_rate"] == pytest.approx(33 / 35) and kpi["completeness_rate"] == pytest.approx(1.0)
    assert kpi["overspeed_alarms"] == 2 and kpi["drift_rate"] == 0.0


def test_month_rows_roll_up_the_days(world: tuple[World, ReportsEnv]) -> None:
    w, _ = world
    b2 = row(w.url, "SELECT * FROM car_month_report WHERE car_id = %s AND month = 202610", w.b2.car_id)
    assert b2["mileage_km"] == pytest.approx(20.0) and b2["days"] == 2 and b2["trips"] == 1
    dev = row(w.url, "SELECT a1, alarm_total FROM device_month_report WHERE device_id = %s AND month = 202610",
              w.a1.device_id)
    assert (dev["a1"], dev["alarm_total"]) == (2, 3)
    year = row(w.url, "SELECT mileage_km FROM car_year_report WHERE car_id = %s AND year = 2026", w.a1.car_id)
    assert year["mileage_km"] == pytest.approx(20.0)
    kpi = row(w.url, "SELECT online_vehicles, overspeed_alarms FROM kpi_enterprise_month WHERE enterprise_id = %s"
                     " AND month = 202610", w.a1.enterprise_id)
    assert (kpi["online_vehicles"], kpi["overspeed_alarms"]) == (1, 2)


def test_the_lake_holds_the_day_and_the_month(world: tuple[World, ReportsEnv]) -> None:
    _, env = world
    lake = Lake(env.lake_dir)
    assert Path(lake.path("gps", "day", "2026-10-15")).is_file()
    cars = lake.read("car_day_report")
    assert cars.filter(cars["date"] == 20261015).height == 3
    assert lake.read("car_month_report").height == 3
    assert lake.read("gps").height == 33 + 10 + 11 + 20  # DAY: A1 33, B2 10; the next day B2 11 moving, 20 standing


def test_late_backlog_marks_the_day_and_the_sensor_rebuilds_it_without_duplicates(
        world: tuple[World, ReportsEnv]) -> None:
    w, env = world
    defs = build_definitions(SETTINGS, env=env)
    sensor = defs.resolve_sensor_def("late_positions")
    add_late_fixes(w)
    with dg.build_sensor_context(resources={"reports": env}, cursor=None) as context:
        result = sensor(context)
    assert isinstance(result, dg.SensorResult)
    requests = {(r.job_name, r.partition_key) for r in result.run_requests or []}
    assert requests == {(DAY_JOB, "2026-10-15"), (MONTH_JOB, "2026-10-01")}
    with dg.build_sensor_context(resources={"reports": env}, cursor=result.cursor) as context:
        again = sensor(context)
    assert not again.run_requests  # the cursor moved past the mark
    for job, key in sorted(requests):
        assert materialize(defs, job, key).success
    a3 = row(w.url, "SELECT mileage_km, trips FROM car_day_report WHERE car_id = %s AND date = 20261015", w.a3.car_id)
    assert a3["mileage_km"] == pytest.approx(5.0) and a3["trips"] == 1
    counts = row(w.url, "SELECT (SELECT count(*) FROM car_day_report WHERE date = 20261015) AS days,"
                        " (SELECT count(*) FROM trip) AS trips, (SELECT count(*) FROM report_dirty_day) AS dirty")
    assert counts == {"days": 3, "trips": 3, "dirty": 0}
    month = row(w.url, "SELECT mileage_km FROM car_month_report WHERE car_id = %s AND month = 202610", w.a3.car_id)
    assert month["mileage_km"] == pytest.approx(5.0)


def test_definitions_load_with_schedules_on_local_days(world: tuple[World, ReportsEnv]) -> None:
    _, env = world
    defs = build_definitions(SETTINGS, env=env)
    assert {s.name for s in defs.schedules or []} == {  # type: ignore[union-attr]
        "reports_nightly", "reports_nightly_month", "reports_intraday", "reports_weekly", "notebook_pages_nightly"}
    assert all(s.default_status == dg.DefaultScheduleStatus.RUNNING for s in defs.schedules or [])  # type: ignore[union-attr]
    nightly = defs.resolve_schedule_def("reports_nightly")
    at = datetime(2026, 10, 16, 17, 30, tzinfo=UTC)  # 01:30 on the 17th in Shanghai
    with dg.build_schedule_context(scheduled_execution_time=at) as context:
        request = nightly(context)
    assert isinstance(request, dg.RunRequest) and request.partition_key == "2026-10-16"
    keys = defs.resolve_job_def(DAY_JOB).partitions_def.get_partition_keys(NOW)  # type: ignore[union-attr]
    assert keys[0] == "2026-09-01" and keys[-1] == "2026-11-02"  # today's (provisional) partition exists


def test_fleet_reports_build_builds_days_and_months_and_skips_done_ones(
        world: tuple[World, ReportsEnv], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from orchestration.cli import reports_command

    w, _ = world
    env = {"FLEET_DATABASE_URL": w.url, "FLEET_REPORT_LAKE_DIR": str(tmp_path / "lake"), "DAGSTER_HOME": ""}
    args = ["build", "--since", "2026-10-15", "--until", "2026-10-16"]
    first = CliRunner().invoke(reports_command, args, env=env)
    assert first.exit_code == 0, first.output
    assert "built 2 day(s), skipped 0, 1 month(s)" in first.output
    again = CliRunner().invoke(reports_command, [*args, "--skip-done"], env=env)
    assert "built 0 day(s), skipped 2, 0 month(s)" in again.output, again.output
    assert (tmp_path / "lake" / "car_month_report" / "month=2026-10" / "part-0.parquet").is_file()
    counts = row(w.url, "SELECT count(*) AS n FROM car_day_report WHERE date BETWEEN 20261015 AND 20261016")
    assert counts == {"n": 6}  # three vehicles, two days: rebuilt in place
