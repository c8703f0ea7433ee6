"""0x9003 query the terminal's audio/video attributes: an empty body; the terminal answers 0x1003."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class QueryAvAttributes:
    MSG_ID: ClassVar[int] = 0x9003

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryAvAttributes:
        return cls()

    def encode(self, version: str) -> bytes:
        return b""
