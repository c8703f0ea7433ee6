"""0x05 tyre pressure (2019), BYTE[30]: one byte per wheel, from the front, left to right; 0xFF = no
data (-> None).

The standard gives the unit as Pa, which one byte cannot hold for a real tyre, and vendors differ, so
the values stay raw (``tyre_pressure_raw``) instead of carrying a unit we cannot vouch for. Items
of another length (a real device sends 40 unrelated bytes under 0x05) stay in ``unknown_items``.
"""

from __future__ import annotations

from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item

WHEELS = 30
NO_DATA = 0xFF


def decode(raw: bytes) -> list[int | None]:
    return [None if b == NO_DATA else b for b in raw]


def encode(value: Any) -> bytes:
    wheels = [NO_DATA if v is None else int(v) for v in value]
    if len(wheels) > WHEELS:
        raise ValueError(f"at most {WHEELS} wheels")
    return bytes(wheels).ljust(WHEELS, bytes((NO_DATA,)))


register_item(ItemSpec(0x05, "tyre_pressure_raw", decode, encode, frozenset({WHEELS})))
