"""A terminal fence (business type 2, migration 0040) as the JT/T 808 message that sets or deletes it on a
terminal: 0x8600 circle, 0x8602 rectangle, 0x8604 polygon, 0x8606 route; 0x8601 / 0x8603 / 0x8605 / 0x8607
delete by id. The area id on the wire is the fence's id, so one id names it on both sides.

Rules (JT/T 808-2013 §8.49-8.56; 2019 adds the night limit and the name, which the codec writes by version):
- the fence's attribute numbers ARE the wire attribute bits (platform-spec §9: 1 speed limit, 2 / 3 enter to
  driver / platform, 4 / 5 leave, 8 no door opening, 14 close comms, 15 collect GNSS); bit 0 (by time) is
  set when the fence has an absolute window. A daily window has no wire form: the terminal watches the area
  always and the platform's own check keeps the daily window.
- a speed limit (attribute 1, or a speed_limit value) sends max speed (km/h, rounded) and the overspeed
  duration (0 when not given); attribute 1 without a speed_limit is refused.
- 0x8600 / 0x8602 go with set attribute 1 "append": a terminal replaces an area it holds with the same id,
  and 0 "update" would wipe every other area of that shape the terminal holds.
- what a terminal cannot hold is refused with ``NotSendable`` naming why (a polygon with holes or several
  parts, a district, a corridor wider than 255 m, anything the codec refuses to encode).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fleet.geofence.geometry import parse_shape
from fleet.geofence.shapes import Circle, Rectangle, Route, RouteSegment
from protocols.jt808 import (
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    DeleteRoutes,
    RectangleArea,
    RoutePoint,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
    Vertex,
    catalogue,
)
from protocols.jt808.messages._areas import (
    ATTR_BY_TIME,
    ATTR_SPEED_LIMIT,
    ROUTE_ATTRIBUTE_NAMES,
    SEGMENT_SPEED_LIMIT,
    SEGMENT_TRAVEL_TIME,
    SET_APPEND,
)

SENDABLE_ATTRIBUTES = (1, 2, 3, 4, 5, 8, 14, 15)  # platform-spec §9 fence attributes
_AREA_MASK = sum(1 << n for n in SENDABLE_ATTRIBUTES)
_ROUTE_MASK = sum(ROUTE_ATTRIBUTE_NAMES)
VERSIONS = ("2011", "2013", "2019")

SET_MSG = {"circle": catalogue.SET_CIRCLE_AREAS, "rectangle": catalogue.SET_RECTANGLE_AREAS,
           "polygon": catalogue.SET_POLYGON_AREA, "route": catalogue.SET_ROUTE}
DELETE_BODY = {"circle": DeleteCircleAreas, "rectangle": DeleteRectangleAreas, "polygon": DeletePolygonAreas,
               "route": DeleteRoutes}


class NotSendable(ValueError):
    """The fence has no form a terminal can hold; the message says why."""


def layout(version: str | None) -> str:
    """The device's protocol version as a codec layout (unknown: 2013, as the other platform commands)."""
    return version if version in VERSIONS else "2013"


def delete_message(shape: str, fence_id: int, version: str | None) -> tuple[int, bytes]:
    """(msg id, body) deleting area ``fence_id`` of ``shape``; NotSendable for a shape no terminal holds."""
    body_class = DELETE_BODY.get(shape)
    if body_class is None:
        raise NotSendable(f"a {shape} fence is never on a terminal")
    return body_class.MSG_ID, body_class((fence_id,)).encode(layout(version))


def set_message(fence: Mapping[str, Any], version: str | None) -> tuple[int, bytes]:
    """(msg id, body) setting ``fence`` (a fence row, snake_case columns) on a terminal of ``version``.
    Raises NotSendable naming why it cannot be sent."""
    shape = fence["shape"]
    if shape not in SET_MSG:
        raise NotSendable(f"a {shape} fence cannot be sent to a terminal (it holds circles, rectangles, "
                          "polygons and routes)")
    try:
        body = _body(fence)
        return SET_MSG[shape], body.encode(layout(version))
    except NotSendable:
        raise
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise NotSendable(f"fence {fence['id']} ({shape}) cannot be encoded: {exc}") from None


