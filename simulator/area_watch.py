"""What a simulated terminal reports about the areas it holds (simulator.areas): each fix it generates is
checked against them with the platform's one geometry code (fleet.geofence: a point on the boundary is
inside, a route is the union of its segments' corridors, each of its own width), and a crossing goes up on
that 0x0200 as a real terminal reports it (JT/T 808-2019 table 24 for the alarm bits, the additional items
0x11 / 0x12, the area attribute word of 0x8600-0x8606: protocols/jt808/messages/_areas.py):

| what happens | what the report carries |
|---|---|
| it enters / leaves a circle, rectangle or polygon whose attributes send that alarm to the platform (bit 3 "进区域报警给平台" / bit 5 "出区域报警给平台") | item 0x12 (location type 1 / 2 / 3, the area id, direction 0 in / 1 out) and alarm bit 20 (进出区域) |
| the same for a route (its corridor) | item 0x12 (location type 4, the route id) and alarm bit 21 (进出路线) |
| inside a circle, rectangle or polygon with a speed limit (attribute bit 1), faster than its max speed for its overspeed duration | item 0x11 (location type, area id) and alarm bit 1 (超速), on every report while it lasts |

Rules:
- the first fix that sees an area (just received, or its time window just begun) settles inside / outside
  without a report, as the platform's own fence check does; an area replaced by one of the same id keeps
  that knowledge (moving an area under the vehicle is an entry);
- an area with attribute bit 0 (by time) is watched only between its start and end;
- a crossing of an area whose attributes do not ask for the platform alarm (to the driver only, or none)
  is not reported;
- a 0x0200 carries each item once: when one fix crosses several areas, the first crossing goes on its report
  and the others on the next reports, one each, in order (a few seconds after the crossing itself);
- an area that cannot be drawn (a corridor of width 0, a bow tie) is held but not watched.
Route segments' own rules (segment speed limit, 0x13 segment time) are not simulated: the 0x11 / 0x13 id
of a route is its segment's id, which the platform cannot tell apart from an area's.

Cost: a terminal that holds no area pays one check per fix; one that does, a containment test per area
(the compiled geometry is kept until the area is replaced).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fleet.geofence import Circle, InvalidGeometry, Rectangle, Route, RouteSegment, compile_shape, polygon
from fleet.geofence.shapes import CompiledArea, Shape
from protocols.jt808 import CircleArea, RectangleArea, SetPolygonArea, SetRoute
from protocols.jt808.messages._areas import (
    ATTR_BY_TIME,
    ATTR_ENTER_ALARM_PLATFORM,
    ATTR_LEAVE_ALARM_PLATFORM,
    ATTR_SPEED_LIMIT,
)
from simulator.areas import TerminalAreas

CIRCLE, RECTANGLE, POLYGON, ROUTE = 1, 2, 3, 4  # items 0x11 / 0x12 location type
ENTERING, LEAVING = 0, 1  # item 0x12 direction
ALARM_OVERSPEED = 1 << 1
ALARM_IN_OUT_AREA = 1 << 20
ALARM_IN_OUT_ROUTE = 1 << 21

HeldArea = CircleArea | RectangleArea | SetPolygonArea | SetRoute


@dataclass(slots=True)
class _Watched:
    area: HeldArea
    compiled: CompiledArea | None  # None: cannot be drawn, not watched
    inside: bool | None = None  # None: not settled yet
    over_since: datetime | None = None  # inside and faster than its max speed since


class AreaWatch:
    """One terminal's watch over the areas it holds (module doc). ``check`` once per generated fix."""

    def __init__(self) -> None:
        self._watched: dict[tuple[int, int], _Watched] = {}
        self._pending: deque[dict[str, int]] = deque()  # 0x12 items still to report

    def check(self, areas: TerminalAreas, lng: float, lat: float, speed_kmh: float, fix_at: datetime
              ) -> tuple[int, dict[str, Any]]:
        """(alarm bits to add, items to add) for the fix at ``fix_at``."""
        if not (areas.circles or areas.rectangles or areas.polygons or areas.routes or self._watched
                or self._pending):
            return 0, {}
        seen: dict[tuple[int, int], _Watched] = {}
        overspeed: dict[str, int] | None = None
        tables: tuple[tuple[int, Mapping[int, HeldArea]], ...] = (
            (CIRCLE, areas.circles), (RECTANGLE, areas.rectangles), (POLYGON, areas.polygons), (ROUTE, areas.routes))
        for location_type, held in tables:
            for area_id, area in held.items():
                if not _in_window(area, fix_at):
                    continue  # outside its time window: not watched, settled again when it begins
                key = (location_type, area_id)
                watched = self._watched.get(key)
                if watched is None or watched.area is not area:
                    watched = _Watched(area, _compile(area), watched.inside if watched else None)
                seen[key] = watched
                if watched.compiled is None:
                    continue
                inside = watched.compiled.contains(lng, lat)
                if watched.inside is not None and inside != watched.inside:
                    wanted = ATTR_ENTER_ALARM_PLATFORM if inside else ATTR_LEAVE_ALARM_PLATFORM
                    if area.attributes & wanted:
                        self._pending.append({"location_type": location_type, "area_id": area_id,
                                              "direction": ENTERING if inside else LEAVING})
                watched.inside = inside
                if location_type != ROUTE and _over_limit(watched, inside, speed_kmh, fix_at) and overspeed is None:
                    overspeed = {"location_type": location_type, "area_id": area_id}
        self._watched = seen
        flags, items = 0, dict[str, Any]()
        if self._pending:
            crossing = self._pending.popleft()
            items["area_alarm"] = crossing
            flags |= ALARM_IN_OUT_ROUTE if crossing["location_type"] == ROUTE else ALARM_IN_OUT_AREA
        if overspeed is not None:
            items["overspeed_alarm"] = overspeed
            flags |= ALARM_OVERSPEED
        return flags, items


