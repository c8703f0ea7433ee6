"""A fence's or label point's stored geometry (migration 0040's JSON, WGS-84 [lng, lat] pairs) -> a Shape.

One reader for everyone who loads fences: the API validates a write by compiling what this returns
(``compile_shape``), the fence step and the terminal sync read the same rows with it.

    circle     {"center": [lng, lat], "radius": metres}
    rectangle  {"topLeft": [lng, lat], "bottomRight": [lng, lat]}
    polygon    {"rings": [[[lng, lat], ...], [hole...], ...]}      (first ring the shell; closing vertex optional)
    route      {"segments": [{"points": [[lng, lat], ...], "width": m, "minTime": s, "maxTime": s,
                              "speedLimit": km/h, "overspeedDuration": s}, ...]}
    district   {"districtId": "adcode"}                            (the district's polygons: a ``DistrictParts``)
    point      {"point": [lng, lat]}                               (label points only)

Every coordinate must lie in China's range (``CHINA_LNG`` / ``CHINA_LAT``: the platform's terminals report
there and the district data covers only there), so a swapped lng/lat pair is refused rather than stored.
Failure: ``InvalidGeometry`` naming what is wrong (and where: ``rings[0][3]``, ``segments[1].width``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from fleet.geofence.frame import InvalidGeometry
from fleet.geofence.shapes import Area, Circle, LngLat, Rectangle, Route, RouteSegment, Shape, compile_shape

# China's extent with a margin (mainland, Hainan, the South China Sea islands, Taiwan, the north-east tip).
CHINA_LNG = (73.0, 136.0)
CHINA_LAT = (3.0, 54.0)
FENCE_SHAPES = ("circle", "rectangle", "polygon", "route", "district")
LABEL_SHAPES = ("point", *FENCE_SHAPES)
MAX_VERTICES = 100_000  # a district's outline fits; a terminal's 0x8604 carries far fewer

# adcode -> the district's parts ((shell, hole, ...), ...) in WGS-84, or None when no district has it
# (fleet.geo.district_parts is the one the platform uses).
DistrictParts = Callable[[str], tuple[tuple[tuple[LngLat, ...], ...], ...] | None]


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidGeometry(f"{where} must be a number, got {value!r}"[:200])
    return float(value)


def lnglat(value: Any, where: str) -> LngLat:
    """A [lng, lat] pair inside China's range."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise InvalidGeometry(f"{where} must be a [lng, lat] pair, got {value!r}"[:200])
    lng, lat = _number(value[0], f"{where}[0] (lng)"), _number(value[1], f"{where}[1] (lat)")
    if not (CHINA_LNG[0] <= lng <= CHINA_LNG[1] and CHINA_LAT[0] <= lat <= CHINA_LAT[1]):
        raise InvalidGeometry(f"{where} = [{lng}, {lat}] is outside China's range (lng {CHINA_LNG[0]}-{CHINA_LNG[1]}, "
                              f"lat {CHINA_LAT[0]}-{CHINA_LAT[1]}; WGS-84 [lng, lat] order)")
    return lng, lat


