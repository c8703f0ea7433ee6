"""0x8606 set one route: route id DWORD, route attribute WORD, [start BCD[6], end BCD[6]] (bit 0),
inflection point count WORD, then per point: point id DWORD, segment id DWORD, latitude DWORD,
longitude DWORD, segment width BYTE (m), segment attribute BYTE, [too-long threshold WORD, too-short
threshold WORD] (segment bit 0, seconds), [max speed WORD, overspeed duration BYTE] (segment bit 1),
2019 [night max speed WORD] (segment bit 1); then in 2019 the route name (WORD length, GBK).

A point's sign is its own (segment attribute bits 2/3). A route needs at least 2 points: fewer
decodes as sent but is a ValueError to encode. The body is also the item layout of a 0x0608 answer to
a route query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.fields import check_version
from protocols.jt808.messages._areas import (
    SEGMENT_SOUTH,
    SEGMENT_SPEED_LIMIT,
    SEGMENT_TRAVEL_TIME,
    SEGMENT_WEST,
    Cursor,
    degrees,
    name_bytes,
    night_speed_bytes,
    put,
    put_coordinate,
    read_name,
    read_night_speed,
    read_speed,
    read_window,
    sign_bits,
    speed_bytes,
    window_bytes,
)
from protocols.jt808.registry import register_body

MIN_POINTS = 2
POINT_MIN_SIZE = 18
MIN_ROUTE_SIZE = 8  # id, attribute, point count


@dataclass(frozen=True)
class RoutePoint:
    point_id: int
    segment_id: int
    lat: float
    lng: float
    width_m: int
    attributes: int
    max_travel_s: int | None = None  # "too long" threshold, segment bit 0
    min_travel_s: int | None = None  # "too short" threshold, segment bit 0
    max_speed_kmh: int | None = None
    overspeed_duration_s: int | None = None
    night_max_speed_kmh: int | None = None  # 2019

    @classmethod
    def read(cls, cur: Cursor, version: str, index: int) -> RoutePoint:
        point_id = cur.uint(4, f"point {index} id")
        segment_id = cur.uint(4, f"point {index} segment id")
        raw_lat, raw_lng = cur.uint(4, f"point {index} latitude"), cur.uint(4, f"point {index} longitude")
        width = cur.uint(1, f"point {index} segment width")
        attributes = cur.uint(1, f"point {index} segment attribute")
        lat = degrees(raw_lat, bool(attributes & SEGMENT_SOUTH))
        lng = degrees(raw_lng, bool(attributes & SEGMENT_WEST))
        longest = shortest = None
        if attributes & SEGMENT_TRAVEL_TIME:
            longest = cur.uint(2, f"point {index} too-long threshold")
            shortest = cur.uint(2, f"point {index} too-short threshold")
        max_speed, duration = read_speed(cur, attributes, SEGMENT_SPEED_LIMIT)
        night = read_night_speed(cur, attributes, SEGMENT_SPEED_LIMIT, version)
        return cls(point_id, segment_id, lat, lng, width, attributes, longest, shortest, max_speed, duration, night)

    def write(self, version: str, what: str) -> bytes:
        what = f"{what} point {self.point_id}"
        signs = sign_bits([(self.lat, self.lng)], SEGMENT_SOUTH, SEGMENT_WEST, what)
        attributes = (self.attributes & ~(SEGMENT_SOUTH | SEGMENT_WEST)) | signs
        if attributes & SEGMENT_TRAVEL_TIME:
            if self.max_travel_s is None or self.min_travel_s is None:
                raise ValueError(f"{what}: segment bit 0 needs max_travel_s and min_travel_s")
            travel = put(self.max_travel_s, 2, "too-long threshold", what) + put(
                self.min_travel_s, 2, "too-short threshold", what)
        elif self.max_travel_s is not None or self.min_travel_s is not None:
            raise ValueError(f"{what}: travel time thresholds need segment attribute bit 0")
        else:
            travel = b""
        return (
            put(self.point_id, 4, "point id", what)
            + put(self.segment_id, 4, "segment id", what)
            + put_coordinate(self.lat, 90, "latitude", what)
            + put_coordinate(self.lng, 180, "longitude", what)
            + put(self.width_m, 1, "segment width", what)
            + put(attributes, 1, "segment attribute", what)
            + travel
            + speed_bytes(attributes, SEGMENT_SPEED_LIMIT, self.max_speed_kmh, self.overspeed_duration_s, what)
            + night_speed_bytes(attributes, SEGMENT_SPEED_LIMIT, self.night_max_speed_kmh, self.max_speed_kmh,
                                version, what)
        )


@register_body
@dataclass(frozen=True)
class SetRoute:
    MSG_ID: ClassVar[int] = 0x8606
    route_id: int
    attributes: int  # bit 0 by time, bits 2-5 enter/leave alarms (``_areas.ROUTE_ATTRIBUTE_NAMES``)
    points: tuple[RoutePoint, ...]
    start: datetime | None = None
    end: datetime | None = None
    name: str = ""  # 2019

    @classmethod
    def decode(cls, body: bytes, version: str) -> SetRoute:
        cur = Cursor(body, "0x8606")
        route = cls.read(cur, version)
        cur.finish()
        return route

    @classmethod
    def read(cls, cur: Cursor, version: str) -> SetRoute:
        route_id = cur.uint(4, "route id")
        attributes = cur.uint(2, "route attribute")
        start, end = read_window(cur, attributes)
        count = cur.uint(2, "point count")
        cur.check_count(count, POINT_MIN_SIZE, "points")
        points = tuple(RoutePoint.read(cur, version, i) for i in range(count))
        return cls(route_id, attributes, points, start, end, read_name(cur, version))

    def encode(self, version: str) -> bytes:
        check_version(version)
        what = f"route {self.route_id}"
        if not MIN_POINTS <= len(self.points) <= 0xFFFF:
            raise ValueError(f"{what}: {len(self.points)} points, a route needs {MIN_POINTS}-65535")
        return (
            put(self.route_id, 4, "route id", what)
            + put(self.attributes, 2, "route attribute", what)
            + window_bytes(self.attributes, self.start, self.end, what)
            + len(self.points).to_bytes(2, "big")
            + b"".join(point.write(version, what) for point in self.points)
            + name_bytes(self.name, version, what)
        )
