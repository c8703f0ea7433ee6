"""SQL behind the vehicle, terminal, SIM, driver and group hooks (api/query/fleet_hooks.py) and
their routes (api/routes/fleet.py). Callers own the transaction; rows are live (record_state 1)."""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

# Tables a car, device, SIM or driver may name; identifiers only from here.
TENANT_TABLES = frozenset({"car", "car_group", "car_model", "car_type", "device", "device_producer", "device_type",
                           "driver", "sim"})


def tenant_of(conn: Connection[Any], table: str, record_id: int) -> int | None:
    """The enterprise of a live row of ``table``; None when absent or deleted."""
    if table not in TENANT_TABLES:
        raise ValueError(f"not a tenant table: {table}")
    row = conn.execute(sql.SQL("SELECT enterprise_id FROM {} WHERE id = %s AND record_state = 1")
                       .format(sql.Identifier(table)), (record_id,)).fetchone()
    return None if row is None else int(row[0])


def id_by_key(conn: Connection[Any], table: str, column: str, value: str, enterprise_id: int) -> int | None:
    """The live row of the enterprise whose ``column`` is ``value`` (a group by name, a device by phone)."""
    if table not in TENANT_TABLES:
        raise ValueError(f"not a tenant table: {table}")
    row = conn.execute(sql.SQL("SELECT id FROM {} WHERE {} = %s AND enterprise_id = %s AND record_state = 1"
                               " ORDER BY id LIMIT 1").format(sql.Identifier(table), sql.Identifier(column)),
                       (value, enterprise_id)).fetchone()
    return None if row is None else int(row[0])


def lock_devices(conn: Connection[Any], device_ids: list[int]) -> list[dict[str, Any]]:
    """The live devices among ``device_ids`` with the live car each is fitted to, locked."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            "SELECT d.id, d.enterprise_id, c.id AS car_id FROM device d"
            " LEFT JOIN car c ON c.id = d.car_id AND c.record_state = 1"
            " WHERE d.id = ANY(%s) AND d.record_state = 1 FOR UPDATE OF d", (device_ids,)).fetchall()


def car_device_ids(conn: Connection[Any], car_id: int) -> list[int]:
    rows = conn.execute("SELECT id FROM device WHERE car_id = %s AND record_state = 1 ORDER BY id", (car_id,))
    return [int(r[0]) for r in rows.fetchall()]


def fit_devices(conn: Connection[Any], car_id: int, device_ids: list[int]) -> None:
    """Exactly ``device_ids`` are fitted to the car afterwards (others of it are detached)."""
    conn.execute("UPDATE device SET car_id = NULL, updated_at = now() WHERE car_id = %s AND NOT (id = ANY(%s))",
                 (car_id, device_ids))
    conn.execute("UPDATE device SET car_id = %s, updated_at = now() WHERE id = ANY(%s)"
                 " AND car_id IS DISTINCT FROM %s", (car_id, device_ids, car_id))


def release_car(conn: Connection[Any], car_id: int) -> None:
    """A deleted car frees its devices (their gps rows keep the car id)."""
    conn.execute("UPDATE device SET car_id = NULL, updated_at = now() WHERE car_id = %s", (car_id,))
    conn.execute("UPDATE car SET master_device_id = NULL WHERE id = %s", (car_id,))


def release_device(conn: Connection[Any], device_id: int) -> None:
    """A deleted device leaves its car (as master too) and its SIM card."""
    conn.execute("UPDATE car SET master_device_id = NULL, updated_at = now() WHERE master_device_id = %s",
                 (device_id,))
    conn.execute("UPDATE device SET car_id = NULL WHERE id = %s", (device_id,))
    conn.execute("UPDATE sim SET device_id = NULL, updated_at = now() WHERE device_id = %s AND record_state = 1",
                 (device_id,))


def release_driver(conn: Connection[Any], driver_id: int) -> None:
    conn.execute("UPDATE car SET driver_id = NULL, updated_at = now() WHERE driver_id = %s", (driver_id,))


def sim_of_device(conn: Connection[Any], device_id: int, other_than: int | None) -> int | None:
    """The live SIM card already in the device, other than ``other_than``."""
    row = conn.execute("SELECT id FROM sim WHERE device_id = %s AND record_state = 1 AND id IS DISTINCT FROM %s",
                       (device_id, other_than)).fetchone()
    return None if row is None else int(row[0])


def group_parent(conn: Connection[Any], group_id: int) -> int | None:
    row = conn.execute("SELECT parent_id FROM car_group WHERE id = %s", (group_id,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def group_in_use(conn: Connection[Any], group_id: int) -> bool:
    """Whether live sub-groups or live cars still belong to the group."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM car_group WHERE parent_id = %s AND record_state = 1)"
        " OR EXISTS (SELECT 1 FROM car WHERE group_id = %s AND record_state = 1)", (group_id, group_id)).fetchone()
    return bool(row and row[0])


