"""Live state of vehicles and devices: online state, business state, last position; enterprise tree."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import BadRequest, NotFound
from api.http import ok
from api.positions import position_reply
from api.query.values import MAX_ID, parse_positive_int
from api.security import current_principal, request_scope, requires
from fleet.enums import DeviceState
from warehouse.queries import follows, vehicles
from warehouse.queries.scope import Scope

bp = Blueprint("vehicles", __name__)


def _state_list(row: dict[str, Any] | None) -> list[dict[str, int]]:
    return [] if row is None else [{"state": 1 if row["state"] == DeviceState.ONLINE else 0}]


def _biz_list(row: dict[str, Any] | None) -> list[dict[str, int]]:
    return [] if row is None else [{"state": int(row["bizState"])}]


def _device_or_404(device_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        row = vehicles.device_state(conn, request_scope(), device_id)
    if row is None:
        raise NotFound(f"device {device_id} 不存在 (does not exist)")
    return row


def _car_master_state(car_id: int) -> dict[str, Any] | None:
    """The car's master device state (None when the car has no device); 404 when no such car."""
    with get_db().connection() as conn:
        row = vehicles.car_master_state(conn, request_scope(), car_id)
    if row is None:
        raise NotFound(f"car {car_id} 不存在 (does not exist)")
    return row if row["masterDeviceId"] is not None else None


@bp.get("/api/device/<int:device_id>/state.json")
@requires("device", "get")
def device_state(device_id: int) -> dict[str, Any]:
    return ok(_state_list(_device_or_404(device_id)))


@bp.get("/api/device/<int:device_id>/bizState.json")
@requires("device", "get")
def device_biz_state(device_id: int) -> dict[str, Any]:
    return ok(_biz_list(_device_or_404(device_id)))


@bp.get("/api/car/<int:car_id>/state.json")
@requires("car", "get")
def car_state(car_id: int) -> dict[str, Any]:
    return ok(_state_list(_car_master_state(car_id)))


@bp.get("/api/car/<int:car_id>/bizState.json")
@requires("car", "get")
def car_biz_state(car_id: int) -> dict[str, Any]:
    return ok(_biz_list(_car_master_state(car_id)))


@bp.put("/api/car/<int:car_id>/follow.json")
@requires("car", "query")
def follow_car(car_id: int) -> dict[str, Any]:
    """Adds a car of the caller's scope to their followed cars (platform-spec §7 carUserView); 404 for a car
    outside it. Idempotent."""
    scope = request_scope()
    with get_db().connection() as conn:
        if not follows.follow(conn, scope, current_principal().user_id, car_id):
            raise NotFound(f"car {car_id} 不存在 (does not exist)")
    return ok({"carId": car_id, "followed": True})


@bp.delete("/api/car/<int:car_id>/follow.json")
@requires("car", "query")
def unfollow_car(car_id: int) -> dict[str, Any]:
    """Removes a car from the caller's followed cars; 404 for a car outside their scope. Idempotent."""
    scope = request_scope()
    with get_db().connection() as conn:
        if not follows.car_in_scope(conn, scope, car_id):
            raise NotFound(f"car {car_id} 不存在 (does not exist)")
        follows.unfollow(conn, current_principal().user_id, car_id)
    return ok({"carId": car_id, "followed": False})


def _last(what: str, **key: Any) -> dict[str, Any]:
    """Last position reply; 404 when the device/car is unknown here, data null when it has none."""
    with get_db().connection() as conn:
        row = vehicles.last_position(conn, request_scope(), **key)
    if row is None:
        raise NotFound(f"{what} 不存在 (does not exist)")
    return ok(None if row["fix_at"] is None else position_reply(row))


@bp.get("/api/gps/device/<int:device_id>/last.json")
@requires("gps", "get")
def last_by_device(device_id: int) -> dict[str, Any]:
    return _last(f"device {device_id}", device_id=device_id)


@bp.get("/api/gps/car/<int:car_id>/last.json")
@requires("gps", "get")
def last_by_car(car_id: int) -> dict[str, Any]:
    return _last(f"car {car_id}", car_id=car_id)


@bp.get("/api/gps/vin/<string:vin>/last.json")
@requires("gps", "get")
def last_by_vin(vin: str) -> dict[str, Any]:
    return _last(f"VIN {vin}", vin=vin)


SUBSIDIARY_FIELDS = ("id", "name", "shortName", "type", "parentId", "state", "children")


