"""What the database screen reads (``GET /api/system/db.json``): server version, how ``gps`` is
partitioned, connections against the server's limit, and each daily ``gps`` partition's size and
estimated rows. Sizes and rows are catalogue estimates (``reltuples``): cheap on a big table. Also the
health check's ping and the version log's applied migrations (yoyo's ``_yoyo_migration``)."""

from __future__ import annotations

import re
from datetime import UTC, date
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row, tuple_row

from warehouse.partitions import DEFAULT, PARENT

_DAY = re.compile(r"^gps_(\d{4})(\d{2})(\d{2})$")


def ping(conn: Connection[Any]) -> None:
    """One round trip; raises the driver's error when the server does not answer."""
    conn.execute("SELECT 1")


def applied_migrations(conn: Connection[Any]) -> list[dict[str, Any]]:
    """Yoyo's record of the applied migrations, oldest first: {id, appliedAt (aware UTC)}; empty when the
    table is missing (a database not migrated by warehouse/migrate.py)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        exists = cur.execute("SELECT to_regclass('_yoyo_migration') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return []
        found = cur.execute(
            "SELECT migration_id, applied_at_utc FROM _yoyo_migration ORDER BY applied_at_utc, migration_id").fetchall()
    return [{"id": mid, "appliedAt": at.replace(tzinfo=UTC) if at.tzinfo is None else at} for mid, at in found]


def server(conn: Connection[Any]) -> dict[str, Any]:
    """Version, TimescaleDB's version (None when not installed), how gps is partitioned, connections."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT current_setting('server_version') AS version,"
            " (SELECT extversion FROM pg_extension WHERE extname = 'timescaledb') AS timescaledb,"
            " (SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            "   WHERE c.relname = %s AND n.nspname = current_schema()) AS gps_kind,"
            " (SELECT count(*) FROM pg_stat_activity) AS connections,"
            " (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()) AS \"databaseConnections\","
            " current_setting('max_connections')::int AS \"maxConnections\"",
            (PARENT,),
        ).fetchone()
    assert row is not None
    kind = row.pop("gps_kind")
    row["partitioning"] = "native" if kind == "p" else "timescaledb" if row["timescaledb"] and kind == "r" else "none"
    return row


def gps_partitions(conn: Connection[Any]) -> list[dict[str, Any]]:
    """The partitions of gps, oldest day first (the default partition last, ``day`` None)."""
    rows = conn.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid)::bigint, greatest(c.reltuples, 0)::bigint"
        " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent"
        " WHERE p.relname = %s",
        (PARENT,),
    ).fetchall()
    found = []
    for name, size, estimated in rows:
        match = _DAY.match(name)
        day = date(int(match[1]), int(match[2]), int(match[3])) if match else None
        found.append({"name": name, "day": day, "sizeBytes": int(size), "estimatedRows": int(estimated),
                      "default": name == DEFAULT})
    return sorted(found, key=lambda p: (p["day"] is None, p["day"] or date.max, p["name"]))
