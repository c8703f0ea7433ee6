"""0x8201 position query: empty body (the terminal answers with 0x0201)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class QueryLocation:
    MSG_ID: ClassVar[int] = 0x8201

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryLocation:
        return cls()

    def encode(self, version: str) -> bytes:
        return b""