@bp.get("/api/aas/subsidiary.json")
@requires("enterprise", "query")
def subsidiary() -> dict[str, Any]:
    """[root] where root is the caller's enterprise (or ``enterpriseId`` inside its subtree) with
    nested ``children``; ``select`` picks fields among SUBSIDIARY_FIELDS."""
    raw_select = request.args.get("select", "")
    select = list(dict.fromkeys(raw_select.split(","))) if raw_select else list(SUBSIDIARY_FIELDS)
    unknown = [s for s in select if s not in SUBSIDIARY_FIELDS]
    if unknown:
        shown = ", ".join(map(repr, unknown))[:200]
        raise BadRequest(f"未知字段：{shown} (unknown field(s) for subsidiary: {shown})")
    principal = current_principal()
    caller = Scope(principal.enterprise_id, principal.enterprise_path, subtree=True)
    raw_id = request.args.get("enterpriseId")
    enterprise_id = None if raw_id is None else parse_positive_int("enterpriseId", raw_id, 0, MAX_ID)
    with get_db().connection() as conn:
        root_path = principal.enterprise_path
        if enterprise_id is not None:
            path = vehicles.enterprise_path(conn, enterprise_id)
            if path is None or not caller.contains_path(path):
                raise NotFound(f"enterprise {raw_id} 不存在 (does not exist)")
            root_path = path
        rows = vehicles.enterprise_subtree(conn, root_path)
    return ok(_tree(rows, root_path, select))


def _tree(rows: list[dict[str, Any]], root_path: str, select: list[str]) -> list[dict[str, Any]]:
    nodes: dict[int, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    for row in rows:  # parents come first (ordered by path length)
        node = {k: row[k] for k in select if k != "children"}
        if "children" in select:
            node["children"] = []
        nodes[row["id"]] = node
        parent = nodes.get(row["parentId"]) if row["path"] != root_path else None
        if parent is not None and "children" in parent:
            parent["children"].append(node)
        elif row["path"] == root_path:
            roots.append(node)
    return roots


@bp.post("/api/car/enterprise.json")
@requires("car", "query")
def cars_of_enterprise() -> dict[str, Any]:
    """platform-spec §7: the vehicles of one enterprise (``enterpriseId``, inside the caller's tree, else
    404; the caller's own when absent), its subsidiaries' too unless ``isParent=false``; the body is a carView
    filter and the query parameters page and sort as on ``/api/common/query/carView.json``."""
    from api.http import json_body
    from api.query.entities import CAR_VIEW
    from api.query.grammar import parse_query
    from api.query.runner import run_page

    principal = current_principal()
    caller = Scope(principal.enterprise_id, principal.enterprise_path, subtree=True)
    raw_id = request.args.get("enterpriseId")
    query = parse_query(CAR_VIEW, request.args, json_body())
    with get_db().connection() as conn:
        enterprise_id, path = principal.enterprise_id, principal.enterprise_path
        if raw_id is not None:
            enterprise_id = parse_positive_int("enterpriseId", raw_id, 0, MAX_ID)
            found = vehicles.enterprise_path(conn, enterprise_id)
            if found is None or not caller.contains_path(found):
                raise NotFound(f"enterprise {raw_id} 不存在 (does not exist)")
            path = found
        return ok(run_page(conn, query, Scope(enterprise_id, path, subtree=query.is_parent)))


SEARCH_MAX_CHARS = 64
SEARCH_DEFAULT_LIMIT = 50
SEARCH_MAX_LIMIT = 200


@bp.get("/api/car/search.json")
@requires("car", "query")
def search_cars() -> dict[str, Any]:
    """The vehicle search of the live map's tree and table: ``keyword`` (1-64 characters, trimmed)
    contained in a car's plate, VIN, SIM (terminal phone, ICCID, MSISDN), terminal id or driver name,
    over the caller's tree (its own enterprise only with ``isParent=false``). Rows ``{carId,
    masterDeviceId, plateNumber, enterpriseId, matchedField, matchedValue}``, at most ``limit``."""
    from warehouse.queries.car_search import search_cars as query_cars

    keyword = (request.args.get("keyword") or "").strip()
    if not keyword or len(keyword) > SEARCH_MAX_CHARS:
        raise BadRequest(f"参数不合法 (query parameter 'keyword' must have 1 to {SEARCH_MAX_CHARS} characters)")
    limit = parse_positive_int("limit", request.args.get("limit"), SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT)
    with get_db().connection() as conn:
        return ok(query_cars(conn, request_scope(), keyword, limit))
