"""0x67 BSD alarm (blind spot detection), Jiangsu 2017 table 4-21 -> ``extras["bsd_alarm"]``.

| field | wire | JSON |
|---|---|---|
| alarm id | DWORD | ``alarm_id`` |
| flag | BYTE 0 none, 1 start, 2 end | ``flag`` |
| alarm/event type | BYTE 1 rear approach, 2 left rear, 3 right rear | ``type`` (key ``bsd_<type>``) |
| shared block | see ``_active_safety`` | speed_kmh ... alarm_no |

No level (``level`` is null). 41 bytes in Jiangsu, 65 with the Guangdong alarm number.
"""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumberLayout
from protocols.jt808.extras._active_safety import TAIL, decode_tail, encode_tail
from protocols.jt808.extras.registry import ItemSpec, register_item

ITEM_ID = 0x67
NAME = "bsd_alarm"
HEAD = struct.Struct(">IBB")


def bsd_item(layout: AlarmNumberLayout) -> ItemSpec:
    def decode(raw: bytes) -> dict[str, Any]:
        alarm_id, flag, kind = HEAD.unpack_from(raw)
        tail, _ = decode_tail(raw, HEAD.size, layout)
        return {"alarm_id": alarm_id, "flag": flag, "type": kind, "level": None, **tail}

    def encode(value: dict[str, Any]) -> bytes:
        return HEAD.pack(int(value["alarm_id"]), int(value.get("flag") or 0), int(value["type"])) + encode_tail(
            value, layout)

    return ItemSpec(ITEM_ID, NAME, decode, encode, frozenset({HEAD.size + TAIL.size + layout.size}))


register_item(bsd_item(JIANGSU_2017))
