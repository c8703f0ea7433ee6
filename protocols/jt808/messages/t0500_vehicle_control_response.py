"""0x0500 vehicle control response: reply serial WORD (of the 0x8500), then a whole 0x0200 body, the
position and state after the control (JT/T 808 §8.48: the door state is status bit 12, 1 locked)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages.t0200_location_report import LocationReport
from protocols.jt808.registry import register_body

DOORS_LOCKED_BIT = 1 << 12  # status bit 12: doors locked (1) / unlocked (0)


@register_body
@dataclass(frozen=True)
class VehicleControlResponse:
    MSG_ID: ClassVar[int] = 0x0500
    reply_seq: int
    location: LocationReport

    @classmethod
    def decode(cls, body: bytes, version: str) -> VehicleControlResponse:
        if len(body) < 2:
            raise BodyError(f"0x0500 needs at least 2 bytes, got {len(body)}")
        return cls(struct.unpack_from(">H", body)[0], LocationReport.decode(body[2:], version))

    def encode(self, version: str) -> bytes:
        return struct.pack(">H", self.reply_seq) + self.location.encode(version)