def _keys(geometry: Any, shape: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(geometry, dict):
        raise InvalidGeometry(f"a {shape}'s geometry must be an object with {', '.join(required)}")
    missing = [k for k in required if k not in geometry]
    unknown = sorted(set(geometry) - set(required) - set(optional))
    if missing or unknown:
        raise InvalidGeometry(f"a {shape}'s geometry has {', '.join(required)}"
                              + (f"; missing {', '.join(missing)}" if missing else "")
                              + (f"; unknown {', '.join(unknown)[:100]}" if unknown else ""))
    return geometry


def _ring(value: Any, where: str) -> tuple[LngLat, ...]:
    if not isinstance(value, list) or len(value) > MAX_VERTICES:
        raise InvalidGeometry(f"{where} must be a list of at most {MAX_VERTICES} [lng, lat] vertices")
    ring = tuple(lnglat(v, f"{where}[{i}]") for i, v in enumerate(value))
    if len(ring) > 1 and ring[0] == ring[-1]:
        ring = ring[:-1]  # the closing vertex is implied
    if len(ring) < 3:
        raise InvalidGeometry(f"{where} needs at least three distinct vertices")
    return ring


def _optional(segment: dict[str, Any], key: str, where: str, *, positive: bool = False) -> float | None:
    value = segment.get(key)
    if value is None:
        return None
    number = _number(value, f"{where}.{key}")
    if number < 0 or (positive and number == 0):
        raise InvalidGeometry(f"{where}.{key} must be {'positive' if positive else 'zero or more'}, got {number}")
    return number


def _segment(value: Any, where: str) -> RouteSegment:
    seg = _keys(value, "route segment", ("points", "width"), ("minTime", "maxTime", "speedLimit", "overspeedDuration"))
    points = seg["points"]
    if not isinstance(points, list) or not 2 <= len(points) <= MAX_VERTICES:
        raise InvalidGeometry(f"{where}.points must be a list of at least two [lng, lat] points")
    width = _number(seg["width"], f"{where}.width")
    if width <= 0:
        raise InvalidGeometry(f"{where}.width must be a positive number of metres, got {width}")
    min_time, max_time = _optional(seg, "minTime", where), _optional(seg, "maxTime", where)
    if min_time is not None and max_time is not None and min_time > max_time:
        raise InvalidGeometry(f"{where}.minTime ({min_time}) is above maxTime ({max_time})")
    return RouteSegment(tuple(lnglat(p, f"{where}.points[{i}]") for i, p in enumerate(points)), width, min_time,
                        max_time, _optional(seg, "speedLimit", where, positive=True),
                        _optional(seg, "overspeedDuration", where) or 0.0)


def parse_shape(shape: str, geometry: Any, districts: DistrictParts | None = None) -> Shape:
    """The Shape of a fence's ``shape`` and ``geometry``; a district needs ``districts``. Raises
    InvalidGeometry (a point is not a fence shape: ``point_of`` reads it)."""
    if shape == "circle":
        g = _keys(geometry, shape, ("center", "radius"))
        return Circle(lnglat(g["center"], "center"), _number(g["radius"], "radius"))
    if shape == "rectangle":
        g = _keys(geometry, shape, ("topLeft", "bottomRight"))
        return Rectangle(lnglat(g["topLeft"], "topLeft"), lnglat(g["bottomRight"], "bottomRight"))
    if shape == "polygon":
        rings = _keys(geometry, shape, ("rings",))["rings"]
        if not isinstance(rings, list) or not rings:
            raise InvalidGeometry("rings must be a non-empty list of rings (the shell first, then holes)")
        return Area((tuple(_ring(r, f"rings[{i}]") for i, r in enumerate(rings)),))
    if shape == "route":
        segments = _keys(geometry, shape, ("segments",))["segments"]
        if not isinstance(segments, list) or not segments:
            raise InvalidGeometry("a route needs at least one segment")
        return Route(tuple(_segment(s, f"segments[{i}]") for i, s in enumerate(segments)))
    if shape == "district":
        adcode = _keys(geometry, shape, ("districtId",))["districtId"]
        if not isinstance(adcode, str) or not (len(adcode) == 6 and adcode.isascii() and adcode.isdigit()):
            raise InvalidGeometry(f"districtId must be a six-digit adcode text, got {adcode!r}"[:200])
        parts = districts(adcode) if districts is not None else None
        if not parts:
            raise InvalidGeometry(f"no province, city or district has the adcode {adcode}")
        return Area(parts)
    raise InvalidGeometry(f"unknown shape {shape!r}; known: {', '.join(FENCE_SHAPES)}"[:200])


def point_of(geometry: Any) -> LngLat:
    """A label point's {"point": [lng, lat]}; raises InvalidGeometry."""
    return lnglat(_keys(geometry, "point", ("point",))["point"], "point")


def check_geometry(shape: str, geometry: Any, districts: DistrictParts | None = None) -> None:
    """Raises InvalidGeometry unless the geometry reads and compiles (a valid, non-self-intersecting area)."""
    if shape == "point":
        point_of(geometry)
        return
    compile_shape(parse_shape(shape, geometry, districts))
