"""0x0608 the terminal's answer to 0x8608 (JT/T 808-2019 only): query type BYTE, count DWORD, then
that many areas of the type asked, each in its set message's layout: a polygon or route as a whole
0x8604 / 0x8606 body; a circle or rectangle as one area item of 0x8600 / 0x8602 (written so here).
SmallChi's JT808 writes a whole 0x8600 / 0x8602 body (set attribute, area count, items) per entry
instead; decoding accepts that form too (tried when the item form does not fit the body exactly,
its areas flattened), so answers from either kind of terminal read. There is no reply serial: the
answer names the query type, not the 0x8608's serial."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._areas import (
    QUERY_CIRCLE,
    QUERY_POLYGON,
    QUERY_RECTANGLE,
    QUERY_ROUTE,
    Cursor,
    put,
    read_action,
)
from protocols.jt808.messages.t8600_set_circle_areas import MIN_CIRCLE_SIZE, CircleArea
from protocols.jt808.messages.t8602_set_rectangle_areas import MIN_RECTANGLE_SIZE, RectangleArea
from protocols.jt808.messages.t8604_set_polygon_area import MIN_POLYGON_SIZE, SetPolygonArea
from protocols.jt808.messages.t8606_set_route import MIN_ROUTE_SIZE, SetRoute
from protocols.jt808.messages.t8608_query_areas import check_2019, read_query_type
from protocols.jt808.registry import register_body

Area = CircleArea | RectangleArea | SetPolygonArea | SetRoute
_BY_TYPE: dict[int, tuple[type[CircleArea] | type[RectangleArea] | type[SetPolygonArea] | type[SetRoute], int]] = {
    QUERY_CIRCLE: (CircleArea, MIN_CIRCLE_SIZE),
    QUERY_RECTANGLE: (RectangleArea, MIN_RECTANGLE_SIZE),
    QUERY_POLYGON: (SetPolygonArea, MIN_POLYGON_SIZE),
    QUERY_ROUTE: (SetRoute, MIN_ROUTE_SIZE),
}


@register_body
@dataclass(frozen=True)
class QueryAreasResponse:
    MSG_ID: ClassVar[int] = 0x0608
    query_type: int
    areas: tuple[Area, ...] = ()

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryAreasResponse:
        cur = Cursor(body, "0x0608")
        query_type = read_query_type(cur)
        count = cur.uint(4, "count")
        start = cur.at
        try:
            return cls(query_type, _read_items(cur, query_type, count, version))
        except BodyError:
            if query_type not in (QUERY_CIRCLE, QUERY_RECTANGLE):
                raise
            cur.at = start
            try:
                return cls(query_type, _read_set_bodies(cur, query_type, count, version))
            except BodyError:
                pass
            raise

    def encode(self, version: str) -> bytes:
        check_2019(version, "0x0608", self.query_type)
        area_cls, _ = _BY_TYPE[self.query_type]
        out = bytearray((self.query_type,)) + put(len(self.areas), 4, "count", "0x0608")
        for area in self.areas:
            if not isinstance(area, area_cls):
                raise ValueError(f"0x0608 query type {self.query_type} holds {area_cls.__name__}, "
                                 f"not {type(area).__name__}")
            out += area.write(version) if isinstance(area, CircleArea | RectangleArea) else area.encode(version)
        return bytes(out)


def _read_items(cur: Cursor, query_type: int, count: int, version: str) -> tuple[Area, ...]:
    area_cls, min_size = _BY_TYPE[query_type]
    cur.check_count(count, min_size, "areas")
    areas = tuple(area_cls.read(cur, version) for _ in range(count))
    cur.finish()
    return areas


def _read_set_bodies(cur: Cursor, query_type: int, count: int, version: str) -> tuple[Area, ...]:
    """SmallChi's form: ``count`` whole 0x8600 / 0x8602 bodies, their areas flattened."""
    area_cls, min_size = _BY_TYPE[query_type]
    cur.check_count(count, 2, "set bodies")
    areas: list[Area] = []
    for _ in range(count):
        read_action(cur)
        items = cur.uint(1, "area count")
        cur.check_count(items, min_size, "areas")
        areas.extend(area_cls.read(cur, version) for _ in range(items))
    cur.finish()
    return tuple(areas)
