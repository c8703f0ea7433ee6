"""0x65 DSM alarm (driver state monitoring), Jiangsu 2017 table 4-17 -> ``extras["dsm_alarm"]``.

| field | wire | JSON |
|---|---|---|
| alarm id | DWORD | ``alarm_id`` |
| flag | BYTE 0 none, 1 start, 2 end | ``flag`` |
| alarm/event type | BYTE (1 fatigue, 2 phone, 3 smoking, 4 distraction, 5 abnormal, 16, 17) | ``type`` |
| level | BYTE 1, 2 | ``level`` |
| fatigue degree | BYTE 1-10 (type 1) | ``fatigue_degree`` |
| reserved | BYTE[4] | dropped (sent as zeros) |
| shared block | see ``_active_safety`` | speed_kmh ... alarm_no |

47 bytes in Jiangsu, 71 with the Guangdong alarm number.
"""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumberLayout
from protocols.jt808.extras._active_safety import TAIL, decode_tail, encode_tail
from protocols.jt808.extras.registry import ItemSpec, register_item

ITEM_ID = 0x65
NAME = "dsm_alarm"
HEAD = struct.Struct(">IBBBB4x")


def dsm_item(layout: AlarmNumberLayout) -> ItemSpec:
    def decode(raw: bytes) -> dict[str, Any]:
        alarm_id, flag, kind, level, fatigue = HEAD.unpack_from(raw)
        tail, _ = decode_tail(raw, HEAD.size, layout)
        return {"alarm_id": alarm_id, "flag": flag, "type": kind, "level": level, **tail,
                "fatigue_degree": fatigue}

    def encode(value: dict[str, Any]) -> bytes:
        return HEAD.pack(int(value["alarm_id"]), int(value.get("flag") or 0), int(value["type"]),
                         int(value.get("level") or 0), int(value.get("fatigue_degree") or 0)) + encode_tail(value, layout)

    return ItemSpec(ITEM_ID, NAME, decode, encode, frozenset({HEAD.size + TAIL.size + layout.size}))


register_item(dsm_item(JIANGSU_2017))
