"""Every analyst notebook runs (nbclient, the venv's python3 kernel) against a small lake made by materialising
the report assets (Dagster, in-process) on generated history: 6 demo vehicles x 2 days of warehouse.history
positions with their alarms and state logs, plus the hand-computed world's day (tests/support/report_world.py,
for exact figures); ``fleet sql`` reads the same lake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import nbformat
import pytest
from click.testing import CliRunner
from nbclient import NotebookClient

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.definitions import DAY_JOB, MONTH_JOB, build_definitions
from tests.support.report_world import DAY, NEXT, local, seed_report_world
from warehouse.db import connect
from warehouse.history import load_history, vehicles_with_master_device
from warehouse.history_events import Events
from warehouse.lake import sql_command

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


@pytest.fixture(scope="module")
def lake(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from tests.support.databases import create_database, drop_database

    url = create_database(pg_url, "notebooks")
    try:
        world = seed_report_world(url)  # terminals 1-3 (A1's day is exact); the generated ones follow
        from warehouse.seed import seed_demo

        seed_demo(url, terminals=6)
        with connect(url) as conn:
            generated = [v for v in vehicles_with_master_device(conn)
                         if v.device_id not in (world.a1.device_id, world.b2.device_id, world.a3.device_id)]
            conn.commit()
            load_history(conn, generated, local(0), local(0, day=NEXT + (NEXT - DAY)), 60, events=Events())
        settings = ReportSettings(start_date="2026-10-01")
        env = ReportsEnv.from_settings(url, settings)
        env.lake_dir = tmp_path_factory.mktemp("lake")
        defs = build_definitions(settings, env=env)
        for job, key in ((DAY_JOB, DAY.isoformat()), (DAY_JOB, NEXT.isoformat()), (MONTH_JOB, "2026-10-01")):
            assert defs.resolve_job_def(job).execute_in_process(
                partition_key=key, instance=dg.DagsterInstance.ephemeral()).success
        yield env.lake_dir
    finally:
        drop_database(pg_url, url)


@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_notebook_runs_without_error(name: str, lake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLEET_REPORT_LAKE_DIR", str(lake))
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(not cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), "outputs not stripped"
    NotebookClient(book, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()  # raises on any cell error
    images = [o for c in book.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, "every notebook draws at least one chart"


def test_fleet_sql_queries_the_lake(lake: Path) -> None:
    result = CliRunner().invoke(sql_command, ["--lake", str(lake), "--csv",
                                              "SELECT day, round(sum(mileage_km), 1) AS km FROM car_day_report"
                                              " GROUP BY day ORDER BY day"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "day,km" and [line.split(",")[0] for line in lines[1:]] == ["2026-10-15", "2026-10-16"]
    exact = CliRunner().invoke(sql_command, ["--lake", str(lake), "--csv", "SELECT mileage_km FROM car_day_report"
                                             " WHERE day = DATE '2026-10-15' AND plate_number = '京B·00001'"])
    assert exact.output.splitlines() == ["mileage_km", "20.0"], exact.output  # the hand-computed vehicle
    bad = CliRunner().invoke(sql_command, ["--lake", str(lake), "SELECT * FROM nowhere"])
    assert bad.exit_code != 0 and "nowhere" in bad.output
