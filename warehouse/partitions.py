"""Daily range partitions of ``gps`` (when natively partitioned: no TimescaleDB) and ``message_log``.

Partitions are UTC days named ``<table>_YYYYMMDD``; indexes (gps: the (device_id, fix_at) primary
key, the BRIN on fix_at) come from the parent. Rows that arrived before their day's partition existed
sit in ``<table>_default``; PostgreSQL refuses to create a partition while the default holds rows of
its range, so those rows are moved in the same transaction (see ``_create_day``). Retention drops
whole day partitions older than a number of days (``drop_expired_partitions``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from psycopg import Connection, sql

log = logging.getLogger(__name__)

PARENT = "gps"
DEFAULT = "gps_default"
MESSAGE_LOG = "message_log"
# Daily-partitioned tables and the column they are partitioned on.
TIME_COLUMNS = {PARENT: "fix_at", MESSAGE_LOG: "time"}
_DAY_SUFFIX = re.compile(r"_(\d{4})(\d{2})(\d{2})$")
# Storage parameters of each new day partition. message_log: autovacuum after each 1 % of growth (not
# PostgreSQL's 20 %), so the day being written stays mostly all-visible and the message log screens'
# count is answered from the covering index (migration 0037) instead of a heap page per frame.
PARTITION_OPTIONS = {MESSAGE_LOG: sql.SQL(" WITH (autovacuum_vacuum_insert_scale_factor = 0.01)")}


def partition_name(day: date, table: str = PARENT) -> str:
    return f"{table}_{day:%Y%m%d}"


def partition_day(name: str, table: str = PARENT) -> date | None:
    """The day of a partition named ``<table>_YYYYMMDD`` (None for the default or any other name)."""
    match = _DAY_SUFFIX.search(name)
    if not match or name[: match.start()] != table:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


def is_native_partitioned(conn: Connection[Any], table: str) -> bool:
    """True when ``table`` is a declaratively partitioned table (False for a hypertable or none)."""
    row = conn.execute(
        "SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relname = %s AND n.nspname = current_schema()",
        (table,),
    ).fetchone()
    return row is not None and row[0] == "p"


def gps_is_native_partitioned(conn: Connection[Any]) -> bool:
    """True when ``gps`` is a declaratively partitioned table (False for a hypertable or none)."""
    return is_native_partitioned(conn, PARENT)


def existing_partitions(conn: Connection[Any], table: str = PARENT) -> set[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = %s",
        (table,),
    ).fetchall()
    return {r[0] for r in rows}


def ensure_gps_partitions(conn: Connection[Any], start_day: date, days_ahead: int = 7) -> list[str]:
    """Creates the missing partitions for ``start_day`` and the ``days_ahead`` days after it.

    Returns the names created (empty when all exist or ``gps`` is a hypertable). Each day is its
    own transaction, committed here; on error that day is rolled back and the error (psycopg.Error)
    raised, days already created stay. The connection must not be in autocommit mode.
    """
    return ensure_partitions(conn, PARENT, start_day, days_ahead)


def ensure_partitions(conn: Connection[Any], table: str, start_day: date, days_ahead: int = 7) -> list[str]:
    """``ensure_gps_partitions`` for any table of TIME_COLUMNS."""
    if conn.autocommit:
        raise ValueError("ensure_partitions needs a transactional connection (autocommit off)")
    if not is_native_partitioned(conn, table):
        conn.rollback()
        log.info("%s is not natively partitioned (TimescaleDB hypertable?); nothing to do", table)
        return []
    present = existing_partitions(conn, table)
    conn.commit()
    created = []
    for offset in range(days_ahead + 1):
        day = start_day + timedelta(days=offset)
        name = partition_name(day, table)
        if name in present:
            continue
        try:
            moved = _create_day(conn, day, table)
            conn.commit()
        except Exception:
            conn.rollback()
            raise
        created.append(name)
        log.info("created partition %s (moved %d rows from %s_default)", name, moved, table)
    return created


def expired_partitions(conn: Connection[Any], table: str, retention_days: int, today: date) -> list[str]:
    """Day partitions of ``table`` whose whole day is older than ``retention_days`` before ``today``
    (the settings-db screen's "expired" rule); none when retention is 0. Oldest first."""
    if retention_days <= 0:
        return []
    cutoff = today - timedelta(days=retention_days)
    days = {name: partition_day(name, table) for name in existing_partitions(conn, table)}
    return sorted(name for name, day in days.items() if day is not None and day < cutoff)


def drop_expired_partitions(conn: Connection[Any], table: str, retention_days: int, today: date,
                            *, dry_run: bool = False) -> list[str]:
    """Drops (detach + drop, one transaction each) the partitions ``expired_partitions`` names; the
    names dropped (or, with ``dry_run``, that would be). Rows of old days in the DEFAULT partition are
    deleted too (they would otherwise be kept forever). The connection must not be in autocommit mode.
    A TimescaleDB ``gps`` is left alone (its chunks are not partitions: use drop_chunks)."""
    if conn.autocommit:
        raise ValueError("drop_expired_partitions needs a transactional connection (autocommit off)")
    if not is_native_partitioned(conn, table):
        conn.rollback()
        return []
    names = expired_partitions(conn, table, retention_days, today)
    conn.commit()
    if dry_run:
        return names
    for name in names:
        try:
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(name)))
            conn.commit()
        except Exception:
            conn.rollback()
            raise
        log.info("retention: dropped partition %s", name)
    cutoff = datetime.combine(today - timedelta(days=retention_days), time(0), tzinfo=UTC)
    conn.execute(sql.SQL("DELETE FROM {} WHERE {} < %s").format(
        sql.Identifier(f"{table}_default"), sql.Identifier(TIME_COLUMNS[table])), (cutoff,))
    conn.commit()
    return names


