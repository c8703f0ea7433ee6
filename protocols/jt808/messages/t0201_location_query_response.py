"""0x0201 position query response: reply serial WORD (of the 0x8201), then a whole 0x0200 body
(basic block and additional items)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages.t0200_location_report import LocationReport
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class LocationQueryResponse:
    MSG_ID: ClassVar[int] = 0x0201
    reply_seq: int
    location: LocationReport

    @classmethod
    def decode(cls, body: bytes, version: str) -> LocationQueryResponse:
        if len(body) < 2:
            raise BodyError(f"0x0201 needs at least 2 bytes, got {len(body)}")
        return cls(struct.unpack_from(">H", body)[0], LocationReport.decode(body[2:], version))

    def encode(self, version: str) -> bytes:
        return struct.pack(">H", self.reply_seq) + self.location.encode(version)
