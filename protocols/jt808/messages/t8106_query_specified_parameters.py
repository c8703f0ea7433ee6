"""0x8106 query specified terminal parameters: count BYTE, then parameter ids (DWORD each).
The terminal answers with 0x0104."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class QuerySpecifiedParameters:
    MSG_ID: ClassVar[int] = 0x8106
    ids: tuple[int, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> QuerySpecifiedParameters:
        if not body:
            raise BodyError("0x8106 body is empty")
        count = body[0]
        if len(body) < 1 + 4 * count:
            raise BodyError(f"0x8106 announces {count} ids, body holds {(len(body) - 1) // 4}")
        return cls(struct.unpack_from(f">{count}I", body, 1))

    def encode(self, version: str) -> bytes:
        if len(self.ids) > 0xFF:
            raise ValueError("at most 255 parameter ids per 0x8106")
        return bytes((len(self.ids),)) + struct.pack(f">{len(self.ids)}I", *self.ids)
