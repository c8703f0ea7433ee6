"""0x0002 terminal heartbeat: empty body (any bytes present are ignored)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class Heartbeat:
    MSG_ID: ClassVar[int] = 0x0002

    @classmethod
    def decode(cls, body: bytes, version: str) -> Heartbeat:
        return cls()

    def encode(self, version: str) -> bytes:
        return b""
