"""0x66 TPMS alarm (tyre pressure monitoring), Jiangsu 2017 table 4-18 -> ``extras["tpms_alarm"]``.

| field | wire | JSON |
|---|---|---|
| alarm id | DWORD | ``alarm_id`` |
| flag | BYTE 0 none, 1 start, 2 end | ``flag`` |
| shared block | see ``_active_safety`` | speed_kmh ... alarm_no |
| event count | BYTE | ``len(events)`` |
| per event | tyre BYTE, type WORD bits, pressure WORD kPa, temperature WORD °C, battery WORD % | ``events[]`` |

An event's ``type`` is the type WORD as sent, a bit set (bit 0 timed report, 1 pressure high, 2 low,
3 temperature high, 4 sensor fault, 5 unbalanced, 6 slow leak, 7 battery low): each set bit n but 0 is
the catalogue key ``tpms_<n>`` (``alarm_bits(type)``). The item's ``type`` is the first event's;
``level`` is null (TPMS has none).
"""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumberLayout
from protocols.jt808.errors import BodyError
from protocols.jt808.extras._active_safety import decode_tail, encode_tail
from protocols.jt808.extras.registry import ItemSpec, register_item

ITEM_ID = 0x66
NAME = "tpms_alarm"
HEAD = struct.Struct(">IB")
EVENT = struct.Struct(">BHHHH")


def alarm_bits(event_type: int) -> list[int]:
    """The alarm bits of a tyre event's type WORD (bit 0, the timed report, is no alarm)."""
    return [bit for bit in range(1, 16) if event_type >> bit & 1]


def tpms_item(layout: AlarmNumberLayout) -> ItemSpec:
    def decode(raw: bytes) -> dict[str, Any]:
        alarm_id, flag = HEAD.unpack_from(raw)
        tail, at = decode_tail(raw, HEAD.size, layout)
        if at >= len(raw):
            raise BodyError("0x66 has no event count")
        count, at = raw[at], at + 1
        if len(raw) != at + count * EVENT.size:
            raise BodyError(f"0x66 says {count} events but has {len(raw) - at} bytes for them")
        events = []
        for index in range(count):
            tyre, kind, pressure, temperature, battery = EVENT.unpack_from(raw, at + index * EVENT.size)
            events.append({"tyre": tyre, "type": kind, "pressure_kpa": pressure, "temperature_c": temperature,
                           "battery_pct": battery})
        return {"alarm_id": alarm_id, "flag": flag, "type": events[0]["type"] if events else 0, "level": None,
                **tail, "events": events}

    def encode(value: dict[str, Any]) -> bytes:
        events = value.get("events") or []
        out = HEAD.pack(int(value["alarm_id"]), int(value.get("flag") or 0)) + encode_tail(value, layout)
        out += bytes((len(events),))
        for event in events:
            out += EVENT.pack(int(event["tyre"]), int(event["type"]), int(event.get("pressure_kpa") or 0),
                              int(event.get("temperature_c") or 0), int(event.get("battery_pct") or 0))
        return out

    return ItemSpec(ITEM_ID, NAME, decode, encode, None)


register_item(tpms_item(JIANGSU_2017))
