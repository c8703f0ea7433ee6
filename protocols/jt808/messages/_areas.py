"""What the area and route messages share (JT/T 808 0x8600-0x8607, and 2019's 0x8608/0x0608).

Layout rules, the same in 2011 and 2013 (their bodies are byte for byte alike); 2019 adds the fields
marked below:

- area attribute WORD (platform-spec §9 fence attributes): bit 0 by time, 1 speed limit, 2/3 alarm
  the driver / the platform on entering, 4/5 on leaving, 6 south latitude, 7 west longitude, 8 no
  door opening, 14 close the communication module inside, 15 collect GNSS detail inside.
- latitude and longitude DWORD in 1e-6 degrees, unsigned: the sign is in attribute bits 6/7 (route
  points: segment attribute bits 2/3). Here they are signed degrees, converted once.
- start and end time BCD[6] (GMT+8) only when attribute bit 0 is set; all zeros is "no time"
  (``None``: no bound on that side).
- max speed WORD (km/h) and overspeed duration BYTE (s) only when attribute bit 1 is set; 2019 adds
  the night max speed WORD (km/h) under the same bit, and the area name (WORD length, GBK).

Decoding checks the structure only: BodyError naming the field and its byte offset for a body that
is short, over-long, or announces more items than it holds. What is structurally sound but cannot be
drawn (a latitude past 90°, a rectangle whose corners are the wrong way round, a polygon of two
vertices) decodes as sent, so ``fleet decode`` shows what a platform really sent (SmallChi's public
vectors use 123.456789° latitudes); encoding refuses it with a ValueError naming the field, as it
refuses a time or speed limit without its attribute bit, or a bit without its values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, check_version, decode_text, utc_to_bcd_time

T = TypeVar("T")


class Writable(Protocol):
    """An area item that writes itself in a protocol version's layout."""

    def write(self, version: str) -> bytes: ...


ATTR_BY_TIME = 1 << 0
ATTR_SPEED_LIMIT = 1 << 1
ATTR_ENTER_ALARM_DRIVER = 1 << 2
ATTR_ENTER_ALARM_PLATFORM = 1 << 3
ATTR_LEAVE_ALARM_DRIVER = 1 << 4
ATTR_LEAVE_ALARM_PLATFORM = 1 << 5
ATTR_SOUTH = 1 << 6
ATTR_WEST = 1 << 7
ATTR_NO_DOOR_OPENING = 1 << 8
ATTR_CLOSE_COMMS = 1 << 14
ATTR_COLLECT_GNSS = 1 << 15

AREA_ATTRIBUTE_NAMES = {
    ATTR_BY_TIME: "by_time",
    ATTR_SPEED_LIMIT: "speed_limit",
    ATTR_ENTER_ALARM_DRIVER: "enter_alarm_driver",
    ATTR_ENTER_ALARM_PLATFORM: "enter_alarm_platform",
    ATTR_LEAVE_ALARM_DRIVER: "leave_alarm_driver",
    ATTR_LEAVE_ALARM_PLATFORM: "leave_alarm_platform",
    ATTR_SOUTH: "south",
    ATTR_WEST: "west",
    ATTR_NO_DOOR_OPENING: "no_door_opening",
    ATTR_CLOSE_COMMS: "close_comms_inside",
    ATTR_COLLECT_GNSS: "collect_gnss_inside",
}

# Route attribute WORD: bit 0 by time, 2-5 the alarms as for areas (bit 1 reserved).
ROUTE_ATTRIBUTE_NAMES = {bit: name for bit, name in AREA_ATTRIBUTE_NAMES.items() if bit in (
    ATTR_BY_TIME, ATTR_ENTER_ALARM_DRIVER, ATTR_ENTER_ALARM_PLATFORM, ATTR_LEAVE_ALARM_DRIVER,
    ATTR_LEAVE_ALARM_PLATFORM)}

# Route segment attribute BYTE: bit 0 travel time thresholds, 1 speed limit, 2 south, 3 west.
SEGMENT_TRAVEL_TIME = 1 << 0
SEGMENT_SPEED_LIMIT = 1 << 1
SEGMENT_SOUTH = 1 << 2
SEGMENT_WEST = 1 << 3
SEGMENT_ATTRIBUTE_NAMES = {
    SEGMENT_TRAVEL_TIME: "travel_time",
    SEGMENT_SPEED_LIMIT: "speed_limit",
    SEGMENT_SOUTH: "south",
    SEGMENT_WEST: "west",
}

