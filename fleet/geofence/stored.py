"""A stored fence (a ``fence`` row, migration 0040) as a ``Fence`` of the check, pure.

``fence_from_row(row)`` reads the row's columns (snake_case, as warehouse/queries/fence_events.py returns
them) and its ``geometry`` JSON by ``shape`` (migration 0040's comment gives the layout of each):

    circle     {"center": [lng, lat], "radius": metres}
    rectangle  {"topLeft": [lng, lat], "bottomRight": [lng, lat]}
    polygon    {"rings": [[[lng, lat], ...], [hole...], ...]}
    route      {"segments": [{"points": [...], "width": m, "minTime": s, "maxTime": s, "speedLimit": km/h,
                              "overspeedDuration": s}, ...]}
    district   {"districtId": adcode}: its polygons come from ``district_parts(adcode)`` (the district data
               of the reverse geocoder); without that loader a district fence is ``Unsupported``.

Failure modes: ``Unsupported`` for a shape the check cannot take here (a district without its parts);
``ValueError`` naming the field for a row whose geometry is not what its shape says (the caller logs
it and skips that fence: one bad fence never stops the others).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fleet.geofence.rules import Fence, FenceType, TimeWindow
from fleet.geofence.shapes import Area, Circle, LngLat, Rectangle, Route, RouteSegment, Shape

# a district's polygons: ((shell, hole, ...), ...) in lng/lat, or None when the adcode is unknown
DistrictParts = Callable[[str], tuple[tuple[tuple[LngLat, ...], ...], ...] | None]


class Unsupported(ValueError):
    """A fence the platform check cannot watch in this process (named in the message)."""


def _point(value: Any, name: str) -> LngLat:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"{name} must be [lng, lat]")
    lng, lat = value
    if isinstance(lng, bool) or isinstance(lat, bool) or not isinstance(lng, int | float) \
            or not isinstance(lat, int | float):
        raise ValueError(f"{name} must be two numbers")
    return float(lng), float(lat)


def _number(value: Any, name: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    return float(value)


def _ring(value: Any, name: str) -> tuple[LngLat, ...]:
    if not isinstance(value, list) or len(value) < 3:
        raise ValueError(f"{name} must be a list of at least 3 [lng, lat] points")
    return tuple(_point(p, f"{name}[{i}]") for i, p in enumerate(value))


def shape_of(shape: str, geometry: Mapping[str, Any], district_parts: DistrictParts | None = None) -> Shape:
    """The check's shape of a stored ``shape`` + ``geometry`` (module doc); raises ValueError / Unsupported."""
    if not isinstance(geometry, Mapping):
        raise ValueError("geometry must be an object")
    if shape == "circle":
        radius = _number(geometry.get("radius"), "geometry.radius")
        assert radius is not None
        return Circle(_point(geometry.get("center"), "geometry.center"), radius)
    if shape == "rectangle":
        return Rectangle(_point(geometry.get("topLeft"), "geometry.topLeft"),
                         _point(geometry.get("bottomRight"), "geometry.bottomRight"))
    if shape == "polygon":
        rings = geometry.get("rings")
        if not isinstance(rings, list) or not rings:
            raise ValueError("geometry.rings must be a non-empty list of rings")
        return Area((tuple(_ring(r, f"geometry.rings[{i}]") for i, r in enumerate(rings)),))
    if shape == "route":
        segments = geometry.get("segments")
        if not isinstance(segments, list) or not segments:
            raise ValueError("geometry.segments must be a non-empty list")
        return Route(tuple(_segment(s, i) for i, s in enumerate(segments)))
    if shape == "district":
        adcode = str(geometry.get("districtId", ""))
        parts = district_parts(adcode) if district_parts is not None else None
        if parts is None:
            raise Unsupported(f"district {adcode or '?'}: no polygons for it in this process")
        return Area(parts)
    raise ValueError(f"unknown shape {shape!r}")


def _segment(value: Any, index: int) -> RouteSegment:
    name = f"geometry.segments[{index}]"
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be an object")
    points = value.get("points")
    if not isinstance(points, list) or len(points) < 2:
        raise ValueError(f"{name}.points must hold at least 2 [lng, lat] points")
    width = _number(value.get("width"), f"{name}.width")
    assert width is not None
    return RouteSegment(
        tuple(_point(p, f"{name}.points[{i}]") for i, p in enumerate(points)), width,
        min_time_s=_number(value.get("minTime"), f"{name}.minTime", optional=True),
        max_time_s=_number(value.get("maxTime"), f"{name}.maxTime", optional=True),
        speed_limit_kmh=_number(value.get("speedLimit"), f"{name}.speedLimit", optional=True),
        overspeed_s=_number(value.get("overspeedDuration"), f"{name}.overspeedDuration", optional=True) or 0.0)


def attributes_of(bits: int) -> frozenset[int]:
    """The attribute numbers of the table's bit set (bit n set = attribute n, migration 0040)."""
    return frozenset(n for n in range(32) if bits >> n & 1)


def fence_from_row(row: Mapping[str, Any], district_parts: DistrictParts | None = None) -> Fence:
    """The check's ``Fence`` of a stored row (module doc for the failure modes)."""
    window = None
    if row.get("start_time") is not None and row.get("end_time") is not None:
        window = TimeWindow(row["start_time"], row["end_time"])
    elif row.get("daily_start") is not None and row.get("daily_end") is not None:
        window = TimeWindow(row["daily_start"], row["daily_end"])
    return Fence(
        fence_id=int(row["id"]), name=str(row["name"]), fence_type=FenceType(int(row["fence_type"])),
        shape=shape_of(str(row["shape"]), row["geometry"], district_parts),
        attributes=attributes_of(int(row.get("attributes") or 0)), time_window=window,
        speed_limit_kmh=row.get("speed_limit"), overspeed_s=float(row.get("overspeed_duration") or 0),
        night_speed_limit_kmh=row.get("night_speed_limit"),
        stay_limit_s=None if row.get("stay_limit") is None else float(row["stay_limit"]))
