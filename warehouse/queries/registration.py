"""Terminal registration (the device's registration columns, ``registration_request``,
``enterprise_registration_policy``; the rules are in gateway/README.md and gateway/devices.py).

Administrator side (sync, the API): clear a device's auth code and the identity recorded at its first
registration, so the terminal (or new hardware) registers afresh; approve or refuse a re-registration
held by the enterprise's policy; read and change that policy.

Terminal side (async, the JT/T 808 gateway): the device a phone names with its enterprise's policy,
the compare-and-set that issues a code, de-registration, the IMEI of the first authentication,
auto-registration into the unassigned pool, and the approval requests of held re-registrations.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, Connection, sql
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


# --- terminal side (the gateway) --------------------------------------------------------------------

# The device each phone (canonical, fleet/phones.py) names, with the registration policy of its enterprise
# or of the nearest ancestor that has one (none: both off), and whether it is online or was within the
# policy's approval window; many phones at once (a burst of logins: gateway/lookup_batch.py).
_TERMINAL_DEVICES = (
    "SELECT d.id, d.phone, d.enterprise_id, d.car_id, d.auth_code, d.device_sn, d.state, d.registered_terminal_id, "
    "d.registered_manufacturer_id, d.registered_terminal_model, d.expected_terminal_id, d.expected_imei, "
    "d.registered_imei, coalesce(p.require_imei, false) AS require_imei, "
    "coalesce(p.approve_reregistration, false) AS approve_reregistration, "
    "coalesce(p.approval_window_min, 0) AS approval_window_min, "
    "(d.state = 3 OR d.offline_time > now() - make_interval(mins => coalesce(p.approval_window_min, 0))) "
    "IS TRUE AS recently_online, d.protocol "
    "FROM device d JOIN enterprise e ON e.id = d.enterprise_id "
    "LEFT JOIN LATERAL (SELECT rp.* FROM enterprise_registration_policy rp JOIN enterprise pe ON pe.id = rp.enterprise_id "
    "WHERE pe.id = e.id OR (pe.path <> '' AND e.path LIKE pe.path || '%%') ORDER BY length(pe.path) DESC LIMIT 1) p ON true "
    "WHERE d.phone = ANY(%s) AND d.record_state = 1"
)
_RECORD_IMEI = "UPDATE device SET registered_imei = %s WHERE id = %s AND registered_imei IS NULL"
# Compare-and-set on the code seen by the decision: a concurrent registration, de-registration or
# reset in between makes this one fail (result 3) instead of overwriting what the other one did.
# The serial (device_sn) is the administrator's: a registration never replaces it. Only a device recorded
# without one takes the reported terminal id, when no other device of its enterprise has that serial
# (terminal ids are not unique across makers). The reported id is kept in registered_terminal_id.
_STORE_CODE = (
    "UPDATE device SET auth_code = %(code)s, "
    "device_sn = CASE WHEN device_sn = '' AND %(terminal_id)s <> '' AND NOT EXISTS (SELECT 1 FROM device o "
    "WHERE o.enterprise_id = device.enterprise_id AND o.device_sn = %(terminal_id)s AND o.record_state = 1 "
    "AND NOT o.unassigned AND o.id <> device.id) THEN %(terminal_id)s ELSE device_sn END, "
    "manufacturer_id = %(maker)s, terminal_model = %(model)s, protocol_version = %(version)s, "
    "registered_terminal_id = %(terminal_id)s, registered_manufacturer_id = %(maker)s, "
    "registered_terminal_model = %(model)s, registered_at = now() "
    "WHERE id = %(id)s AND auth_code IS NOT DISTINCT FROM %(old_code)s AND state <> 5 RETURNING auth_code"
)
# Other devices of the same enterprise known by the terminal id just reported (as serial or as registered id).
# Runs on every successful registration: both conditions compare with the reported id itself (the device's
# registered_terminal_id was just set to it), so each is one probe of its index (migration 0044), never a
# read of every device.
# The enterprise is given, not looked up in a subquery: with a value the planner knows how many terminals that
# enterprise has, and for a large one it takes the (enterprise, terminal id) indexes of migration 0044; behind an
# InitPlan it assumed an average enterprise and read the whole enterprise through its index.
_SAME_TERMINAL_ID = (
    "SELECT o.id, o.phone FROM device o "
    "WHERE o.enterprise_id = %(enterprise_id)s AND o.id <> %(id)s "
    "AND o.record_state = 1 AND (o.device_sn = %(terminal_id)s OR o.registered_terminal_id = %(terminal_id)s) "
    "ORDER BY o.id LIMIT 5"
)
_DEREGISTER = (
    "UPDATE device SET auth_code = NULL, registered_terminal_id = NULL, registered_manufacturer_id = NULL, "
    "registered_terminal_model = NULL, registered_imei = NULL, registered_at = NULL WHERE id = %s AND auth_code = %s RETURNING id"
)
_ROOT_ENTERPRISE = "SELECT id FROM enterprise WHERE parent_id IS NULL ORDER BY id LIMIT 1"
_INSERT_UNASSIGNED = (
    "INSERT INTO device (enterprise_id, phone, device_sn, manufacturer_id, terminal_model, "
    "protocol_version, auth_code, unassigned, registered_terminal_id, registered_manufacturer_id, "
    "registered_terminal_model, registered_at) "
    "VALUES (%(enterprise)s, %(phone)s, %(sn)s, %(maker)s, %(model)s, %(version)s, %(code)s, true, "
    "%(terminal_id)s, %(maker)s, %(model)s, now()) "
    "ON CONFLICT (phone) WHERE record_state = 1 DO NOTHING RETURNING id"
)


async def terminal_devices_async(conn: AsyncConnection[Any], phones: list[str]) -> dict[str, dict[str, Any]]:
    """The live device of each canonical phone with its registration policy (the fields of
    gateway.devices.DeviceRecord), in one query: phone -> row, for the phones found."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_TERMINAL_DEVICES, (phones,))
        return {row["phone"]: row for row in await cur.fetchall()}


