"""Databases of their own on the session's PostgreSQL server, for tests whose writes must not meet the
shared session database's rows (the e2e stack, the contract fuzzer, the seed's idempotence)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from psycopg import sql


def create_database(server_url: str, prefix: str) -> str:
    """A new database on the server of ``server_url``, migrated, with today's gps partitions."""
    from warehouse.db import connect
    from warehouse.migrate import apply
    from warehouse.partitions import ensure_gps_partitions

    name = f"{prefix}_{secrets.token_hex(3)}"
    with connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = server_url.rsplit("/", 1)[0] + f"/{name}"
    apply(url)
    with connect(url) as conn:
        ensure_gps_partitions(conn, datetime.now(UTC).date())
        conn.commit()
    return url


def drop_database(server_url: str, url: str) -> None:
    """Drops the database ``url`` names (made by ``create_database``); errors are only logged."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    try:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    except psycopg.Error as exc:
        print(f"could not drop test database {name}: {exc}")
