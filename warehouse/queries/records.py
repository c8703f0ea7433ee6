"""Generic writes of declared entities (``api/query/entities.py``) and their audit rows.

Identifiers (table, columns) come only from the declarations, composed with ``psycopg.sql``;
values are always bound parameters. The caller owns the transaction: the change and its
``audit_log`` row commit together or not at all.
"""

from __future__ import annotations

import json
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
