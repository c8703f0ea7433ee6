"""The PostgreSQL that `make up` starts (fleet/services/postgres.py) lets no one in without a secret:
role ``fleet`` needs its generated password (SCRAM-SHA-256) over TCP, the superuser has no TCP login at all
and comes in only over the Unix socket as the OS user that owns the server (docs/security.md)."""

from __future__ import annotations

import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from fleet.launcher import _own_postgres
from fleet.services.postgres import PostgresServer
from fleet.settings import StackSettings, database_url
from tests.support.stack import SessionStack

# libpq falls back to ~/.pgpass and PGPASSWORD; a test of "no password" must not find one there
NO_PASSFILE = {"passfile": "/nonexistent", "connect_timeout": 5}


@pytest.fixture(scope="module")
def make_up_postgres(_session_stack: SessionStack, free_port: Callable[[], int]) -> Iterator[tuple[StackSettings, PostgresServer]]:
    """The server `fleet up` starts, under a var/ of its own (world-traversable, for the postgres user)."""
    var_dir = _session_stack.dir / "make-up-var"
    var_dir.mkdir(mode=0o755)
    stack = StackSettings(var_dir=var_dir, postgres_port=free_port())
    server = _own_postgres(stack)
    server.start()
    try:
        yield stack, server
    finally:
        server.destroy()


def _refused(url: str) -> str:
    with pytest.raises(psycopg.OperationalError) as refused:
        psycopg.connect(url, **NO_PASSFILE).close()
    return str(refused.value)


def test_refuses_the_service_role_over_tcp_without_its_password(make_up_postgres) -> None:
    stack, server = make_up_postgres
    assert "password" in _refused(f"postgresql://fleet@127.0.0.1:{server.port}/fleet")
    assert "password authentication failed" in _refused(f"postgresql://fleet:guess@127.0.0.1:{server.port}/fleet")


def test_refuses_the_superuser_over_tcp_with_or_without_a_password(make_up_postgres) -> None:
    _, server = make_up_postgres
    superuser = urlsplit(server.admin_url).username
    for url in (f"postgresql://{superuser}@127.0.0.1:{server.port}/postgres",
                f"postgresql://{superuser}:anything@127.0.0.1:{server.port}/postgres"):
        assert "pg_hba.conf rejects connection" in _refused(url)


def test_the_superuser_comes_in_over_the_socket_only(make_up_postgres) -> None:
    _, server = make_up_postgres
    assert urlsplit(server.admin_url).netloc.partition("@")[2].startswith("%2F")  # a socket directory
    with psycopg.connect(server.admin_url, **NO_PASSFILE) as conn:
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone() == (True,)
        assert conn.execute("SHOW password_encryption").fetchone() == ("scram-sha-256",)
        verifier = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = 'fleet'").fetchone()
    assert verifier is not None and verifier[0].startswith("SCRAM-SHA-256$")


def test_services_connect_with_the_generated_password_from_var(make_up_postgres) -> None:
    stack, server = make_up_postgres
    url = database_url(stack=stack)  # what a service started without FLEET_DATABASE_URL uses
    assert url == server.url and urlsplit(url).password
    with psycopg.connect(url, **NO_PASSFILE) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("fleet",)
    secret = stack.var_dir / "postgres.password"
    assert server.password_file == secret
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_data_dir_of_a_trusting_version_is_locked_on_its_next_start(make_up_postgres) -> None:
    stack, server = make_up_postgres
    hba = server.data_dir / "pg_hba.conf"
    hba.write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")  # what older versions wrote
    server.start()  # running: rewrites the rules and reloads them
    assert "password" in _refused(f"postgresql://fleet@127.0.0.1:{server.port}/fleet")
    assert Path(hba).read_text().count("trust") == 0
