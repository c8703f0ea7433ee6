"""The areas and routes a simulated terminal holds, and how it answers 0x8600-0x8608 (no network).

| downlink | effect | answer |
|---|---|---|
| 0x8600 / 0x8602, set attribute 0 update | its circles / rectangles become exactly those sent | 0x0001 result 0 |
| the same, 1 append | added; one with an id already held replaces it | 0x0001 result 0 |
| the same, 2 modify | replaces areas it holds; an id it does not hold fails the whole message | result 0, or 1 and nothing changed |
| 0x8604 / 0x8606 | the polygon / route is added, or replaces the one with its id | 0x0001 result 0 |
| 0x8601 / 0x8603 / 0x8605 / 0x8607 | deletes the ids named (ids it does not hold are ignored); none named: all of that shape | 0x0001 result 0 |
| 0x8608 | (2019) | 0x0608 with the areas of that type asked for (all when no ids), in the order asked |

A terminal holds at most ``capacity`` areas of each shape; a message that would exceed it fails with
result 1 and changes nothing (as a real terminal's storage would refuse it). An area that decodes but
cannot be drawn (a latitude past 90°, corners the wrong way round, a polygon of two vertices: what the
codec refuses to encode) is answered result 2, message error, and not kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocols.jt808 import (
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    DeleteRoutes,
    QueryAreas,
    QueryAreasResponse,
    RectangleArea,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
)
from protocols.jt808.messages._areas import (
    QUERY_CIRCLE,
    QUERY_POLYGON,
    QUERY_RECTANGLE,
    QUERY_ROUTE,
    SET_APPEND,
    SET_MODIFY,
    SET_UPDATE,
)

RESULT_OK = 0
RESULT_FAILED = 1
RESULT_MESSAGE_ERROR = 2
DEFAULT_CAPACITY = 200

_AREA_BODIES = (SetCircleAreas, SetRectangleAreas, SetPolygonArea, SetRoute, DeleteCircleAreas,
                DeleteRectangleAreas, DeletePolygonAreas, DeleteRoutes, QueryAreas)


@dataclass
class TerminalAreas:
    """Per shape, the areas by id, in the order they were set."""

    capacity: int = DEFAULT_CAPACITY
    circles: dict[int, CircleArea] = field(default_factory=dict)
    rectangles: dict[int, RectangleArea] = field(default_factory=dict)
    polygons: dict[int, SetPolygonArea] = field(default_factory=dict)
    routes: dict[int, SetRoute] = field(default_factory=dict)

    @staticmethod
    def handles(body: Any) -> bool:
        return isinstance(body, _AREA_BODIES)

    def apply(self, body: Any) -> int | QueryAreasResponse:
        """Apply one area message: the 0x0001 result, or the 0x0608 body that answers a query."""
        if isinstance(body, QueryAreas):
            return self.query(body)
        if isinstance(body, SetCircleAreas | SetRectangleAreas | SetPolygonArea | SetRoute):
            try:
                body.encode("2019")  # the codec's drawing rules, whatever the header version
            except ValueError:
                return RESULT_MESSAGE_ERROR
        if isinstance(body, SetCircleAreas):
            return self._set(self.circles, body.action, {a.area_id: a for a in body.areas})
        if isinstance(body, SetRectangleAreas):
            return self._set(self.rectangles, body.action, {a.area_id: a for a in body.areas})
        if isinstance(body, SetPolygonArea):
            return self._set(self.polygons, SET_APPEND, {body.area_id: body})
        if isinstance(body, SetRoute):
            return self._set(self.routes, SET_APPEND, {body.route_id: body})
        held = self._by_delete(body)
        if body.ids:
            for area_id in body.ids:
                held.pop(area_id, None)
        else:
            held.clear()
        return RESULT_OK

    def query(self, body: QueryAreas) -> QueryAreasResponse:
        held: dict[int, Any] = self._by_type(body.query_type)
        ids = body.ids or tuple(held)
        return QueryAreasResponse(body.query_type, tuple(held[i] for i in ids if i in held))

    def _set(self, held: dict[int, Any], action: int, sent: dict[int, Any]) -> int:
        if action == SET_MODIFY and not sent.keys() <= held.keys():
            return RESULT_FAILED
        after = dict(sent) if action == SET_UPDATE else {**held, **sent}
        if len(after) > self.capacity:
            return RESULT_FAILED
        held.clear()
        held.update(after)
        return RESULT_OK

    def _by_delete(self, body: Any) -> dict[int, Any]:
        if isinstance(body, DeleteCircleAreas):
            return self.circles
        if isinstance(body, DeleteRectangleAreas):
            return self.rectangles
        if isinstance(body, DeletePolygonAreas):
            return self.polygons
        return self.routes

    def _by_type(self, query_type: int) -> dict[int, Any]:
        tables: dict[int, dict[int, Any]] = {QUERY_CIRCLE: self.circles, QUERY_RECTANGLE: self.rectangles,
                                             QUERY_POLYGON: self.polygons, QUERY_ROUTE: self.routes}
        return tables[query_type]
