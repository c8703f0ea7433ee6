"""0x8104 query all terminal parameters: empty body (the terminal answers with 0x0104)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class QueryParameters:
    MSG_ID: ClassVar[int] = 0x8104

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryParameters:
        return cls()

    def encode(self, version: str) -> bytes:
        return b""
