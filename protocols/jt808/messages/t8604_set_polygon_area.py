"""0x8604 set one polygonal area: id DWORD, attribute WORD, [start BCD[6], end BCD[6]] (bit 0),
[max speed WORD, overspeed duration BYTE] (bit 1), vertex count WORD, vertices (latitude DWORD,
longitude DWORD), and in 2019 [night max speed WORD] (bit 1), name length WORD, name.

A polygon needs at least 3 vertices: fewer decodes as sent (SmallChi's public vectors have two) but
is a ValueError to encode. The body is also the item layout of a 0x0608 answer to a polygon query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.fields import check_version
from protocols.jt808.messages._areas import (
    ATTR_SOUTH,
    ATTR_SPEED_LIMIT,
    ATTR_WEST,
    Cursor,
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

MIN_VERTICES = 3
MAX_VERTICES = 0xFFFF
MIN_POLYGON_SIZE = 8  # id, attribute, vertex count


@dataclass(frozen=True)
class Vertex:
    lat: float
    lng: float


@register_body
@dataclass(frozen=True)
class SetPolygonArea:
    MSG_ID: ClassVar[int] = 0x8604
    area_id: int
    attributes: int
    vertices: tuple[Vertex, ...]
    start: datetime | None = None
    end: datetime | None = None
    max_speed_kmh: int | None = None
    overspeed_duration_s: int | None = None
    night_max_speed_kmh: int | None = None  # 2019
    name: str = ""  # 2019

    @classmethod
    def decode(cls, body: bytes, version: str) -> SetPolygonArea:
        cur = Cursor(body, "0x8604")
        area = cls.read(cur, version)
        cur.finish()
        return area

    @classmethod
    def read(cls, cur: Cursor, version: str) -> SetPolygonArea:
        area_id = cur.uint(4, "area id")
        attributes = cur.uint(2, "area attribute")
        start, end = read_window(cur, attributes)
        max_speed, duration = read_speed(cur, attributes, ATTR_SPEED_LIMIT)
        count = cur.uint(2, "vertex count")
        cur.check_count(count, 8, "vertices")
        south, west = bool(attributes & ATTR_SOUTH), bool(attributes & ATTR_WEST)
        vertices = tuple(
            Vertex(cur.coordinate(f"vertex {i} latitude", south), cur.coordinate(f"vertex {i} longitude", west))
            for i in range(count)
        )
        night = read_night_speed(cur, attributes, ATTR_SPEED_LIMIT, version)
        return cls(area_id, attributes, vertices, start, end, max_speed, duration, night, read_name(cur, version))

    def encode(self, version: str) -> bytes:
        check_version(version)
        what = f"polygon area {self.area_id}"
        if not MIN_VERTICES <= len(self.vertices) <= MAX_VERTICES:
            raise ValueError(f"{what}: {len(self.vertices)} vertices, a polygon needs {MIN_VERTICES}-{MAX_VERTICES}")
        points = [(v.lat, v.lng) for v in self.vertices]
        attributes = (self.attributes & ~(ATTR_SOUTH | ATTR_WEST)) | sign_bits(points, ATTR_SOUTH, ATTR_WEST, what)
        return (
            put(self.area_id, 4, "area id", what)
            + put(attributes, 2, "area attribute", what)
            + window_bytes(attributes, self.start, self.end, what)
            + speed_bytes(attributes, ATTR_SPEED_LIMIT, self.max_speed_kmh, self.overspeed_duration_s, what)
            + len(self.vertices).to_bytes(2, "big")
            + b"".join(put_coordinate(v.lat, 90, f"vertex {i} latitude", what)
                       + put_coordinate(v.lng, 180, f"vertex {i} longitude", what)
                       for i, v in enumerate(self.vertices))
            + night_speed_bytes(attributes, ATTR_SPEED_LIMIT, self.night_max_speed_kmh, self.max_speed_kmh,
                                version, what)
            + name_bytes(self.name, version, what)
        )
