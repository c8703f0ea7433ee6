"""Every analyst notebook runs (nbclient, the venv's python3 kernel) against a small lake made by materialising
the report assets (Dagster, in-process) on generated history: 6 demo vehicles x 2 days of warehouse.history
positions with their alarms and state logs, plus the hand-computed world's day (tests/support/report_world.py,
for exact figures); ``fleet sql`` reads the same lake. One notebook is rendered to its HTML page (titles and
labels in zh-CN, enterprises by name, charts embedded) and the JupyterLab of ``fleet up`` answers on loopback
only, and only with its token."""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import nbformat
import polars as pl
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


def test_rendered_page_has_the_product_title_enterprise_names_and_a_chart(lake: Path, tmp_path: Path) -> None:
    from warehouse.notebook_pages import read_index, render_notebooks

    names = set(pl.read_parquet(lake / "car_day_report" / "*" / "part-0.parquet")["enterprise_name"].drop_nulls())
    pages = render_notebooks(lake, tmp_path, names=["fleet_mileage_utilisation"])  # one small case, not all four
    assert [(p.name, p.title, p.error) for p in pages] == [("fleet_mileage_utilisation", "车队里程与出车率", "")]
    assert read_index(tmp_path) == pages
    html = (tmp_path / "fleet_mileage_utilisation.html").read_text(encoding="utf-8")
    assert "<title>车队里程与出车率</title>" in html
    assert names and all(name in html for name in names)  # enterprises by name
    assert "出车率" in html and "企业" in html  # the product's words on the page
    charts = [base64.b64decode(b) for b in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=\n]+)"', html)]
    assert len([c for c in charts if len(c) > 5000]) >= 2  # the charts are in the page, nothing to fetch
    assert "<script" not in html.lower()  # a static page


def test_a_failing_notebook_keeps_the_others_and_says_why(lake: Path, tmp_path: Path) -> None:
    from warehouse.notebook_pages import render_notebooks

    folder = tmp_path / "books"
    folder.mkdir()
    good = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('ok')")])
    good.metadata["title"] = "好"
    bad = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")])
    nbformat.write(good, folder / "good.ipynb")
    nbformat.write(bad, folder / "bad.ipynb")
    pages = {p.name: p for p in render_notebooks(lake, tmp_path / "out", folder)}
    assert pages["good"].title == "好" and not pages["good"].error
    assert "ZeroDivisionError" in pages["bad"].error and not (tmp_path / "out" / "bad.html").exists()


def test_notebook_server_listens_on_loopback_only_and_wants_its_token(lake: Path, tmp_path: Path) -> None:
    import socket
    import subprocess
    import time
    import urllib.error
    import urllib.request

    from fleet.notebook_server import notebook_server_specs, notebook_token, server_env, write_server_config
    from fleet.settings import StackSettings
    from tests.support.ports import free_port, port_answers

    port = free_port()
    stack = StackSettings(var_dir=tmp_path / "var")
    env = {"FLEET_STACK_VAR_DIR": str(stack.var_dir), "FLEET_REPORT_NOTEBOOK_SERVER_PORT": str(port),
           "FLEET_REPORT_LAKE_DIR": str(lake)}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        spec = notebook_server_specs()[0]
        write_server_config()  # what `fleet up` does before starting its children
        child_env = {**os.environ, **server_env()}
    token = notebook_token(stack)
    assert token not in " ".join(spec.argv)  # never on the command line (the process list)
    assert oct((stack.var_dir / "notebooks.token").stat().st_mode & 0o777) == "0o600"
    proc = subprocess.Popen(spec.argv, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=tmp_path)
    try:
        deadline = time.monotonic() + 90
        while not port_answers(port) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert port_answers(port), "JupyterLab did not start"
        listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
        assert listening.split() and all(w.startswith("127.0.0.1:") for w in listening.split() if f":{port}" in w)
        outside = socket.gethostbyname(socket.gethostname())
        if not outside.startswith("127."):
            with pytest.raises(OSError):
                socket.create_connection((outside, port), timeout=2).close()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents", timeout=10)
        assert refused.value.code == 403
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/contents",
                                         headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            listed = {item["name"] for item in json.loads(reply.read())["content"]}
        assert "fleet_mileage_utilisation.ipynb" in listed  # the notebooks folder is its root
    finally:
        proc.terminate()
        proc.wait(timeout=30)
