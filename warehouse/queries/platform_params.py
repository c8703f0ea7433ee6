"""Platform parameters an administrator set at run time (migration 0057): name -> value, the values the API
applies over its configured settings (api/platform_params.py declares which names exist)."""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


def overrides(conn: Connection[Any], names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """name -> {value, updatedBy, updatedAt} of the parameters among ``names`` that were set."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            "SELECT name, value, updated_by, updated_at FROM platform_param WHERE name = ANY(%s)", (list(names),)
        ).fetchall()
    return {row["name"]: {"value": row["value"], "updatedBy": row["updated_by"], "updatedAt": row["updated_at"]}
            for row in rows}


def set_value(conn: Connection[Any], name: str, value: Any, user_name: str) -> None:
    """Sets (upserts) a parameter; its previous value is the caller's to read first (in the same transaction)."""
    conn.execute(
        "INSERT INTO platform_param (name, value, updated_by) VALUES (%s, %s, %s)"
        " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by,"
        " updated_at = now()",
        (name, Jsonb(value), user_name),
    )


def clear(conn: Connection[Any], name: str) -> None:
    """Back to the configured value."""
    conn.execute("DELETE FROM platform_param WHERE name = %s", (name,))


def lock(conn: Connection[Any], name: str) -> None:
    """Serialises changes of one parameter (so each audit row's ``before`` is the value it replaced)."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('platform_param:' || %s))", (name,))
