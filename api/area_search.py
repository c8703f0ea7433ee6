"""Area vehicle search (label point business type 4, platform-spec §9): which vehicles were inside an area
during a time window, one row per visit.

Request ``{geometry, shape?, startTime, endTime}``: ``geometry`` as a fence's circle, rectangle or polygon
(fleet/geofence/geometry.py; ``shape`` may be left out, it is read from the geometry's keys), the window at
most 24 h (``MAX_WINDOW_S``; beyond: a 400). Answer ``{list: [{carId, plateNumber, enterpriseName, enterTime,
exitTime}], total}``, by enter time: a visit runs from the first fix inside to the last fix inside before a
fix outside (or the window's end); fixes are the stored gps rows of the caller's scope.

How: the visits are computed in PostgreSQL and only they leave it (warehouse/queries/area_visits.py: the
exact inside test in SQL, runs of inside fixes checked on the primary key); docs/performance.md "Area vehicle
search".
"""

from __future__ import annotations

from typing import Any

from api.errors import BadRequest
from api.query.values import coerce
from fleet.geofence import InvalidGeometry, compile_shape
from fleet.geofence.geometry import parse_shape
from warehouse.queries import area_visits, fences
from warehouse.queries.scope import Scope

MAX_WINDOW_S = 24 * 3600
# A searched area is drawn by hand: its vertices go into the SQL inside test as parameters (14 an edge, of
# PostgreSQL's 65,535), so a larger outline is refused with a 400 rather than failing in the database.
MAX_AREA_VERTICES = 2_000
AREA_SHAPES = {"center": "circle", "topLeft": "rectangle", "rings": "polygon"}


def _shape_of(body: dict[str, Any]) -> tuple[str, Any]:
    geometry = body.get("geometry")
    shape = body.get("shape")
    if shape is None and isinstance(geometry, dict):
        shape = next((s for key, s in AREA_SHAPES.items() if key in geometry), None)
    if shape not in AREA_SHAPES.values():
        raise BadRequest("区域须为圆形、矩形或多边形 (field 'geometry': a circle {center, radius}, a rectangle "
                         "{topLeft, bottomRight} or a polygon {rings})", data={"field": "geometry"})
    return str(shape), geometry


def _window(body: dict[str, Any]) -> tuple[Any, Any]:
    start, end = coerce("startTime", "time", body.get("startTime")), coerce("endTime", "time", body.get("endTime"))
    if start is None or end is None:
        raise BadRequest("请选择时间范围 (fields 'startTime' and 'endTime' are required)", data={"field": "startTime"})
    if end <= start:
        raise BadRequest("结束时间须晚于开始时间 (field 'endTime': the end must be after the start)",
                         data={"field": "endTime"})
    if (end - start).total_seconds() > MAX_WINDOW_S:
        raise BadRequest("查询时间范围不能超过 24 小时 (the time window may not exceed 24 hours)",
                         data={"field": "endTime"})
    return start, end


def search_area(conn: Any, scope: Scope, body: Any) -> dict[str, Any]:
    """The visits; BadRequest for a body that is not a circle / rectangle / polygon and a window of 24 h or less."""
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (body: {geometry, startTime, endTime})")
    shape, geometry = _shape_of(body)
    rings = geometry.get("rings") if isinstance(geometry, dict) else None
    if isinstance(rings, list) and sum(len(ring) for ring in rings if isinstance(ring, list)) > MAX_AREA_VERTICES:
        raise BadRequest(f"区域顶点不能超过 {MAX_AREA_VERTICES} 个 (field 'geometry': at most {MAX_AREA_VERTICES} "
                         "vertices in all rings)", data={"field": "geometry"})
    try:
        area = compile_shape(parse_shape(shape, geometry))
    except InvalidGeometry as exc:
        raise BadRequest(f"区域不合法 (field 'geometry': {str(exc)[:300]})", data={"field": "geometry"}) from None
    start, end = _window(body)
    visits = [{"carId": car_id, "deviceId": device_id, "enterTime": enter_at, "exitTime": exit_at}
              for device_id, car_id, enter_at, exit_at in area_visits.area_visits(conn, scope, start, end, area)]
    names = fences.cars_named(conn, sorted({v["carId"] for v in visits if v["carId"] is not None}))
    for visit in visits:
        plate, enterprise = names.get(visit["carId"], ("", ""))
        visit["plateNumber"], visit["enterpriseName"] = plate, enterprise
    visits.sort(key=lambda v: (v["enterTime"], v["carId"] or 0))
    return {"list": visits, "total": len(visits)}
