"""0x13 road-section driving time too short/too long: section id DWORD, driving time WORD (s),
result BYTE (0 too short, 1 too long)."""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item

_LAYOUT = struct.Struct(">IHB")


def decode(raw: bytes) -> dict[str, Any]:
    section_id, driving_time_s, result = _LAYOUT.unpack(raw)
    return {"section_id": section_id, "driving_time_s": driving_time_s, "result": result}


def encode(value: Any) -> bytes:
    return _LAYOUT.pack(value["section_id"], value["driving_time_s"], value["result"])


register_item(ItemSpec(0x13, "road_section_time_alarm", decode, encode, frozenset({_LAYOUT.size})))
