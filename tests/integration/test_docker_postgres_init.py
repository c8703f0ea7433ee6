"""docker/postgres-init.sh, run as the PostgreSQL image runs it (as the superuser, over the socket, on a new
cluster), against a real server: the services' role fleet is no superuser, logs in with its password only
and can migrate the whole schema; the superuser has no TCP login (docs/security.md). No Docker engine runs
here, so the image itself is not started; the script and its SQL are."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from fleet.services.postgres import PostgresServer, ensure_installed
from fleet.settings import REPO_ROOT
from tests.support.stack import SessionStack

SCRIPT = REPO_ROOT / "docker" / "postgres-init.sh"
NO_PASSFILE = {"passfile": "/nonexistent", "connect_timeout": 5}


def test_the_init_script_gives_the_services_a_password_role_that_is_no_superuser(
    _session_stack: SessionStack, free_port: Callable[[], int]
) -> None:
    from warehouse.migrate import apply

    server = PostgresServer(_session_stack.dir / "docker-init-pg", free_port(), fast=True)
    # a bare cluster, as the image's first start has it: no fleet role or database yet
    server._initdb()
    server._write_config()
    server._run("pg_ctl", "start", "-D", str(server.data_dir), "-l", str(server.log_file), "-w", "-t", "60")
    try:
        password = "it's a $ecret \"quoted\""  # psql's :'password' must quote it, not the shell
        superuser = str(psycopg.conninfo.conninfo_to_dict(server.admin_url)["user"])
        env = {"PATH": f"{ensure_installed()}:/usr/bin:/bin", "POSTGRES_USER": superuser,
               "SERVICE_ROLE_PASSWORD": password, "PGDATA": str(server.data_dir),
               "PGHOST": str(server.socket_dir), "PGPORT": str(server.port)}
        proc = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        first_rule = (server.data_dir / "pg_hba.conf").read_text().splitlines()[0]
        assert first_rule == f"host all {superuser} all reject"
        server._run("pg_ctl", "reload", "-D", str(server.data_dir))

        with psycopg.connect(host="127.0.0.1", port=server.port, user="fleet", password=password, dbname="fleet",
                             **NO_PASSFILE) as conn:
            assert conn.execute("SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user"
                                ).fetchone() == (False, False)
            owners = conn.execute("SELECT datname, pg_get_userbyid(datdba) FROM pg_database"
                                  " WHERE datname IN ('fleet', 'fleet_dagster') ORDER BY 1").fetchall()
            assert owners == [("fleet", "fleet"), ("fleet_dagster", "fleet")]
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(host="127.0.0.1", port=server.port, user="fleet", dbname="fleet", **NO_PASSFILE)
        with pytest.raises(psycopg.OperationalError, match="pg_hba.conf rejects"):
            psycopg.connect(host="127.0.0.1", port=server.port, user=superuser, password="any", dbname="postgres",
                            **NO_PASSFILE)
        # the compose service `migrate` runs as this role: every migration must work without a superuser
        applied = apply(f"postgresql://fleet:{quote(password, safe='')}@127.0.0.1:{server.port}/fleet")
        assert applied
    finally:
        server.destroy()
        Path(server.password_file).unlink(missing_ok=True)
