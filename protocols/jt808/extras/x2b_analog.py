"""0x2B analog inputs, DWORD: bits 0-15 AD0, bits 16-31 AD1 (raw converter counts)."""

from __future__ import annotations

from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item


def decode(raw: bytes) -> dict[str, int]:
    word = int.from_bytes(raw, "big")
    return {"ad0": word & 0xFFFF, "ad1": word >> 16}


def encode(value: Any) -> bytes:
    return ((int(value["ad1"]) << 16) | int(value["ad0"])).to_bytes(4, "big")


register_item(ItemSpec(0x2B, "analog", decode, encode, frozenset({4})))
