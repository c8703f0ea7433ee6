"""A report partition's rows replaced in one transaction: DELETE of its key, then COPY of the new rows.

``replace_rows(conn, table, {"date": 20261015}, frame)`` writes the frame's columns that the table has (the
others are ignored, the table's defaults fill the rest), so a rerun never duplicates a row. The caller
commits (several tables of one day go in one transaction).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl
from psycopg import Connection, sql

_COLUMNS: dict[str, list[str]] = {}


def table_columns(conn: Connection[Any], table: str) -> list[str]:
    if table not in _COLUMNS:
        _COLUMNS[table] = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            (table,))]
    return _COLUMNS[table]


def replace_rows(conn: Connection[Any], table: str, key: Mapping[str, Any], frame: pl.DataFrame) -> int:
    """Delete the rows matching ``key`` (column -> value, ANDed), COPY ``frame`` in; returns rows written."""
    where = sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(c)) for c in key)
    conn.execute(sql.SQL("DELETE FROM {} WHERE ").format(sql.Identifier(table)) + where, list(key.values()))
    if frame.is_empty():
        return 0
    columns = [c for c in table_columns(conn, table) if c in frame.columns]
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns)))
    with conn.cursor() as cur, cur.copy(statement) as copy:
        for row in frame.select(columns).iter_rows():
            copy.write_row(row)
    return frame.height
