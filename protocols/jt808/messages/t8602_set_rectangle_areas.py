"""0x8602 set rectangular areas: set attribute BYTE, area count BYTE, then per area: id DWORD,
attribute WORD, top-left latitude, top-left longitude, bottom-right latitude, bottom-right longitude
(DWORD each), then the same optional tail as a circle (``t8600_set_circle_areas``).

The top-left corner is the north-west one: a rectangle whose corners are the other way round decodes
as sent (``corner_problem()`` says what is wrong) but is a ValueError to encode."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.messages._areas import (
    ATTR_SOUTH,
    ATTR_SPEED_LIMIT,
    ATTR_WEST,
    Cursor,
    name_bytes,
    night_speed_bytes,
    put,
    put_coordinate,
    read_area_set,
    read_name,
    read_night_speed,
    read_speed,
    read_window,
    sign_bits,
    speed_bytes,
    window_bytes,
    write_area_set,
)
from protocols.jt808.registry import register_body

MIN_RECTANGLE_SIZE = 22


@dataclass(frozen=True)
class RectangleArea:
    area_id: int
    attributes: int
    top_left_lat: float
    top_left_lng: float
    bottom_right_lat: float
    bottom_right_lng: float
    start: datetime | None = None
    end: datetime | None = None
    max_speed_kmh: int | None = None
    overspeed_duration_s: int | None = None
    night_max_speed_kmh: int | None = None  # 2019
    name: str = ""  # 2019

    def corner_problem(self) -> str | None:
        if self.top_left_lat < self.bottom_right_lat or self.top_left_lng > self.bottom_right_lng:
            return (f"top-left ({self.top_left_lat}, {self.top_left_lng}) is not north-west of bottom-right "
                    f"({self.bottom_right_lat}, {self.bottom_right_lng})")
        return None

    @classmethod
    def read(cls, cur: Cursor, version: str) -> RectangleArea:
        area_id = cur.uint(4, "area id")
        attributes = cur.uint(2, "area attribute")
        south, west = bool(attributes & ATTR_SOUTH), bool(attributes & ATTR_WEST)
        corners = (
            cur.coordinate("top-left latitude", south),
            cur.coordinate("top-left longitude", west),
            cur.coordinate("bottom-right latitude", south),
            cur.coordinate("bottom-right longitude", west),
        )
        start, end = read_window(cur, attributes)
        max_speed, duration = read_speed(cur, attributes, ATTR_SPEED_LIMIT)
        night = read_night_speed(cur, attributes, ATTR_SPEED_LIMIT, version)
        return cls(area_id, attributes, *corners, start, end, max_speed, duration, night, read_name(cur, version))

    def write(self, version: str) -> bytes:
        what = f"rectangle area {self.area_id}"
        problem = self.corner_problem()
        if problem:
            raise ValueError(f"{what}: {problem}")
        corners = [(self.top_left_lat, self.top_left_lng), (self.bottom_right_lat, self.bottom_right_lng)]
        attributes = (self.attributes & ~(ATTR_SOUTH | ATTR_WEST)) | sign_bits(corners, ATTR_SOUTH, ATTR_WEST, what)
        return (
            put(self.area_id, 4, "area id", what)
            + put(attributes, 2, "area attribute", what)
            + put_coordinate(self.top_left_lat, 90, "top-left latitude", what)
            + put_coordinate(self.top_left_lng, 180, "top-left longitude", what)
            + put_coordinate(self.bottom_right_lat, 90, "bottom-right latitude", what)
            + put_coordinate(self.bottom_right_lng, 180, "bottom-right longitude", what)
            + window_bytes(attributes, self.start, self.end, what)
            + speed_bytes(attributes, ATTR_SPEED_LIMIT, self.max_speed_kmh, self.overspeed_duration_s, what)
            + night_speed_bytes(attributes, ATTR_SPEED_LIMIT, self.night_max_speed_kmh, self.max_speed_kmh,
                                version, what)
            + name_bytes(self.name, version, what)
        )


@register_body
@dataclass(frozen=True)
class SetRectangleAreas:
    MSG_ID: ClassVar[int] = 0x8602
    action: int  # SET_UPDATE / SET_APPEND / SET_MODIFY
    areas: tuple[RectangleArea, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> SetRectangleAreas:
        return cls(*read_area_set(body, "0x8602", lambda cur: RectangleArea.read(cur, version), MIN_RECTANGLE_SIZE))

    def encode(self, version: str) -> bytes:
        return write_area_set(self.action, self.areas, "0x8602", version)
