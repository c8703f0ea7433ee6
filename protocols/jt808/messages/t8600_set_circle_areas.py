"""0x8600 set circular areas: set attribute BYTE (0 update, 1 append, 2 modify), area count BYTE, then
per area: id DWORD, attribute WORD, centre latitude DWORD, centre longitude DWORD, radius DWORD (m),
[start BCD[6], end BCD[6]] (bit 0), [max speed WORD, overspeed duration BYTE] (bit 1), and in 2019
[night max speed WORD] (bit 1), name length WORD, name. Field rules in ``_areas``."""

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

MIN_CIRCLE_SIZE = 18  # id, attribute, centre, radius


@dataclass(frozen=True)
class CircleArea:
    area_id: int
    attributes: int
    center_lat: float
    center_lng: float
    radius_m: int
    start: datetime | None = None
    end: datetime | None = None
    max_speed_kmh: int | None = None
    overspeed_duration_s: int | None = None
    night_max_speed_kmh: int | None = None  # 2019
    name: str = ""  # 2019

    @classmethod
    def read(cls, cur: Cursor, version: str) -> CircleArea:
        area_id = cur.uint(4, "area id")
        attributes = cur.uint(2, "area attribute")
        lat = cur.coordinate("centre latitude", bool(attributes & ATTR_SOUTH))
        lng = cur.coordinate("centre longitude", bool(attributes & ATTR_WEST))
        radius = cur.uint(4, "radius")
        start, end = read_window(cur, attributes)
        max_speed, duration = read_speed(cur, attributes, ATTR_SPEED_LIMIT)
        night = read_night_speed(cur, attributes, ATTR_SPEED_LIMIT, version)
        return cls(area_id, attributes, lat, lng, radius, start, end, max_speed, duration, night,
                   read_name(cur, version))

    def write(self, version: str) -> bytes:
        what = f"circle area {self.area_id}"
        signs = sign_bits([(self.center_lat, self.center_lng)], ATTR_SOUTH, ATTR_WEST, what)
        attributes = (self.attributes & ~(ATTR_SOUTH | ATTR_WEST)) | signs
        return (
            put(self.area_id, 4, "area id", what)
            + put(attributes, 2, "area attribute", what)
            + put_coordinate(self.center_lat, 90, "centre latitude", what)
            + put_coordinate(self.center_lng, 180, "centre longitude", what)
            + put(self.radius_m, 4, "radius", what)
            + window_bytes(attributes, self.start, self.end, what)
            + speed_bytes(attributes, ATTR_SPEED_LIMIT, self.max_speed_kmh, self.overspeed_duration_s, what)
            + night_speed_bytes(attributes, ATTR_SPEED_LIMIT, self.night_max_speed_kmh, self.max_speed_kmh,
                                version, what)
            + name_bytes(self.name, version, what)
        )


@register_body
@dataclass(frozen=True)
class SetCircleAreas:
    MSG_ID: ClassVar[int] = 0x8600
    action: int  # SET_UPDATE / SET_APPEND / SET_MODIFY
    areas: tuple[CircleArea, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> SetCircleAreas:
        return cls(*read_area_set(body, "0x8600", lambda cur: CircleArea.read(cur, version), MIN_CIRCLE_SIZE))

    def encode(self, version: str) -> bytes:
        return write_area_set(self.action, self.areas, "0x8600", version)
