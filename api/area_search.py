"""Area vehicle search (label point business type 4, platform-spec §9): which vehicles were inside an area
during a time window, one row per visit.

Request ``{geometry, shape?, startTime, endTime}``: ``geometry`` as a fence's circle, rectangle or polygon
(fleet/geofence/geometry.py; ``shape`` may be left out, it is read from the geometry's keys), the window at
most 24 h (``MAX_WINDOW_S``; beyond: a 400). Answer ``{list: [{carId, plateNumber, enterpriseName, enterTime,
exitTime}], total}``, by enter time: a visit runs from the first fix inside to the last fix inside before a
fix outside (or the window's end); fixes are the stored gps rows of the caller's scope.

How: the area's bounding box on gps (fix_at range over the daily partitions, then lng/lat) finds the
fixes inside it, each marked (one primary-key probe for the fix before it) when a fix outside the box came
before it, so a visit does not run across a trip away; those are
tested exactly with shapely (``intersects_xy``, vectorised), so a fix just outside the area but inside the
box ends a visit too (docs/performance.md "Area vehicle search").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from api.errors import BadRequest
from api.query.values import coerce
from fleet.geofence import InvalidGeometry, compile_shape
from fleet.geofence.geometry import parse_shape
from fleet.geofence.shapes import CircleArea
from warehouse.queries import fences
from warehouse.queries.scope import Scope

MAX_WINDOW_S = 24 * 3600
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


def _inside(area: Any, lngs: np.ndarray, lats: np.ndarray) -> np.ndarray:
    if isinstance(area, CircleArea):
        x = (lngs - area.frame.lng0) * area.frame.m_per_deg_lng
        y = (lats - area.frame.lat0) * area.frame.m_per_deg_lat
        return np.asarray(x * x + y * y <= area.radius_m**2)
    return np.asarray(shapely.intersects_xy(area.geometry, lngs, lats))  # the boundary counts as inside


def search_area(conn: Any, scope: Scope, body: Any) -> dict[str, Any]:
    """The visits; BadRequest for a body that is not a circle / rectangle / polygon and a window of 24 h or less."""
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (body: {geometry, startTime, endTime})")
    shape, geometry = _shape_of(body)
    try:
        area = compile_shape(parse_shape(shape, geometry))
    except InvalidGeometry as exc:
        raise BadRequest(f"区域不合法 (field 'geometry': {str(exc)[:300]})", data={"field": "geometry"}) from None
    start, end = _window(body)
    rows = fences.area_candidates(conn, scope, start, end, area.bounds)
    visits = _visits(area, rows)
    names = fences.cars_named(conn, sorted({v["carId"] for v in visits if v["carId"] is not None}))
    for visit in visits:
        plate, enterprise = names.get(visit["carId"], ("", ""))
        visit["plateNumber"], visit["enterpriseName"] = plate, enterprise
    visits.sort(key=lambda v: (v["enterTime"], v["carId"] or 0))
    return {"list": visits, "total": len(visits)}


def _visits(area: Any, rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Runs of consecutive inside fixes per device -> {carId, deviceId, enterTime, exitTime}. ``rows`` are the
    in-box fixes (warehouse.queries.fences.area_candidates): a fix outside the area, or an ``arrived`` mark (a
    fix outside the box came before), ends a run."""
    if not rows:
        return []
    lngs = np.fromiter((r[3] for r in rows), float, len(rows))
    lats = np.fromiter((r[4] for r in rows), float, len(rows))
    inside = _inside(area, lngs, lats)
    visits: list[dict[str, Any]] = []
    open_visit: dict[str, Any] | None = None
    for row, is_in in zip(rows, inside, strict=True):
        device_id, car_id, fix_at, arrived = row[0], row[1], row[2], row[5]
        if not is_in or arrived or open_visit is None or open_visit["deviceId"] != device_id \
                or open_visit["carId"] != car_id:
            open_visit = None
        if not is_in:
            continue
        if open_visit is None:
            open_visit = {"carId": car_id, "deviceId": device_id, "enterTime": fix_at, "exitTime": fix_at}
            visits.append(open_visit)
        else:
            open_visit["exitTime"] = fix_at
    return visits
