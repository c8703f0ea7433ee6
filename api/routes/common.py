"""Generic query, count, detail and write endpoints (``/api/common/...``), routes made from the
entity declarations of ``api/query/entities.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, current_app, request
from psycopg import Error as DatabaseError

from api.db import get_db
from api.errors import Forbidden, NotFound
from api.http import json_body, ok
from api.query import records
from api.query.entities import CAR_VIEW, COUNTABLE, PERMISSION_OF, QUERYABLE, WRITABLE
from api.query.entities_settings import is_root_path
from api.query.grammar import EntitySpec, parse_conditions_only, parse_query
from api.query.runner import fetch_by_id, run_count, run_page
from api.security import current_principal, request_scope, requires
from warehouse.queries import records as record_queries
from warehouse.queries import vehicles

bp = Blueprint("common", __name__)

def check_root_only(entity: EntitySpec) -> None:
    """Rows no enterprise owns (``EntitySpec.root_only``) are for the platform's administrators only: a caller
    of a root enterprise holding the entity's ``add`` (e.g. device:add, who may register what it lists)."""
    if not entity.root_only:
        return
    principal = current_principal()
    if not is_root_path(principal.enterprise_path) or not principal.may(entity.permission, "add"):
        raise Forbidden(f"只有根企业的管理员可以查看 (only an administrator of the root enterprise holding "
                        f"{entity.permission}:add may read {entity.name})",
                        data={"permission": f"{entity.permission}:add", "rootEnterprise": True})


def _query_view(entity: EntitySpec) -> Callable[[], dict[str, Any]]:
    def view() -> dict[str, Any]:
        check_root_only(entity)
        query = parse_query(entity, request.args, json_body())
        with get_db().connection() as conn:
            return ok(run_page(conn, query, request_scope()))

    view.__name__ = f"query_{entity.name}"
    return view


def _count_view(entity: EntitySpec) -> Callable[[], dict[str, Any]]:
    def view() -> dict[str, Any]:
        check_root_only(entity)
        query = parse_conditions_only(entity, request.args, json_body())
        with get_db().connection() as conn:
            return ok(run_count(conn, query, request_scope()))

    view.__name__ = f"count_{entity.name}"
    return view


for _name, _entity in QUERYABLE.items():
    bp.add_url_rule(
        f"/api/common/query/{_name}.json",
        view_func=requires(PERMISSION_OF[_name], _entity.read_action or "query")(_query_view(_entity)),
        methods=["POST"],
    )
_DEFAULTS_KEY = "fleet_column_defaults"


def _column_defaults() -> dict[tuple[str, str], Any]:
    """The schema's column defaults, read once per process (the schema changes only by a migration, which
    restarts the API); none while the database cannot be read (the meta is served without them)."""
    cached = current_app.extensions.get(_DEFAULTS_KEY)
    if cached is None:
        try:
            with get_db().connection() as conn:
                cached = current_app.extensions[_DEFAULTS_KEY] = record_queries.column_defaults(conn)
        except DatabaseError:
            return {}
    return dict(cached)


def _meta_view(entity: EntitySpec) -> Callable[[], dict[str, Any]]:
    def view() -> dict[str, Any]:
        check_root_only(entity)
        return ok({**records.meta(entity, _column_defaults()), "permission": PERMISSION_OF[entity.name]})

    view.__name__ = f"meta_{entity.name}"
    return view


for _name, _entity in QUERYABLE.items():
    bp.add_url_rule(
        f"/api/common/meta/{_name}.json",
        view_func=requires(PERMISSION_OF[_name], _entity.read_action or "query")(_meta_view(_entity)),
        methods=["GET"],
    )
for _name, _entity in COUNTABLE.items():
    bp.add_url_rule(
        f"/api/common/count/{_name}.json",
        view_func=requires(PERMISSION_OF[_name], _entity.read_action or "query")(_count_view(_entity)),
        methods=["POST"],
    )


# --- create / get / update / delete of the declared writable entities ----------------------------


def _create_view(entity: EntitySpec) -> Callable[[], dict[str, Any]]:
    def view() -> dict[str, Any]:
        body = json_body()
        with get_db().connection() as conn:
            return ok(records.create(conn, entity, current_principal(), body))

    view.__name__ = f"create_{entity.name}"
    return view


def _record_view(entity: EntitySpec) -> Callable[[int], dict[str, Any]]:
    def view(record_id: int) -> dict[str, Any]:
        with get_db().connection() as conn:
            return ok(records.read(conn, entity, request_scope(), record_id))

    view.__name__ = f"get_{entity.name}"
    return view


def _update_view(entity: EntitySpec) -> Callable[[int], dict[str, Any]]:
    def view(record_id: int) -> dict[str, Any]:
        body = json_body()
        with get_db().connection() as conn:
            return ok(records.update(conn, entity, current_principal(), request_scope(), record_id, body))

    view.__name__ = f"update_{entity.name}"
    return view


def _delete_view(entity: EntitySpec) -> Callable[[int], dict[str, Any]]:
    def view(record_id: int) -> dict[str, Any]:
        with get_db().connection() as conn:
            return ok(records.delete(conn, entity, current_principal(), request_scope(), record_id))

    view.__name__ = f"delete_{entity.name}"
    return view


# PATCH /api/common/user/{id}.json is also the caller's own password change (console-spec §7):
# api/routes/console.py answers both (update_view below for the generic update).
SHARED_UPDATE_ROUTES = frozenset({"user"})

for _name, _entity in WRITABLE.items():
    _code = _entity.permission
    bp.add_url_rule(f"/api/common/{_name}.json", view_func=requires(_code, "add")(_create_view(_entity)),
                    methods=["POST"])
    _item = f"/api/common/{_name}/<int:record_id>.json"
    bp.add_url_rule(_item, view_func=requires(_code, "get")(_record_view(_entity)), methods=["GET"])
    if _name not in SHARED_UPDATE_ROUTES:
        bp.add_url_rule(_item, view_func=requires(_code, "update")(_update_view(_entity)), methods=["PATCH"])
    bp.add_url_rule(_item, view_func=requires(_code, "delete")(_delete_view(_entity)), methods=["DELETE"])


def _detail(entity: EntitySpec, record_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        row = fetch_by_id(conn, entity, record_id, request_scope())
    if row is None:
        raise NotFound(f"{entity.name} {record_id} 不存在 (does not exist)")
    return ok(row)


@bp.get("/api/common/carView/<int:car_id>.json")
@requires("car", "get")
def car_view(car_id: int) -> dict[str, Any]:
    return _detail(CAR_VIEW, car_id)


@bp.get("/api/common/deviceCar/<int:device_id>.json")
@requires("device", "get")
def device_car(device_id: int) -> dict[str, Any]:
    """The device and the car it is fitted to (car fields null when it has none)."""
    with get_db().connection() as conn:
        row = vehicles.device_car(conn, request_scope(), device_id)
    if row is None:
        raise NotFound(f"device {device_id} 不存在 (does not exist)")
    return ok(row)
