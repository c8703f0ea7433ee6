"""Terminal registration, administrator side: clear a device's auth code and the identity recorded at
its first registration, so the terminal (or new hardware) registers afresh; approve or refuse a
re-registration held by the enterprise's policy; read and change that policy (gateway/README.md)."""

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
                      registered_manufacturer_id = NULL, registered_terminal_model = NULL, registered_imei = NULL,
                      registered_at = NULL
               FROM device AS before
               WHERE before.id = d.id AND d.id = %s AND """
        )
        + where
        + sql.SQL(' RETURNING d.id, d.phone, d.enterprise_id AS "enterpriseId", before.auth_code IS NOT NULL AS "hadCode"')
    )
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [device_id, *params])
        return cur.fetchone()


def device_in_scope(conn: Connection[Any], scope: Scope, device_id: int) -> bool:
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = sql.SQL("SELECT 1 FROM device AS d WHERE d.id = %s AND d.record_state = 1 AND ") + where
    return conn.execute(query, [device_id, *params]).fetchone() is not None


def decide_request(conn: Connection[Any], scope: Scope, device_id: int, request_id: int, *, approve: bool,
                   user_id: int, user_name: str) -> dict[str, Any] | None:
    """Approve or refuse a pending re-registration request of a device in ``scope``; {id, deviceId,
    phone, enterpriseId, state}, or None when there is no such pending request in scope (missing,
    another tenant's, or already decided: each request is decided once)."""
    where, params = scope.clause(sql.Identifier("r", "enterprise_id"))
    query = (
        sql.SQL(
            """UPDATE registration_request AS r SET state = %s, decided_at = now(), decided_by = %s,
                      decided_by_name = %s
               WHERE r.id = %s AND r.device_id = %s AND r.state = 'pending' AND """
        )
        + where
        + sql.SQL(' RETURNING r.id, r.device_id AS "deviceId", r.phone, r.enterprise_id AS "enterpriseId", r.state')
    )
    state = "approved" if approve else "refused"
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [state, user_id, user_name[:64], request_id, device_id, *params])
        return cur.fetchone()


def pending_requests(conn: Connection[Any], scope: Scope) -> list[dict[str, Any]]:
    """Pending re-registration requests of devices in ``scope``, newest first (at most 100)."""
    where, params = scope.clause(sql.Identifier("r", "enterprise_id"))
    query = (
        sql.SQL(
            """SELECT r.id, r.device_id AS "deviceId", r.phone, r.terminal_id AS "terminalId",
                      r.manufacturer_id AS "manufacturerId", r.terminal_model AS "terminalModel", r.peer,
                      r.requested_at AS "requestedAt"
               FROM registration_request AS r WHERE r.state = 'pending' AND """
        )
        + where
        + sql.SQL(" ORDER BY r.requested_at DESC LIMIT 100")
    )
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchall()


DEFAULT_POLICY = {"requireImei": False, "approveReregistration": False, "approvalWindowMin": 10}


def registration_policy(conn: Connection[Any], enterprise_id: int) -> dict[str, Any]:
    """The enterprise's policy: its own row, else its nearest ancestor's, else the default (today's
    behaviour); ``inherited`` says whether it came from an ancestor or the default."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT p.require_imei AS "requireImei", p.approve_reregistration AS "approveReregistration",
                      p.approval_window_min AS "approvalWindowMin", p.enterprise_id = e.id AS own
               FROM enterprise AS e
               JOIN enterprise AS pe ON pe.id = e.id OR (pe.path <> '' AND e.path LIKE pe.path || '%%')
               JOIN enterprise_registration_policy AS p ON p.enterprise_id = pe.id
               WHERE e.id = %s ORDER BY length(pe.path) DESC LIMIT 1""", (enterprise_id,))
        row = cur.fetchone()
    if row is None:
        return {**DEFAULT_POLICY, "inherited": True}
    own = row.pop("own")
    return {**row, "inherited": not own}


def save_registration_policy(conn: Connection[Any], enterprise_id: int, *, require_imei: bool,
                             approve_reregistration: bool, approval_window_min: int) -> None:
    conn.execute(
        """INSERT INTO enterprise_registration_policy (enterprise_id, require_imei, approve_reregistration,
                  approval_window_min) VALUES (%s, %s, %s, %s)
           ON CONFLICT (enterprise_id) DO UPDATE SET require_imei = excluded.require_imei,
                  approve_reregistration = excluded.approve_reregistration,
                  approval_window_min = excluded.approval_window_min, updated_at = now()""",
        (enterprise_id, require_imei, approve_reregistration, approval_window_min))
