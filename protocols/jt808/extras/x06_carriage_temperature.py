"""0x06 carriage temperature (2019), WORD in degrees Celsius, -32767..+32767.

The standard says "highest bit 1 means negative": sign and magnitude, not two's complement (its
range stops at -32767 for that reason). 0x8005 is -5 degrees.
"""

from __future__ import annotations

from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item

_SIGN = 0x8000


def decode(raw: bytes) -> int:
    word = int.from_bytes(raw, "big")
    return -(word & 0x7FFF) if word & _SIGN else word


def encode(value: Any) -> bytes:
    celsius = int(value)
    if not -0x7FFF <= celsius <= 0x7FFF:
        raise ValueError(f"carriage temperature {celsius} outside -32767..32767")
    word = (-celsius | _SIGN) if celsius < 0 else celsius
    return word.to_bytes(2, "big")


register_item(ItemSpec(0x06, "carriage_temp_c", decode, encode, frozenset({2})))