def set_device_state(conn: Connection[Any], scope: Scope, device_id: int, disable: bool) -> tuple[int, int] | None:
    """Disables (state 5) or enables a live device in scope: (state before, state after); None when
    absent or outside. Enabling gives 2 (offline) to a terminal holding an auth code, else 0
    (unregistered); the streams set online/offline from there."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    with conn.cursor() as cur:
        row = cur.execute(sql.SQL("SELECT state, auth_code IS NOT NULL FROM device WHERE id = %s AND record_state = 1"
                                  " AND {} FOR UPDATE").format(where), [device_id, *params]).fetchone()
        if row is None:
            return None
        before, has_code = int(row[0]), bool(row[1])
        after = 5 if disable else (before if before != 5 else (2 if has_code else 0))
        if after != before:
            cur.execute("UPDATE device SET state = %s, updated_at = now() WHERE id = %s", (after, device_id))
    return before, after


def driver_of_device(conn: Connection[Any], scope: Scope, device_id: int) -> tuple[bool, int | None]:
    """(device found in scope, id of the live driver of its live car or None)."""
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    row = conn.execute(
        sql.SQL("SELECT dr.id FROM device d LEFT JOIN car c ON c.id = d.car_id AND c.record_state = 1"
                " LEFT JOIN driver dr ON dr.id = c.driver_id AND dr.record_state = 1"
                " WHERE d.id = %s AND d.record_state = 1 AND {}").format(where), [device_id, *params]).fetchone()
    if row is None:
        return False, None
    return True, None if row[0] is None else int(row[0])


def store_media(conn: Connection[Any], enterprise_id: int, user_id: int, content_type: str, object_key: str) -> int:
    """A photo whose bytes are in the media store under ``object_key`` (fleet/media_store.py)."""
    row = conn.execute("INSERT INTO media (enterprise_id, content_type, object_key, created_by) VALUES (%s, %s, %s, %s)"
                       " RETURNING id", (enterprise_id, content_type, object_key, user_id)).fetchone()
    assert row is not None
    return int(row[0])


def media(conn: Connection[Any], scope: Scope, media_id: int) -> tuple[str, bytes | None, str | None] | None:
    """(content type, bytes kept in the row (photos before the media store), object key) or None."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    row = conn.execute(sql.SQL("SELECT content_type, content, object_key FROM media WHERE id = %s AND {}").format(where),
                       [media_id, *params]).fetchone()
    if row is None:
        return None
    return str(row[0]), None if row[1] is None else bytes(row[1]), row[2]


def media_tenant(conn: Connection[Any], media_id: int) -> int | None:
    row = conn.execute("SELECT enterprise_id FROM media WHERE id = %s", (media_id,)).fetchone()
    return None if row is None else int(row[0])


def move_media(conn: Connection[Any], media_id: int, enterprise_id: int) -> None:
    """A photo uploaded by a parent's user for a subsidiary's driver moves to the driver's enterprise."""
    conn.execute("UPDATE media SET enterprise_id = %s WHERE id = %s", (enterprise_id, media_id))