def _create_day(conn: Connection[Any], day: date, table: str = PARENT) -> int:
    """Creates one day's partition inside the caller's transaction; returns rows moved into it.

    With rows of that day in the default: take the parent's lock first (writers then wait instead of
    adding rows to the default between our steps), detach the default, create the partition, move
    the rows, re-attach the default. Readers and writers wait for the commit; they never see a gap.
    """
    start, end = day_bounds(day)
    parent, default = sql.Identifier(table), sql.Identifier(f"{table}_default")
    name = sql.Identifier(partition_name(day, table))
    # DDL takes no bind parameters: the bounds are rendered as literals (typed timestamptz values).
    bounds = [sql.Literal(start), sql.Literal(end)]
    create_stmt = sql.SQL("CREATE TABLE IF NOT EXISTS {} PARTITION OF {} FOR VALUES FROM ({}) TO ({})").format(
        name, parent, *bounds
    ) + PARTITION_OPTIONS.get(table, sql.SQL(""))
    column = sql.Identifier(TIME_COLUMNS[table])
    in_range = sql.SQL("{} >= {} AND {} < {}").format(column, bounds[0], column, bounds[1])
    has_rows = conn.execute(
        sql.SQL("SELECT EXISTS (SELECT 1 FROM {} WHERE ").format(default) + in_range + sql.SQL(")")
    ).fetchone()
    if not (has_rows and has_rows[0]):
        conn.execute(create_stmt)
        return 0
    conn.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(parent))
    conn.execute(sql.SQL("ALTER TABLE {} DETACH PARTITION {}").format(parent, default))
    conn.execute(create_stmt)
    cur = conn.execute(
        sql.SQL("WITH moved AS (DELETE FROM {} WHERE ").format(default)
        + in_range
        + sql.SQL(" RETURNING *) INSERT INTO {} SELECT * FROM moved").format(name)
    )
    moved = cur.rowcount
    conn.execute(sql.SQL("ALTER TABLE {} ATTACH PARTITION {} DEFAULT").format(parent, default))
    return moved


class DayPartitions:
    """Ensures ``table``'s partition of each day a writer sees, once per process (and the next day, ahead
    of midnight), off the event loop. A failure is logged and not cached: rows then land in the DEFAULT
    partition, never refused (ingest never blocks on partition upkeep)."""

    def __init__(self, url: str, table: str) -> None:
        self._url, self.table = url, table
        self._ensured: set[date] = set()

    async def ensure(self, days: set[date]) -> None:
        missing = sorted(days - self._ensured)
        if missing:
            await asyncio.to_thread(self._ensure_sync, missing)

    def _ensure_sync(self, days: list[date]) -> None:
        from warehouse.db import connect

        try:
            with connect(self._url) as conn:
                for day in days:
                    if day not in self._ensured:
                        ensure_partitions(conn, self.table, day, 1)
                        self._ensured.update({day, day + timedelta(days=1)})
        except Exception as exc:  # never block ingest: the DEFAULT partition takes the rows
            log.warning("%s partitions for %s not ensured: %s", self.table, days, exc)
