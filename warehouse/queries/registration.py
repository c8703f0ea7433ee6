"""Terminal registration, administrator side (issue 13 §1): clear a device's auth code and the
identity recorded at its first registration, so the terminal (or new hardware) registers afresh."""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope


def reset_registration(conn: Connection[Any], scope: Scope, device_id: int) -> dict[str, Any] | None:
    """{id, phone, enterpriseId, hadCode} of the reset device; None for a device outside ``scope``
    (exactly as for a missing one). Idempotent: resetting an unregistered device changes nothing."""
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = (
        sql.SQL(
            """UPDATE device AS d SET auth_code = NULL, registered_terminal_id = NULL,
                      registered_manufacturer_id = NULL, registered_terminal_model = NULL, registered_at = NULL
               FROM device AS before
               WHERE before.id = d.id AND d.id = %s AND """
        )
        + where
        + sql.SQL(' RETURNING d.id, d.phone, d.enterprise_id AS "enterpriseId", before.auth_code IS NOT NULL AS "hadCode"')
    )
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [device_id, *params])
        return cur.fetchone()
