"""0x0003 terminal logout: empty body (any bytes present are ignored)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class Logout:
    MSG_ID: ClassVar[int] = 0x0003

    @classmethod
    def decode(cls, body: bytes, version: str) -> Logout:
        return cls()

    def encode(self, version: str) -> bytes:
        return b""
