"""`fleet up` runs Dagster as two supervised services with its home under var/."""

from __future__ import annotations

from pathlib import Path

import yaml

from fleet import launcher
from fleet.settings import ReportSettings, StackSettings, report_dagster_home, report_lake_dir


def test_dagster_webserver_and_daemon_load_the_reports_definitions_on_the_documented_port() -> None:
    specs = {s.name: s for s in launcher.dagster_specs(ReportSettings(dagster_port=3999))}
    web, daemon = specs["dagster-webserver"], specs["dagster-daemon"]
    assert web.argv[-4:] == ["-p", "3999", "-m", "orchestration.definitions"] and web.port == 3999
    assert web.port_env == "FLEET_REPORT_DAGSTER_PORT" and web.health.http_url == "http://127.0.0.1:3999/server_info"
    assert daemon.argv[1:] == ["run", "-m", "orchestration.definitions"]
    assert not web.missing_reason() and not daemon.missing_reason()
    assert launcher.dagster_specs(ReportSettings(dagster_enabled=False)) == []


def test_dagster_home_is_under_var_with_telemetry_off_and_one_run_at_a_time(tmp_path: Path) -> None:
    stack = StackSettings(var_dir=tmp_path)
    assert report_dagster_home(ReportSettings(), stack) == tmp_path / "dagster"
    assert report_lake_dir(ReportSettings(), stack) == tmp_path / "lake"
    home = launcher.prepare_dagster_home(ReportSettings(dagster_home=str(tmp_path / "dh"), dagster_storage="sqlite"))
    config = yaml.safe_load((home / "dagster.yaml").read_text())
    assert config["telemetry"] == {"enabled": False}
    assert config["run_coordinator"]["config"] == {"max_concurrent_runs": 1}
    assert "storage" not in config  # SQLite under the home


def test_postgres_storage_is_a_psycopg2_url_to_a_database_beside_the_fleet_s() -> None:
    url = "postgresql://fleet@127.0.0.1:55432/fleet"
    assert launcher.dagster_database_url(url) == "postgresql+psycopg2://fleet@127.0.0.1:55432/fleet_dagster"
    assert launcher.dagster_database_url("postgresql+psycopg://u:p@h:1/db?sslmode=require") == (
        "postgresql+psycopg2://u:p@h:1/db_dagster?sslmode=require")
    config = yaml.safe_load(launcher.dagster_yaml(ReportSettings(), url))
    assert config["storage"] == {"postgres": {"postgres_url": launcher.dagster_database_url(url)}}
