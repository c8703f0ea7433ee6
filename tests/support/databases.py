"""Databases of their own on the session's PostgreSQL server, for tests whose writes must not meet the
shared session database's rows (the e2e stack, the contract fuzzer, the seed's idempotence).

Each is a copy of one migrated template per server (``CREATE DATABASE ... TEMPLATE``, about 0.1 s) instead of
running every migration again (about 4 s each): the template is migrated by the same ``warehouse.migrate.apply``
on first use and never connected to afterwards (PostgreSQL copies a template only while nobody is connected)."""

from __future__ import annotations

import atexit
import secrets
from datetime import UTC, datetime

from psycopg import sql

# server URL (the database part ignored) -> (admin URL, template database name), made once per server and run
_templates: dict[str, tuple[str, str]] = {}


def _server_key(url: str) -> str:
    return url.rsplit("/", 1)[0]


def _template(server_url: str) -> str:
    """The name of this server's migrated template database, created and migrated on first use."""
    from warehouse.db import connect
    from warehouse.migrate import apply

    key = _server_key(server_url)
    if key not in _templates:
        name = f"fleet_template_{secrets.token_hex(3)}"
        with connect(server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            apply(f"{key}/{name}")
        except BaseException:
            _drop_quietly(server_url, name)
            raise
        _templates[key] = (server_url, name)
        if len(_templates) == 1:
            atexit.register(_drop_templates)
    return _templates[key][1]


def create_database(server_url: str, prefix: str) -> str:
    """A new database on the server of ``server_url``, migrated, with today's gps partitions."""
    from warehouse.db import connect
    from warehouse.partitions import ensure_gps_partitions

    template = _template(server_url)
    name = f"{prefix}_{secrets.token_hex(3)}"
    with connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
    url = f"{_server_key(server_url)}/{name}"
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


def _drop_quietly(server_url: str, name: str) -> None:
    import psycopg

    try:
        with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
    except psycopg.Error:
        pass  # the session's private server is already stopped (and deleted with its data directory)


def _drop_templates() -> None:
    """At exit: a template on a server the run did not start (FLEET_DATABASE_URL) is not left behind."""
    for server_url, name in _templates.values():
        _drop_quietly(server_url, name)
    _templates.clear()
