"""0x11 overspeed alarm details: location type BYTE, area/route id DWORD (absent when type is 0).

Location type: 0 no specific location, 1 circle, 2 rectangle, 3 polygon, 4 route.
"""

from __future__ import annotations

from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item


def decode(raw: bytes) -> dict[str, Any]:
    area_id = int.from_bytes(raw[1:5], "big") if len(raw) == 5 else None
    return {"location_type": raw[0], "area_id": area_id}


def encode(value: Any) -> bytes:
    head = bytes((value["location_type"],))
    area_id = value.get("area_id")
    return head if area_id is None else head + int(area_id).to_bytes(4, "big")


register_item(ItemSpec(0x11, "overspeed_alarm", decode, encode, frozenset({1, 5})))
