"""What the database screen reads (``GET /api/system/db.json``): server version, how ``gps`` is
partitioned, connections against the server's limit, and each daily ``gps`` partition's size and
estimated rows. Sizes and rows are catalogue estimates (``reltuples``): cheap on a big table."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row

from warehouse.partitions import DEFAULT, PARENT

_DAY = re.compile(r"^gps_(\d{4})(\d{2})(\d{2})$")


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
