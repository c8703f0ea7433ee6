"""Fence bindings, district outlines and the area vehicle search (platform-spec §2 fence, §7 geoMapData).

- ``POST /api/fence/{id}/bind.json`` / ``unbind.json`` ``{"carIds": [...]}`` (``fence:fence``, the spec's
  "platform fence" action): many vehicles at once. The fence must be in the caller's scope (else 404) and
  every car a live car of the fence's enterprise or below it: one that is not (another enterprise's, a
  deleted one, none) refuses the whole request with a 404 naming it. Only rows of fence_binding change;
  the terminal sync and the fence step read them (nothing is sent from here).
- ``POST /api/fence/binding/import.json`` (multipart ``file``, XLSX or CSV; ``fence:import``): columns fence
  name, plate number (headers 围栏名称 / 车牌号 or fenceName / plateNumber); each row bound or refused with its
  reason (``errors``: row number and message), like the other imports' refused rows.
- ``GET /api/common/geoMapData/{id}.json`` (``fence:query``): the province / city / district with adcode
  ``id``: ``{data: WKT (WGS-84), centerLat, centerLng, name, level, adcode}``; an adcode no district has
  answers null (platform-spec §8's fallback "district geo data returns null"), text that is no adcode is a 400.
- ``GET /api/common/districtTree.json`` (``fence:query``): every province / city / district of the same data,
  as ``[{adcode, name, children?, outline?}]`` (``fleet.geo.district_tree``; ``outline: false``: geoMapData has
  no outline of it), for the console's district picker.
- ``POST /api/fence/areaSearch.json`` (``fence:query``): api/area_search.py.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, current_app, request
from shapely.geometry import MultiPolygon, Polygon

from api.area_search import search_area
from api.db import get_db
from api.errors import BadRequest, NotFound, in_caller_language
from api.http import json_body, ok
from api.query import spreadsheet
from api.security import request_scope, requires
from fleet.geo import district_tree, shared_offline
from warehouse.queries import fences

bp = Blueprint("fences", __name__)
MAX_CARS = 1000  # one bind / unbind request
_ADCODE = re.compile(r"[0-9]{6}")
FENCE_HEADERS = ("围栏名称", "fencename")
PLATE_HEADERS = ("车牌号", "platenumber")


def _fence(conn: Any, fence_id: int) -> dict[str, Any]:
    found = fences.fence_in_scope(conn, request_scope(), fence_id)
    if found is None:
        raise NotFound(f"fence {fence_id} 不存在 (does not exist)")
    return found


def _car_ids(body: Any) -> list[int]:
    ids = body.get("carIds") if isinstance(body, dict) else None
    if not isinstance(ids, list) or not ids or len(ids) > MAX_CARS or any(
            isinstance(i, bool) or not isinstance(i, int) or not 0 < i < 2**63 for i in ids):
        raise BadRequest(f"请选择车辆 (field 'carIds': a list of 1 to {MAX_CARS} car ids)", data={"field": "carIds"})
    return list(dict.fromkeys(ids))


@bp.post("/api/fence/<int:fence_id>/bind.json")
@requires("fence", "fence")
def bind(fence_id: int) -> dict[str, Any]:
    """``{bound: new bindings, total: cars named}``; binding a bound car again changes nothing."""
    body = json_body()
    with get_db().connection() as conn, conn.transaction():
        fence = _fence(conn, fence_id)  # another enterprise's fence: 404 whatever the body
        car_ids = _car_ids(body)
        found = fences.cars_below(conn, fence["path"], car_ids)
        missing = [i for i in car_ids if i not in found]
        if missing:
            raise NotFound(f"车辆不存在或不属于围栏的企业 (field 'carIds': car {missing[0]} does not exist or is not "
                           "of the fence's enterprise)", data={"field": "carIds", "carId": missing[0]})
        bound = fences.bind(conn, fence_id, found.items())
    return ok({"bound": bound, "total": len(car_ids)})


@bp.post("/api/fence/<int:fence_id>/unbind.json")
@requires("fence", "fence")
def unbind(fence_id: int) -> dict[str, Any]:
    """``{unbound: bindings removed}``; a car that was not bound is no error."""
    body = json_body()
    with get_db().connection() as conn, conn.transaction():
        _fence(conn, fence_id)
        car_ids = _car_ids(body)
        unbound = fences.unbind(conn, fence_id, car_ids)
    return ok({"unbound": unbound})


def _column(head: list[Any], names: tuple[str, ...]) -> int:
    for index, cell in enumerate(head):
        if isinstance(cell, str) and cell.strip().lower() in names:
            return index
    raise BadRequest(f"表头缺少列 {names[0]} (the header has no column {names[0]} / {names[1]})")


@bp.post("/api/fence/binding/import.json")
@requires("fence", "import")
def import_bindings() -> dict[str, Any]:
    """``{total, bound, errors: [{row, message, localMessage}]}``: each row binds its plate to its fence or is
    refused (``message`` the Chinese text, ``localMessage`` the caller's language, as an error reply)."""
    upload = request.files.get("file")
    if upload is None:
        raise BadRequest("缺少文件 (multipart field 'file' with an XLSX or CSV file is required)")
    max_rows = current_app.config["FLEET_API_SETTINGS"].import_max_rows
    rows = list(spreadsheet.read_rows(upload.read(), max_rows + 1))
    if not rows:
        raise BadRequest("文件为空 (the file has no header row)")
    _, head = rows[0]
    fence_col, plate_col = _column(head, FENCE_HEADERS), _column(head, PLATE_HEADERS)
    data = [(number, cells) for number, cells in rows[1:] if any(c not in (None, "") for c in cells)]
    if len(data) > max_rows:
        raise BadRequest(f"行数过多 (at most {max_rows} rows)")
    errors: list[dict[str, Any]] = []
    bound = 0
    scope = request_scope()
    with get_db().connection() as conn, conn.transaction():
        for number, cells in data:
            fence_name = _cell(cells, fence_col)
            plate = _cell(cells, plate_col)
            problem, pair = _import_row(conn, scope, fence_name, plate)
            if problem:
                errors.append(in_caller_language({"row": number, "message": problem}))
                continue
            assert pair is not None
            bound += fences.bind(conn, pair[0], [pair[1]])
    return ok({"total": len(data), "bound": bound, "errors": errors})


def _cell(cells: list[Any], index: int) -> str:
    value = cells[index] if index < len(cells) else None
    return "" if value is None else str(value).strip()


def _import_row(conn: Any, scope: Any, fence_name: str, plate: str) -> tuple[str, tuple[int, tuple[int, int]] | None]:
    if not fence_name or not plate:
        return "围栏名称和车牌号不能为空 (fence name and plate number are required)", None
    named = fences.fence_by_name(conn, scope, fence_name)
    if not named:
        return f"围栏不存在：{fence_name[:64]} (no fence named {fence_name[:64]!r})", None
    if len(named) > 1:
        return f"多个企业有同名围栏：{fence_name[:64]} (fences named {fence_name[:64]!r} in {len(named)} enterprises)", None
    cars = fences.cars_by_plate(conn, named[0]["path"], plate)
    if len(cars) != 1:
        # the Chinese part names the plate too: a row error is read in one language only
        return (f"车辆不存在或不属于围栏的企业：{plate[:20]} (no car {plate[:20]!r} of the fence's enterprise)" if not cars
                else f"车牌号重复：{plate[:20]} (several cars have the plate {plate[:20]!r})"), None
    return "", (int(named[0]["id"]), cars[0])


@bp.get("/api/common/geoMapData/<string:district_id>.json")
@requires("fence", "query")
def geo_map_data(district_id: str) -> dict[str, Any]:
    """The district's outline as WKT with its centre; ``data`` null for an adcode that names none."""
    if not _ADCODE.fullmatch(district_id):
        raise BadRequest(f"行政区划代码不合法 (the district id is a six-digit adcode, got {district_id[:20]!r})")
    found = shared_offline().district(district_id)
    if found is None:  # platform-spec §8: district geo data returns null
        return ok(None)
    outline = MultiPolygon([Polygon(rings[0], rings[1:]) for rings in found.parts])
    return ok({"data": outline.wkt, "centerLat": found.center_lat, "centerLng": found.center_lng,
               "name": found.name, "level": found.level, "adcode": found.adcode})


@bp.get("/api/common/districtTree.json")
@requires("fence", "query")
def district_tree_view() -> dict[str, Any]:
    """Provinces with their cities and districts (a municipality's districts directly under it), each
    ``{adcode, name, children?, outline?}``; ``outline: false`` on a region geoMapData answers null for."""
    return ok(list(district_tree()))


@bp.post("/api/fence/areaSearch.json")
@requires("fence", "query")
def area_search() -> dict[str, Any]:
    """Vehicles inside an area during a window of at most 24 h: api/area_search.py."""
    with get_db().connection() as conn:
        return ok(search_area(conn, request_scope(), json_body()))


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be a 400 or 404: a geometry that does not compile,
    a window past 24 h, car ids outside the fence's enterprise, a file without the two columns (the contract
    fuzzer knows them)."""
    return ["/api/fence/{id}/bind.json", "/api/fence/{id}/unbind.json", "/api/fence/binding/import.json",
            "/api/common/geoMapData/{id}.json", "/api/fence/areaSearch.json"]
