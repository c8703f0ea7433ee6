"""0x64 ADAS alarm (advanced driver assistance), Jiangsu 2017 table 4-15 -> ``extras["adas_alarm"]``.

| field | wire | JSON |
|---|---|---|
| alarm id | DWORD | ``alarm_id`` |
| flag | BYTE 0 none, 1 start, 2 end | ``flag`` |
| alarm/event type | BYTE (1 forward collision ... 17 active capture) | ``type`` (key ``adas_<type>``) |
| level | BYTE 1, 2 | ``level`` |
| front vehicle speed | BYTE km/h (types 1, 2) | ``front_speed_kmh`` |
| headway to vehicle/pedestrian | BYTE, 100 ms (types 1, 2, 4) | ``headway_s`` |
| deviation type | BYTE 1 left, 2 right (type 2) | ``deviation_type`` |
| road sign type / data | BYTE, BYTE (types 6, 16) | ``road_sign_type``, ``road_sign_data`` |
| shared block | see ``_active_safety`` | speed_kmh ... alarm_no |

47 bytes in Jiangsu, 71 with the Guangdong alarm number; another length stays in ``unknown_items``.
"""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumberLayout
from protocols.jt808.extras._active_safety import TAIL, decode_tail, encode_tail
from protocols.jt808.extras.registry import ItemSpec, register_item

ITEM_ID = 0x64
NAME = "adas_alarm"
HEAD = struct.Struct(">IBBBBBBBB")


def adas_item(layout: AlarmNumberLayout) -> ItemSpec:
    def decode(raw: bytes) -> dict[str, Any]:
        alarm_id, flag, kind, level, front_speed, headway, deviation, sign_type, sign_data = HEAD.unpack_from(raw)
        tail, _ = decode_tail(raw, HEAD.size, layout)
        return {"alarm_id": alarm_id, "flag": flag, "type": kind, "level": level, **tail,
                "front_speed_kmh": front_speed, "headway_s": headway / 10, "deviation_type": deviation,
                "road_sign_type": sign_type, "road_sign_data": sign_data}

    def encode(value: dict[str, Any]) -> bytes:
        return HEAD.pack(
            int(value["alarm_id"]), int(value.get("flag") or 0), int(value["type"]), int(value.get("level") or 0),
            int(value.get("front_speed_kmh") or 0), round(float(value.get("headway_s") or 0) * 10),
            int(value.get("deviation_type") or 0), int(value.get("road_sign_type") or 0),
            int(value.get("road_sign_data") or 0),
        ) + encode_tail(value, layout)

    return ItemSpec(ITEM_ID, NAME, decode, encode, frozenset({HEAD.size + TAIL.size + layout.size}))


register_item(adas_item(JIANGSU_2017))
