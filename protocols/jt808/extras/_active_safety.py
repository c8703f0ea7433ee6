"""The block items 0x64-0x67 share after their own head (Jiangsu 2017 tables 4-15 to 4-21):

| field | wire | JSON |
|---|---|---|
| speed | BYTE, km/h | ``speed_kmh`` |
| altitude | WORD, m | ``altitude_m`` |
| latitude, longitude | DWORD, 1e-6 degree | ``lat``, ``lng`` |
| time | BCD[6] GMT+8 | ``time`` (ISO 8601 UTC) |
| vehicle status | WORD bits | ``vehicle_status`` |
| alarm number | 16 bytes (Jiangsu) / 40 (Guangdong) | ``alarm_no`` |

Each item module builds its ItemSpec from an ``AlarmNumberLayout`` so a regional variant can register
the same item with another layout (``protocols.jt808.variants``).
"""

from __future__ import annotations

import struct
from datetime import datetime
from typing import Any

from protocols.jt808.alarm_number import AlarmNumber, AlarmNumberLayout
from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, utc_to_bcd_time

TAIL = struct.Struct(">BHII6sH")  # speed, altitude, lat, lng, time, vehicle status
FLAG_NONE, FLAG_START, FLAG_END = 0, 1, 2


def decode_tail(raw: bytes, at: int, layout: AlarmNumberLayout) -> tuple[dict[str, Any], int]:
    """The shared block from ``at``: (fields, offset after the alarm number). Raises BodyError if short."""
    if len(raw) - at < TAIL.size + layout.size:
        raise BodyError(f"active-safety item needs {TAIL.size + layout.size} bytes from {at}, got {len(raw) - at}")
    speed, altitude, lat, lng, time_raw, status = TAIL.unpack_from(raw, at)
    number = layout.decode(raw, at + TAIL.size)
    fields = {
        "speed_kmh": speed,
        "altitude_m": altitude,
        "lat": lat / 1e6,
        "lng": lng / 1e6,
        "time": bcd_time_to_utc(time_raw).isoformat(),
        "vehicle_status": status,
        "alarm_no": number.to_json(),
    }
    return fields, at + TAIL.size + layout.size


def encode_tail(value: dict[str, Any], layout: AlarmNumberLayout) -> bytes:
    moment = value["time"]
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return TAIL.pack(
        int(value.get("speed_kmh") or 0), int(value.get("altitude_m") or 0),
        round(float(value["lat"]) * 1e6), round(float(value["lng"]) * 1e6),
        utc_to_bcd_time(moment), int(value.get("vehicle_status") or 0),
    ) + layout.encode(AlarmNumber.from_json(value["alarm_no"]))
