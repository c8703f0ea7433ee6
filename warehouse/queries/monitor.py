"""What the system monitor reads from PostgreSQL (``GET /api/system/monitor.json``): the database's
size and biggest tables, terminals by session state, and how fast the streams worker writes."""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row

THROUGHPUT_WINDOW_MIN = 5


def database(conn: Connection[Any], biggest: int = 10) -> dict[str, Any]:
    """Size, connections and the ``biggest`` tables (a partitioned table counts its partitions)."""
    with conn.cursor(row_factory=dict_row) as cur:
        head = cur.execute(
            "SELECT current_database() AS name, pg_database_size(current_database()) AS \"sizeBytes\","
            " (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()) AS connections,"
            " current_setting('server_version') AS version"
        ).fetchone()
        tables = cur.execute(
            "SELECT coalesce(p.relname, c.relname) AS name, sum(pg_total_relation_size(c.oid))::bigint AS \"sizeBytes\","
            " greatest(sum(c.reltuples), 0)::bigint AS \"estimatedRows\""
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent"
            " WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
            "   AND n.nspname NOT LIKE 'pg\\_toast%%'"
            " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT %s",
            (biggest,),
        ).fetchall()
    assert head is not None
    return {**head, "tables": tables}


def terminals(conn: Connection[Any]) -> dict[str, Any]:
    """Terminals by session state, as the streams worker records the gateway's online / offline
    events (device.state 3 online), and the latest session start."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT count(*) FILTER (WHERE state = 3) AS online, count(*) FILTER (WHERE state <> 5) AS registered,"
            " max(online_time) AS \"lastOnlineTime\" FROM device"
        ).fetchone()
    assert row is not None
    return row


def throughput(conn: Connection[Any]) -> dict[str, Any]:
    """Positions stored per minute over the last THROUGHPUT_WINDOW_MIN minutes (rows of ``gps``
    received in that window with a fix of the last hour: late backlogs are not counted) and the
    time of the latest one."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT (SELECT count(*) FROM gps WHERE fix_at > now() - interval '1 hour'"
            "         AND received_at > now() - make_interval(mins => %s)) AS positions,"
            " (SELECT max(received_at) FROM device_last) AS \"lastReceivedAt\"",
            (THROUGHPUT_WINDOW_MIN,),
        ).fetchone()
    assert row is not None
    positions = int(row["positions"])
    return {"windowMinutes": THROUGHPUT_WINDOW_MIN, "positions": positions,
            "positionsPerMinute": round(positions / THROUGHPUT_WINDOW_MIN, 1),
            "lastReceivedAt": row["lastReceivedAt"]}
