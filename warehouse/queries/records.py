"""Generic writes of declared entities (``api/query/entities.py``) and their audit rows.

Identifiers (table, columns) come only from the declarations, composed with ``psycopg.sql``;
values are always bound parameters. The caller owns the transaction: the change and its
``audit_log`` row commit together or not at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from warehouse.queries.scope import Scope


@dataclass(frozen=True)
class Table:
    name: str
    tenant_column: str
    record_state_column: str  # "" when rows are deleted for good (fences, label points)
    id_column: str = "id"


def _where(table: Table, scope: Scope, record_id: int) -> tuple[sql.Composed, list[Any]]:
    tenant, params = scope.clause(sql.Identifier(table.tenant_column))
    parts = [sql.SQL("{} = %s").format(sql.Identifier(table.id_column)), tenant]
    if table.record_state_column:
        parts.append(sql.SQL("{} = 1").format(sql.Identifier(table.record_state_column)))
    return sql.SQL(" AND ").join(parts), [record_id, *params]


def lock_row(conn: Connection[Any], table: Table, scope: Scope, record_id: int, columns: list[str]) -> dict[str, Any] | None:
    """The live row (``columns``) inside the scope, locked for the change; None when absent or outside."""
    where, params = _where(table, scope, record_id)
    statement = sql.SQL("SELECT {} FROM {} WHERE {} FOR UPDATE").format(
        sql.SQL(", ").join(map(sql.Identifier, columns)), sql.Identifier(table.name), where
    )
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(statement, params).fetchone()


def insert(conn: Connection[Any], table: Table, values: Mapping[str, Any]) -> int:
    """Inserts ``{column: value}``; the new id. Raises psycopg.errors.UniqueViolation on a clash."""
    statement = sql.SQL("INSERT INTO {} ({}) VALUES ({}) RETURNING {}").format(
        sql.Identifier(table.name),
        sql.SQL(", ").join(map(sql.Identifier, values)),
        sql.SQL(", ").join(sql.Placeholder() * len(values)),
        sql.Identifier(table.id_column),
    )
    row = conn.execute(statement, list(values.values())).fetchone()
    assert row is not None
    return int(row[0])


def update(conn: Connection[Any], table: Table, record_id: int, values: Mapping[str, Any]) -> None:
    """Sets ``{column: value}`` (and updated_at) on a row locked by ``lock_row``."""
    assignments: list[sql.Composable] = [sql.SQL("{} = %s").format(sql.Identifier(c)) for c in values]
    assignments.append(sql.SQL("updated_at = now()"))
    statement = sql.SQL("UPDATE {} SET {} WHERE {} = %s").format(
        sql.Identifier(table.name), sql.SQL(", ").join(assignments), sql.Identifier(table.id_column)
    )
    conn.execute(statement, [*values.values(), record_id])


def soft_delete(conn: Connection[Any], table: Table, record_id: int) -> None:
    """record state 0 on a row locked by ``lock_row`` (the row and its history stay)."""
    statement = sql.SQL("UPDATE {} SET {} = 0, updated_at = now() WHERE {} = %s").format(
        sql.Identifier(table.name), sql.Identifier(table.record_state_column), sql.Identifier(table.id_column)
    )
    conn.execute(statement, [record_id])


def hard_delete(conn: Connection[Any], table: Table, record_id: int) -> None:
    """Removes a row locked by ``lock_row`` (a table without a record state; its children cascade)."""
    statement = sql.SQL("DELETE FROM {} WHERE {} = %s").format(sql.Identifier(table.name), sql.Identifier(table.id_column))
    conn.execute(statement, [record_id])


def audit(
    conn: Connection[Any], *, user_id: int, user_name: str, enterprise_id: int, entity: str, record_id: int,
    action: str, changes: Mapping[str, Any],
) -> None:
    """One audit_log row (in the caller's transaction)."""
    conn.execute(
        "INSERT INTO audit_log (user_id, user_name, enterprise_id, entity, record_id, action, changes)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (user_id, user_name, enterprise_id, entity, record_id, action, Jsonb(dict(changes), dumps=lambda o: json.dumps(o, default=str, ensure_ascii=False))),
    )


def enterprise_path(conn: Connection[Any], enterprise_id: int) -> str | None:
    """The materialised path of an enabled enterprise; None when absent or disabled."""
    row = conn.execute("SELECT path FROM enterprise WHERE id = %s AND state = 1 AND record_state = 1",
                       (enterprise_id,)).fetchone()
    return None if row is None else str(row[0])


_LITERAL = re.compile(r"^'((?:[^']|'')*)'::([a-z ]+)$")


def literal_default(expression: str) -> tuple[bool, Any]:
    """(True, value) for a column DEFAULT that is a constant as information_schema writes it (``true``, ``30``,
    ``'2019'::text``, ``'[]'::jsonb``); (False, None) for anything computed (``now()``, ``nextval(...)``)."""
    text = expression.strip()
    if text in ("true", "false"):
        return True, text == "true"
    literal = _LITERAL.match(text)
    if literal is not None:
        value = literal.group(1).replace("''", "'")
        return True, json.loads(value) if literal.group(2) in ("json", "jsonb") else value
    number = re.sub(r"::[a-z ]+$", "", text).strip("()")
    for kind in (int, float):
        try:
            return True, kind(number)
        except ValueError:
            continue
    return False, None


def column_defaults(conn: Connection[Any]) -> dict[tuple[str, str], Any]:
    """The constant DEFAULT of every column of the public schema that has one, by (table, column): what an insert
    without the column stores."""
    out = {}
    for table, column, expression in conn.execute(
            "SELECT table_name, column_name, column_default FROM information_schema.columns"
            " WHERE table_schema = 'public' AND column_default IS NOT NULL").fetchall():
        constant, value = literal_default(expression)
        if constant:
            out[(table, column)] = value
    return out