async def store_code_async(conn: AsyncConnection[Any], device_id: int, *, code: str, old_code: str | None,
                           terminal_id: str, manufacturer_id: str, terminal_model: str,
                           protocol_version: str) -> str | None:
    """Issue ``code`` and record the reported identity if the device still has ``old_code`` and is not
    disabled; the new code, or None when another registration, a reset or a deletion came first."""
    row = await (await conn.execute(_STORE_CODE, {
        "code": code, "terminal_id": terminal_id, "maker": manufacturer_id, "model": terminal_model,
        "version": protocol_version, "id": device_id, "old_code": old_code})).fetchone()
    return None if row is None else str(row[0])


async def devices_sharing_terminal_id_async(conn: AsyncConnection[Any], device_id: int, enterprise_id: int,
                                            terminal_id: str) -> list[tuple[int, str]]:
    """(id, phone) of at most 5 other live devices of the device's enterprise known by ``terminal_id``."""
    rows = await (await conn.execute(_SAME_TERMINAL_ID, {"id": device_id, "enterprise_id": enterprise_id,
                                                         "terminal_id": terminal_id})).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


async def record_imei_async(conn: AsyncConnection[Any], device_id: int, imei: str) -> None:
    """Keep the first IMEI a device authenticated with (a recorded one is never replaced)."""
    await conn.execute(_RECORD_IMEI, (imei, device_id))


async def deregister_async(conn: AsyncConnection[Any], device_id: int, auth_code: str) -> bool:
    """Clear the code and the recorded identity if ``auth_code`` is still the device's code."""
    return await (await conn.execute(_DEREGISTER, (device_id, auth_code))).fetchone() is not None


