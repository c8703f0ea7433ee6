"""Smoke test: `fleet up --check` brings every component up healthy on the session's servers."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from psycopg import sql


@pytest.fixture
def smoke_database(pg_url: str) -> str:
    """A separate database, so the demo seed does not leak into other tests' empty database."""
    from warehouse.db import connect

    name = f"fleet_up_smoke_{secrets.token_hex(3)}"
    with connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return pg_url.rsplit("/", 1)[0] + f"/{name}"


def test_fleet_up_check_reports_every_component_healthy(
    smoke_database: str, kafka_bootstrap: str, tmp_path: Path, free_port: Callable[[], int]
) -> None:
    gateway_port = free_port()
    env = {
        **os.environ,
        "FLEET_DATABASE_URL": smoke_database,
        "FLEET_KAFKA_BOOTSTRAP": kafka_bootstrap,
        "FLEET_STACK_VAR_DIR": str(tmp_path / "var"),
        "FLEET_GATEWAY_PORT": str(gateway_port),
        "FLEET_SIMULATOR_GATEWAY_PORT": str(gateway_port),
        "FLEET_SIMULATOR_AUTH_CACHE": str(tmp_path / "simulator-auth.json"),
        "FLEET_API_PORT": str(free_port()),
        "FLEET_STREAMS_WEB_PORT": str(free_port()),
        "FLEET_STREAMS_APP_ID": f"fleet-up-smoke-{secrets.token_hex(3)}",
        "FLEET_STREAMS_DATA_DIR": str(tmp_path / "faust"),
    }
    fleet = Path(sys.executable).with_name("fleet")
    proc = subprocess.run([str(fleet), "up", "--check", "--terminals", "5"], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}" for p in sorted((tmp_path / "var" / "log").glob("*.log")))
    report = f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-3000:]}\n{logs}"
    assert proc.returncode == 0, report
    for component in ("gateway", "streams", "api", "simulator"):
        assert any(line.split()[:2] == [component, "healthy"] for line in proc.stdout.splitlines()), report
    assert "login:" in proc.stdout
