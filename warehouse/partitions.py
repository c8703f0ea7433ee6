"""Daily range partitions of ``gps`` when it is natively partitioned (no TimescaleDB).

Partitions are UTC days named ``gps_YYYYMMDD``; indexes (the (device_id, fix_at) primary key, the
BRIN on fix_at) come from the parent. Rows that arrived before their day's partition existed sit
in ``gps_default``; PostgreSQL refuses to create a partition while the default holds rows of its
range, so those rows are moved in the same transaction (see ``_create_day``).
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from psycopg import Connection, sql

log = logging.getLogger(__name__)

PARENT = "gps"
DEFAULT = "gps_default"


def partition_name(day: date) -> str:
    return f"{PARENT}_{day:%Y%m%d}"


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


def gps_is_native_partitioned(conn: Connection[Any]) -> bool:
    """True when ``gps`` is a declaratively partitioned table (False for a hypertable or none)."""
    row = conn.execute(
        "SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relname = %s AND n.nspname = current_schema()",
        (PARENT,),
    ).fetchone()
    return row is not None and row[0] == "p"


def existing_partitions(conn: Connection[Any]) -> set[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = %s",
        (PARENT,),
    ).fetchall()
    return {r[0] for r in rows}


def ensure_gps_partitions(conn: Connection[Any], start_day: date, days_ahead: int = 7) -> list[str]:
    """Creates the missing partitions for ``start_day`` and the ``days_ahead`` days after it.

    Returns the names created (empty when all exist or ``gps`` is a hypertable). Each day is its
    own transaction, committed here; on error that day is rolled back and the error (psycopg.Error)
    raised, days already created stay. The connection must not be in autocommit mode.
    """
    if conn.autocommit:
        raise ValueError("ensure_gps_partitions needs a transactional connection (autocommit off)")
    if not gps_is_native_partitioned(conn):
        conn.rollback()
        log.info("gps is not natively partitioned (TimescaleDB hypertable?); nothing to do")
        return []
    present = existing_partitions(conn)
    conn.commit()
    created = []
    for offset in range(days_ahead + 1):
        day = start_day + timedelta(days=offset)
        if partition_name(day) in present:
            continue
        try:
            moved = _create_day(conn, day)
            conn.commit()
        except Exception:
            conn.rollback()
            raise
        created.append(partition_name(day))
        log.info("created partition %s (moved %d rows from %s)", partition_name(day), moved, DEFAULT)
    return created


def _create_day(conn: Connection[Any], day: date) -> int:
    """Creates one day's partition inside the caller's transaction; returns rows moved into it.

    With rows of that day in the default: take the parent's lock first (writers then wait instead of
    adding rows to the default between our steps), detach the default, create the partition, move
    the rows, re-attach the default. Readers and writers wait for the commit; they never see a gap.
    """
    start, end = day_bounds(day)
    name = sql.Identifier(partition_name(day))
    # DDL takes no bind parameters: the bounds are rendered as literals (typed timestamptz values).
    bounds = [sql.Literal(start), sql.Literal(end)]
    create_stmt = sql.SQL("CREATE TABLE IF NOT EXISTS {} PARTITION OF {} FOR VALUES FROM ({}) TO ({})").format(
        name, sql.Identifier(PARENT), *bounds
    )
    in_range = sql.SQL("fix_at >= {} AND fix_at < {}").format(*bounds)
    has_rows = conn.execute(
        sql.SQL("SELECT EXISTS (SELECT 1 FROM {} WHERE ").format(sql.Identifier(DEFAULT)) + in_range + sql.SQL(")")
    ).fetchone()
    if not (has_rows and has_rows[0]):
        conn.execute(create_stmt)
        return 0
    conn.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(sql.Identifier(PARENT)))
    conn.execute(sql.SQL("ALTER TABLE {} DETACH PARTITION {}").format(sql.Identifier(PARENT), sql.Identifier(DEFAULT)))
    conn.execute(create_stmt)
    cur = conn.execute(
        sql.SQL("WITH moved AS (DELETE FROM {} WHERE ").format(sql.Identifier(DEFAULT))
        + in_range
        + sql.SQL(" RETURNING *) INSERT INTO {} SELECT * FROM moved").format(name)
    )
    moved = cur.rowcount
    conn.execute(
        sql.SQL("ALTER TABLE {} ATTACH PARTITION {} DEFAULT").format(sql.Identifier(PARENT), sql.Identifier(DEFAULT))
    )
    return moved