def _in_window(area: HeldArea, fix_at: datetime) -> bool:
    if not area.attributes & ATTR_BY_TIME:
        return True
    return (area.start is None or area.start <= fix_at) and (area.end is None or fix_at <= area.end)


def _over_limit(watched: _Watched, inside: bool, speed_kmh: float, fix_at: datetime) -> bool:
    """Inside an area with a speed limit, faster than it for at least its overspeed duration."""
    area = watched.area
    assert not isinstance(area, SetRoute)
    limit = area.max_speed_kmh if area.attributes & ATTR_SPEED_LIMIT else None
    if not inside or limit is None or speed_kmh <= limit:
        watched.over_since = None
        return False
    if watched.over_since is None:
        watched.over_since = fix_at
    return (fix_at - watched.over_since).total_seconds() >= (area.overspeed_duration_s or 0)


def _compile(area: HeldArea) -> CompiledArea | None:
    try:
        return compile_shape(shape_of(area))
    except InvalidGeometry:
        return None


def shape_of(area: HeldArea) -> Shape:
    """The fleet.geofence shape of an area as the terminal received it (WGS-84 lng/lat)."""
    if isinstance(area, CircleArea):
        return Circle((area.center_lng, area.center_lat), area.radius_m)
    if isinstance(area, RectangleArea):
        return Rectangle((area.top_left_lng, area.top_left_lat), (area.bottom_right_lng, area.bottom_right_lat))
    if isinstance(area, SetPolygonArea):
        return polygon([(v.lng, v.lat) for v in area.vertices])
    return Route(_segments(area))


def _segments(route: SetRoute) -> tuple[RouteSegment, ...]:
    """JT/T 808 0x8606: a road segment runs from an inflection point to the next and has the width its first
    point carries; consecutive points of one segment id are one segment (fleet.fence_areas sends them so)."""
    points = route.points
    segments: list[RouteSegment] = []
    start = 0
    while start < len(points) - 1:
        end = start + 1
        while end < len(points) - 1 and points[end].segment_id == points[start].segment_id:
            end += 1
        path = tuple((p.lng, p.lat) for p in points[start:end + 1])
        segments.append(RouteSegment(path, float(points[start].width_m)))
        start = end
    return tuple(segments)
