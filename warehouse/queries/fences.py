"""SQL behind fence bindings and the area vehicle search (api/routes/fences.py). Callers own the transaction.

Tenancy: a fence is reached only inside the caller's scope; the vehicles bound to it are live cars of the
fence's enterprise or below it (its subtree), whatever the caller could see besides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope, like_prefix


def fence_in_scope(conn: Connection[Any], scope: Scope, fence_id: int) -> dict[str, Any] | None:
    """{id, enterprise_id, path} of the fence when the scope holds it, else None."""
    where, params = scope.clause(sql.SQL("f.enterprise_id"))
    statement = sql.SQL("SELECT f.id, f.enterprise_id, e.path FROM fence f JOIN enterprise e ON e.id = f.enterprise_id"
                        " WHERE f.id = %s AND {}").format(where)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(statement, [fence_id, *params]).fetchone()


def fence_by_name(conn: Connection[Any], scope: Scope, name: str) -> list[dict[str, Any]]:
    """Fences of the scope named ``name`` (one per enterprise at most: migration 0041)."""
    where, params = scope.clause(sql.SQL("f.enterprise_id"))
    statement = sql.SQL("SELECT f.id, f.enterprise_id, e.path FROM fence f JOIN enterprise e ON e.id = f.enterprise_id"
                        " WHERE f.name = %s AND {} ORDER BY e.path").format(where)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(statement, [name, *params]).fetchall()


def cars_below(conn: Connection[Any], enterprise_path: str, car_ids: Sequence[int]) -> dict[int, int]:
    """{car id: its enterprise} of the live cars among ``car_ids`` whose enterprise is ``enterprise_path``'s
    or below it."""
    rows = conn.execute(
        "SELECT c.id, c.enterprise_id FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
        " WHERE c.id = ANY(%s) AND c.record_state = 1 AND e.path LIKE %s",
        (list(car_ids), like_prefix(enterprise_path))).fetchall()
    return {int(r[0]): int(r[1]) for r in rows}


def cars_by_plate(conn: Connection[Any], enterprise_path: str, plate: str) -> list[tuple[int, int]]:
    """(car id, enterprise) of the live cars with ``plate`` at ``enterprise_path`` or below."""
    rows = conn.execute(
        "SELECT c.id, c.enterprise_id FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
        " WHERE c.plate_number = %s AND c.record_state = 1 AND e.path LIKE %s ORDER BY c.id",
        (plate, like_prefix(enterprise_path))).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


def bind(conn: Connection[Any], fence_id: int, cars: Iterable[tuple[int, int]]) -> int:
    """Binds (car id, car's enterprise) pairs to the fence; an existing binding stays. How many are new."""
    pairs = list(cars)
    if not pairs:
        return 0
    cur = conn.execute(
        "INSERT INTO fence_binding (fence_id, car_id, enterprise_id)"
        " SELECT %s, car_id, enterprise_id FROM unnest(%s::bigint[], %s::bigint[]) AS t(car_id, enterprise_id)"
        " ON CONFLICT (fence_id, car_id) DO NOTHING",
        (fence_id, [p[0] for p in pairs], [p[1] for p in pairs]))
    return cur.rowcount


def unbind(conn: Connection[Any], fence_id: int, car_ids: Sequence[int]) -> int:
    """Removes the fence's bindings of ``car_ids``: how many there were."""
    cur = conn.execute("DELETE FROM fence_binding WHERE fence_id = %s AND car_id = ANY(%s)", (fence_id, list(car_ids)))
    return cur.rowcount


# --- area vehicle search (its visits: warehouse/queries/area_visits.py) ----------------------------------


def cars_named(conn: Connection[Any], car_ids: Sequence[int]) -> dict[int, tuple[str, str]]:
    """{car id: (plate number, enterprise name)}."""
    rows = conn.execute("SELECT c.id, c.plate_number, e.name FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
                        " WHERE c.id = ANY(%s)", (list(car_ids),)).fetchall()
    return {int(r[0]): (r[1], r[2]) for r in rows}
