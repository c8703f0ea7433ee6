"""0x12 entering/leaving an area or route: location type BYTE (1 circle, 2 rectangle, 3 polygon,
4 route), area/route id DWORD, direction BYTE (0 entering, 1 leaving)."""

from __future__ import annotations

import struct
from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item

_LAYOUT = struct.Struct(">BIB")


def decode(raw: bytes) -> dict[str, Any]:
    location_type, area_id, direction = _LAYOUT.unpack(raw)
    return {"location_type": location_type, "area_id": area_id, "direction": direction}


def encode(value: Any) -> bytes:
    return _LAYOUT.pack(value["location_type"], value["area_id"], value["direction"])


register_item(ItemSpec(0x12, "area_alarm", decode, encode, frozenset({_LAYOUT.size})))
