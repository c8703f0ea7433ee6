"""0x0200 location report: 28-byte basic block, then additional-information items.

| field | wire | here |
|---|---|---|
| alarm flags | DWORD | ``alarm_flags`` |
| status flags | DWORD | ``status_flags`` (bit 2 south, bit 3 west) |
| latitude, longitude | DWORD, 1e-6 degree | ``lat``, ``lng`` in degrees, negative south/west |
| altitude | WORD, m | ``altitude_m``, read as signed (Turpan lies at -154 m) |
| speed | WORD, 1/10 km/h | ``speed_kmh`` |
| direction | WORD, 0-359 | ``direction_deg`` |
| time | BCD[6] GMT+8 | ``fix_at``, aware UTC |

The items are split into ``extras`` and ``unknown_items`` on first access, not while decoding: code
that needs only the basic block (acknowledging, de-duplicating, routing) does not pay for them
(see ``benchmarks/codec_bench.py``).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.extras import UnknownItem, decode_items, encode_items
from protocols.jt808.fields import bcd_time_to_utc, cached_utc_time, utc_to_bcd_time
from protocols.jt808.registry import register_body

BASIC = struct.Struct(">IIIIhHH6s")
BASIC_SIZE = BASIC.size  # 28
STATUS_SOUTH = 1 << 2
STATUS_WEST = 1 << 3
_LAZY = frozenset({"extras", "unknown_items"})

_new = object.__new__
_unpack = BASIC.unpack_from


def location_problems(lat: float, lng: float) -> list[str]:
    """Why a decoded fix cannot be a place on earth (empty when it can). The codec keeps such fixes
    (the frame is well formed); ``to_json`` lists these and the stream processors refuse them."""
    problems = []
    if not -90.0 <= lat <= 90.0:
        problems.append(f"latitude {abs(lat)} > 90")
    if not -180.0 <= lng <= 180.0:
        problems.append(f"longitude {abs(lng)} > 180")
    return problems


@register_body
@dataclass(frozen=True)
class LocationReport:
    """A position. When encoding, bits 2/3 of ``status_flags`` follow the signs of ``lat``/``lng``."""

    MSG_ID: ClassVar[int] = 0x0200
    alarm_flags: int
    status_flags: int
    lat: float
    lng: float
    altitude_m: int
    speed_kmh: float
    direction_deg: int
    fix_at: datetime
    extras: dict[str, Any] = field(default_factory=dict)
    unknown_items: tuple[UnknownItem, ...] = field(default_factory=tuple)

    @classmethod
    def decode(cls, body: bytes, version: str) -> LocationReport:
        """Raises BodyError if the basic block is short or its BCD time is not a valid time."""
        try:
            alarm, status, lat_raw, lng_raw, altitude, speed, direction, time_raw = _unpack(body)
        except struct.error:
            raise BodyError(f"0x0200 basic block needs {BASIC_SIZE} bytes, got {len(body)}") from None
        lat = lat_raw / 1e6
        if status & STATUS_SOUTH:
            lat = -lat
        lng = lng_raw / 1e6
        if status & STATUS_WEST:
            lng = -lng
        # Filling __dict__ directly is ~3x cheaper than the frozen __init__. "_items" is split into
        # extras/unknown_items by __getattr__ on first use.
        report: LocationReport = _new(cls)
        fields = report.__dict__
        fields["alarm_flags"] = alarm
        fields["status_flags"] = status
        fields["lat"] = lat
        fields["lng"] = lng
        fields["altitude_m"] = altitude
        fields["speed_kmh"] = speed / 10
        fields["direction_deg"] = direction
        fields["fix_at"] = cached_utc_time(time_raw) or bcd_time_to_utc(time_raw)
        fields["_items"] = body[BASIC_SIZE:]
        return report

    if not TYPE_CHECKING:  # hidden from mypy so typos in attribute names are still caught

        def __getattr__(self, name: str) -> Any:
            # Called only for attributes missing from __dict__: the lazy item fields.
            if name in _LAZY:
                state = self.__dict__
                raw = state.get("_items")
                if raw is not None:
                    state["extras"], state["unknown_items"] = decode_items(raw)
                    return state[name]
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def encode(self, version: str) -> bytes:
        status = self.status_flags & ~(STATUS_SOUTH | STATUS_WEST)
        if math.copysign(1.0, self.lat) < 0:
            status |= STATUS_SOUTH
        if math.copysign(1.0, self.lng) < 0:
            status |= STATUS_WEST
        basic = BASIC.pack(
            self.alarm_flags,
            status,
            round(abs(self.lat) * 1e6),
            round(abs(self.lng) * 1e6),
            self.altitude_m,
            round(self.speed_kmh * 10),
            self.direction_deg,
            utc_to_bcd_time(self.fix_at),
        )
        return basic + encode_items(self.extras, self.unknown_items)