# 0x8600 / 0x8602 set attribute: replace every area of that shape, add, or change existing ones.
SET_UPDATE = 0
SET_APPEND = 1
SET_MODIFY = 2
SET_ACTIONS = (SET_UPDATE, SET_APPEND, SET_MODIFY)
SET_ACTION_NAMES = {SET_UPDATE: "update", SET_APPEND: "append", SET_MODIFY: "modify"}

# 0x8608 / 0x0608 query type.
QUERY_CIRCLE = 1
QUERY_RECTANGLE = 2
QUERY_POLYGON = 3
QUERY_ROUTE = 4
QUERY_TYPES = (QUERY_CIRCLE, QUERY_RECTANGLE, QUERY_POLYGON, QUERY_ROUTE)
QUERY_TYPE_NAMES = {QUERY_CIRCLE: "circle", QUERY_RECTANGLE: "rectangle", QUERY_POLYGON: "polygon", QUERY_ROUTE: "route"}

_NO_TIME = bytes(6)
_MICRO = 1_000_000


def flag_names(value: int, names: dict[int, str]) -> list[str]:
    """The names of the set bits, lowest first; an unnamed bit is ``bit<n>``."""
    return [names.get(1 << n, f"bit{n}") for n in range(value.bit_length()) if value >> n & 1]


class Cursor:
    """Reads a body front to back; every read names its field and offset when the body runs out."""

    def __init__(self, body: bytes, what: str) -> None:
        self.body = body
        self.at = 0
        self.what = what

    def remaining(self) -> int:
        return len(self.body) - self.at

    def _take(self, size: int, name: str) -> bytes:
        if self.at + size > len(self.body):
            raise BodyError(f"{self.what} {name} at byte {self.at} needs {size} bytes, "
                            f"the body has {self.remaining()} left")
        raw = self.body[self.at:self.at + size]
        self.at += size
        return raw

    def uint(self, size: int, name: str) -> int:
        return int.from_bytes(self._take(size, name), "big")

    def coordinate(self, name: str, negative: bool) -> float:
        return degrees(self.uint(4, name), negative)

    def time(self, name: str) -> datetime | None:
        at = self.at
        raw = self._take(6, name)
        if raw == _NO_TIME:
            return None
        try:
            return bcd_time_to_utc(raw)
        except BodyError as exc:
            raise BodyError(f"{self.what} {name} at byte {at}: {exc}") from None

    def text16(self, name: str) -> str:
        length = self.uint(2, f"{name} length")
        return decode_text(self._take(length, name))

    def check_count(self, count: int, min_size: int, name: str) -> None:
        """Refuse a count the rest of the body cannot hold, before reading any item."""
        if count * min_size > self.remaining():
            raise BodyError(f"{self.what} announces {count} {name} at byte {self.at}, "
                            f"the {self.remaining()} bytes left hold at most {self.remaining() // min_size}")

    def finish(self) -> None:
        if self.remaining():
            raise BodyError(f"{self.what} has {self.remaining()} bytes after its last field (byte {self.at})")


def degrees(raw: int, negative: bool) -> float:
    """A DWORD of 1e-6 degrees and its south / west bit -> signed degrees."""
    return -raw / _MICRO if negative else raw / _MICRO


def put(value: int, size: int, name: str, what: str) -> bytes:
    """An unsigned big-endian field; ValueError naming the field when it does not fit."""
    try:
        if value < 0:
            raise OverflowError
        return int(value).to_bytes(size, "big")
    except (OverflowError, TypeError):
        raise ValueError(f"{what} {name}: {value!r} does not fit {size * 8} bits unsigned") from None


def put_coordinate(degrees: float, limit: int, name: str, what: str) -> bytes:
    if not abs(degrees) <= limit:
        raise ValueError(f"{what} {name}: {degrees} degrees is outside ±{limit}")
    return round(abs(degrees) * _MICRO).to_bytes(4, "big")


def sign_bits(coordinates: list[tuple[float, float]], south: int, west: int, what: str) -> int:
    """The south/west bits for coordinates that must share them (one area's points)."""
    souths = {lat < 0 for lat, _ in coordinates}
    wests = {lng < 0 for _, lng in coordinates}
    if len(souths) > 1 or len(wests) > 1:
        raise ValueError(f"{what}: one area cannot cross the equator or the prime meridian "
                         "(its points share one south / west attribute bit)")
    return (south if True in souths else 0) | (west if True in wests else 0)


