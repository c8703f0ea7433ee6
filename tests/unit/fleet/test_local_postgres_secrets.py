"""The stack's own PostgreSQL: services without FLEET_DATABASE_URL use the password `fleet up` generated under
var/ (never a password-less URL once it exists), and the status table never prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from fleet.launcher import _own_postgres, redacted_url
from fleet.settings import DatabaseSettings, StackSettings, database_url


def test_database_url_carries_the_generated_password(tmp_path: Path) -> None:
    stack = StackSettings(var_dir=tmp_path, postgres_port=55999)
    assert database_url(DatabaseSettings(url=""), stack) == "postgresql://fleet@127.0.0.1:55999/fleet"  # not started yet
    server = _own_postgres(stack)
    url = server.url  # generates var/postgres.password
    assert (tmp_path / "postgres.password").stat().st_mode & 0o077 == 0
    assert database_url(DatabaseSettings(url=""), stack) == url
    assert url.startswith("postgresql://fleet:") and server.password in url


def test_status_table_url_hides_the_password() -> None:
    assert redacted_url("postgresql://fleet:s3cret@127.0.0.1:55432/fleet") == "postgresql://fleet:***@127.0.0.1:55432/fleet"
    assert redacted_url("postgresql://fleet@127.0.0.1:55432/fleet") == "postgresql://fleet@127.0.0.1:55432/fleet"


def test_dagster_yaml_with_the_database_password_is_private(tmp_path: Path) -> None:
    from fleet.launcher import prepare_dagster_home
    from fleet.settings import ReportSettings

    home = prepare_dagster_home(ReportSettings(dagster_home=str(tmp_path / "dh"), dagster_storage="sqlite"))
    assert (home / "dagster.yaml").stat().st_mode & 0o077 == 0


def test_destroying_a_server_that_fell_back_removes_its_folder_there(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A server asked for under a folder the postgres user cannot reach (a benchmark's private temporary
    directory) lives under the fallback root; destroying it leaves nothing there (runs used to leave GBs)."""
    from fleet.services import postgres

    fallback = tmp_path / "fallback"
    monkeypatch.setattr(postgres, "_FALLBACK_ROOT", fallback)
    monkeypatch.setattr(postgres, "_reachable_by_server_user", lambda path: False)
    server = postgres.PostgresServer(tmp_path / "private" / "pg", 0)
    assert server.data_dir.parent.parent == fallback
    server.data_dir.mkdir(parents=True)
    (server.data_dir / "base").write_text("rows")
    (fallback / "another").mkdir()  # another server's folder stays
    server.destroy()
    assert sorted(p.name for p in fallback.iterdir()) == ["another"]
