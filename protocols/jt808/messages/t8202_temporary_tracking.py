"""0x8202 temporary position tracking: interval WORD (s; 0 stops tracking), validity DWORD (s)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

_LAYOUT = struct.Struct(">HI")


@register_body
@dataclass(frozen=True)
class TemporaryTracking:
    MSG_ID: ClassVar[int] = 0x8202
    interval_s: int
    validity_s: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> TemporaryTracking:
        if len(body) < 2:
            raise BodyError(f"0x8202 needs at least 2 bytes, got {len(body)}")
        if len(body) < _LAYOUT.size:  # interval 0 (stop) is sometimes sent without the validity
            return cls(struct.unpack_from(">H", body)[0], 0)
        return cls(*_LAYOUT.unpack_from(body))

    def encode(self, version: str) -> bytes:
        return _LAYOUT.pack(self.interval_s, self.validity_s)
