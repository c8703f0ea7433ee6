"""Every analyst notebook runs (nbclient, the venv's python3 kernel) against a small lake built by the report
code from the hand-computed world (tests/support/report_world.py), and ``fleet sql`` reads the same lake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbclient import NotebookClient

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv
from orchestration.cli import run_build
from tests.support.report_world import DAY, NEXT, seed_report_world
from warehouse.lake import sql_command

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


@pytest.fixture(scope="module")
def lake(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from tests.e2e.support import create_database, drop_database

    url = create_database(pg_url, "notebooks")
    try:
        seed_report_world(url)
        env = ReportsEnv.from_settings(url, ReportSettings())
        env.lake_dir = tmp_path_factory.mktemp("lake")
        summary = run_build(env, DAY, NEXT)
        assert summary.days == [DAY, NEXT] and not summary.failed_checks
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
    assert result.output.splitlines() == ["day,km", "2026-10-15,29.0", "2026-10-16,11.0"]
    bad = CliRunner().invoke(sql_command, ["--lake", str(lake), "SELECT * FROM nowhere"])
    assert bad.exit_code != 0 and "nowhere" in bad.output