def _body(fence: Mapping[str, Any]) -> Any:
    fence_id, name = int(fence["id"]), str(fence.get("name") or "")
    shape = parse_shape(fence["shape"], fence["geometry"])  # the one geometry reader; InvalidGeometry names the field
    start, end = fence.get("start_time"), fence.get("end_time")
    attributes = int(fence.get("attributes") or 0) & _AREA_MASK
    if start is not None or end is not None:
        attributes |= ATTR_BY_TIME
    if isinstance(shape, Route):
        return SetRoute(fence_id, attributes & (_ROUTE_MASK | ATTR_BY_TIME), _route_points(shape.segments),
                        start, end, name)
    limit = _speed(fence, attributes)
    if limit is not None:
        attributes |= ATTR_SPEED_LIMIT
    speed, duration, night = limit or (None, None, None)
    if isinstance(shape, Circle):
        lng, lat = shape.centre
        area = CircleArea(fence_id, attributes, lat, lng, round(shape.radius_m), start, end, speed, duration, night,
                          name)
        return SetCircleAreas(SET_APPEND, (area,))
    if isinstance(shape, Rectangle):
        (left, top), (right, bottom) = shape.top_left, shape.bottom_right
        rect = RectangleArea(fence_id, attributes, top, left, bottom, right, start, end, speed, duration, night, name)
        return SetRectangleAreas(SET_APPEND, (rect,))
    if len(shape.parts) != 1 or len(shape.parts[0]) != 1:
        raise NotSendable(f"fence {fence_id}: a polygon with holes cannot be sent to a terminal (0x8604 carries "
                          "one ring)")
    # the reader drops a closing vertex: the wire polygon closes itself
    vertices = tuple(Vertex(lat, lng) for lng, lat in shape.parts[0][0])
    return SetPolygonArea(fence_id, attributes, vertices, start, end, speed, duration, night, name)


def _speed(fence: Mapping[str, Any], attributes: int) -> tuple[int, int, int | None] | None:
    """(max km/h, overspeed duration s, night max km/h) when the area limits speed, else None."""
    limit = fence.get("speed_limit")
    if limit is None:
        if attributes & ATTR_SPEED_LIMIT:
            raise NotSendable(f"fence {fence['id']}: attribute 1 (speed limit) needs a speed limit")
        return None
    night = fence.get("night_speed_limit")
    return (round(float(limit)), int(fence.get("overspeed_duration") or 0),
            None if night is None else round(float(night)))


def _route_points(segments: Sequence[RouteSegment]) -> tuple[RoutePoint, ...]:
    """Inflection points: each carries the segment that starts at it (ids from 1), so a segment's rules go
    with its first point; a segment ending where the next starts shares that point."""
    points: list[RoutePoint] = []
    for index, segment in enumerate(segments):
        path = list(segment.points)
        following = segments[index + 1].points if index + 1 < len(segments) else ()
        if path and following and following[0] == path[-1]:
            path = path[:-1]
        width = round(segment.width_m)
        if not 0 <= width <= 255:
            raise NotSendable(f"route segment {index + 1}: a corridor of {width} m, a terminal holds at most 255 m")
        attrs, longest, shortest, speed, duration = 0, None, None, None, None
        if segment.max_time_s is not None or segment.min_time_s is not None:
            attrs |= SEGMENT_TRAVEL_TIME
            longest = int(segment.max_time_s or 0xFFFF)  # no upper bound: the largest WORD
            shortest = int(segment.min_time_s or 0)
        if segment.speed_limit_kmh is not None:
            attrs |= SEGMENT_SPEED_LIMIT
            speed, duration = round(segment.speed_limit_kmh), int(segment.overspeed_s)
        for lng, lat in path:
            points.append(RoutePoint(len(points) + 1, index + 1, lat, lng, width, attrs, longest, shortest, speed,
                                     duration))
    return tuple(points)