def read_window(cur: Cursor, attributes: int) -> tuple[datetime | None, datetime | None]:
    if not attributes & ATTR_BY_TIME:
        return None, None
    return cur.time("start time"), cur.time("end time")


def window_bytes(attributes: int, start: datetime | None, end: datetime | None, what: str) -> bytes:
    if not attributes & ATTR_BY_TIME:
        if start is not None or end is not None:
            raise ValueError(f"{what}: a start or end time needs attribute bit 0 (by time)")
        return b""
    out = b""
    for name, moment in (("start time", start), ("end time", end)):
        try:
            out += _NO_TIME if moment is None else utc_to_bcd_time(moment)
        except ValueError as exc:
            raise ValueError(f"{what} {name}: {exc}") from None
    return out


def read_speed(cur: Cursor, attributes: int, bit: int) -> tuple[int | None, int | None]:
    if not attributes & bit:
        return None, None
    return cur.uint(2, "max speed"), cur.uint(1, "overspeed duration")


def speed_bytes(attributes: int, bit: int, max_speed_kmh: int | None, duration_s: int | None, what: str) -> bytes:
    if not attributes & bit:
        if max_speed_kmh is not None or duration_s is not None:
            raise ValueError(f"{what}: a max speed or overspeed duration needs its speed-limit attribute bit")
        return b""
    if max_speed_kmh is None or duration_s is None:
        raise ValueError(f"{what}: the speed-limit attribute bit needs max_speed_kmh and overspeed_duration_s")
    return put(max_speed_kmh, 2, "max speed", what) + put(duration_s, 1, "overspeed duration", what)


def read_night_speed(cur: Cursor, attributes: int, bit: int, version: str) -> int | None:
    if version != "2019" or not attributes & bit:
        return None
    return cur.uint(2, "night max speed")


def night_speed_bytes(attributes: int, bit: int, night_kmh: int | None, day_kmh: int | None,
                      version: str, what: str) -> bytes:
    """2019 only, under the speed-limit bit. None sends the day limit: no stricter limit at night."""
    if version != "2019" or not attributes & bit:
        return b""
    value = night_kmh if night_kmh is not None else day_kmh
    return put(value or 0, 2, "night max speed", what)


def read_name(cur: Cursor, version: str) -> str:
    return cur.text16("name") if version == "2019" else ""


def name_bytes(name: str, version: str, what: str) -> bytes:
    """2019 only (older layouts have no name: it is not sent)."""
    if version != "2019":
        return b""
    try:
        raw = name.encode("gbk")
    except UnicodeError as exc:
        raise ValueError(f"{what} name: {exc}") from None
    return put(len(raw), 2, "name length", what) + raw


def read_action(cur: Cursor) -> int:
    at = cur.at
    action = cur.uint(1, "set attribute")
    if action not in SET_ACTIONS:
        raise BodyError(f"{cur.what} set attribute at byte {at}: {action} is not 0 update, 1 append or 2 modify")
    return action


def action_bytes(action: int, count: int, what: str) -> bytes:
    if action not in SET_ACTIONS:
        raise ValueError(f"{what} set attribute: {action} is not 0 update, 1 append or 2 modify")
    if count > 0xFF:
        raise ValueError(f"{what}: {count} areas, at most 255 per message")
    return bytes((action, count))


def read_area_set(body: bytes, what: str, read_item: Callable[[Cursor], T], min_size: int) -> tuple[int, tuple[T, ...]]:
    """A set-areas body (0x8600, 0x8602): set attribute, count, then ``count`` items; (action, items)."""
    cur = Cursor(body, what)
    action = read_action(cur)
    count = cur.uint(1, "area count")
    cur.check_count(count, min_size, "areas")
    items = tuple(read_item(cur) for _ in range(count))
    cur.finish()
    return action, items


def write_area_set(action: int, areas: Sequence[Writable], what: str, version: str) -> bytes:
    """The set-areas body of ``areas`` (0x8600, 0x8602) in ``version``'s layout."""
    check_version(version)
    return action_bytes(action, len(areas), what) + b"".join(area.write(version) for area in areas)