async def root_enterprise_async(conn: AsyncConnection[Any]) -> int | None:
    """The first enterprise without a parent (auto-registration's default home), or None."""
    row = await (await conn.execute(_ROOT_ENTERPRISE)).fetchone()
    return None if row is None else int(row[0])


async def insert_unassigned_async(conn: AsyncConnection[Any], *, enterprise_id: int, phone: str, device_sn: str,
                                  code: str, terminal_id: str, manufacturer_id: str, terminal_model: str,
                                  protocol_version: str) -> int | None:
    """An auto-registered device in the unassigned pool of ``enterprise_id``; its id, or None when a
    live device has that phone already (registered concurrently)."""
    row = await (await conn.execute(_INSERT_UNASSIGNED, {
        "enterprise": enterprise_id, "phone": phone, "sn": device_sn, "terminal_id": terminal_id,
        "maker": manufacturer_id, "model": terminal_model, "version": protocol_version, "code": code})).fetchone()
    return None if row is None else int(row[0])


# A request not decided, or an approval not used, in time expires: an old approval must not let a
# copy in days later, and an old pending request must not keep the next one from being shown.
_EXPIRE_REQUESTS = (
    "UPDATE registration_request SET state = 'expired' WHERE device_id = %(device)s "
    "AND state IN ('pending', 'approved') "
    "AND coalesce(decided_at, requested_at) < now() - make_interval(mins => greatest(%(window)s, 10))"
)
_USE_APPROVED = (
    "UPDATE registration_request SET state = 'used' WHERE device_id = %s AND state = 'approved' "
    "AND terminal_id = %s AND manufacturer_id = %s AND terminal_model = %s RETURNING id"
)
_OPEN_OR_REFUSED = (
    "SELECT 1 FROM registration_request WHERE device_id = %s AND (state IN ('pending', 'approved') "
    "OR (state = 'refused' AND decided_at > now() - make_interval(mins => %s))) LIMIT 1"
)
_INSERT_PENDING = (
    "INSERT INTO registration_request (enterprise_id, device_id, phone, terminal_id, manufacturer_id, "
    "terminal_model, peer) VALUES (%(enterprise)s, %(device)s, %(phone)s, %(terminal_id)s, %(maker)s, "
    "%(model)s, %(peer)s) ON CONFLICT (device_id) WHERE state IN ('pending', 'approved') DO NOTHING RETURNING id"
)


async def expire_requests_async(conn: AsyncConnection[Any], device_id: int, window_min: int) -> None:
    """Expire the device's requests not decided, or approvals not used, within max(window, 10) minutes."""
    await conn.execute(_EXPIRE_REQUESTS, {"device": device_id, "window": window_min})


async def use_approval_async(conn: AsyncConnection[Any], device_id: int, terminal_id: str, manufacturer_id: str,
                             terminal_model: str) -> bool:
    """Mark used the device's approved request for exactly this identity; whether there was one."""
    row = await (await conn.execute(_USE_APPROVED, (device_id, terminal_id, manufacturer_id,
                                                    terminal_model))).fetchone()
    return row is not None


async def request_blocks_async(conn: AsyncConnection[Any], device_id: int, window_min: int) -> bool:
    """Whether the device has an open request, or one refused less than ``window_min`` minutes ago."""
    return await (await conn.execute(_OPEN_OR_REFUSED, (device_id, window_min))).fetchone() is not None


async def insert_pending_request_async(conn: AsyncConnection[Any], *, enterprise_id: int, device_id: int, phone: str,
                                       terminal_id: str, manufacturer_id: str, terminal_model: str,
                                       peer: str | None) -> int | None:
    """A new pending request; its id, or None when the device has an open one already (one per device)."""
    row = await (await conn.execute(_INSERT_PENDING, {
        "enterprise": enterprise_id, "device": device_id, "phone": phone, "terminal_id": terminal_id,
        "maker": manufacturer_id, "model": terminal_model, "peer": peer})).fetchone()
    return None if row is None else int(row[0])
