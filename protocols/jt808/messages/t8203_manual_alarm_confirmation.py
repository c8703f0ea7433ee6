"""0x8203 manual alarm confirmation: alarm message serial WORD (0: every alarm of these types),
alarm type DWORD (bit 0 emergency, 3 danger warning, 20 in/out area, 21 in/out route, 22 road section
time, 27 illegal ignition, 28 illegal displacement)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

_LAYOUT = struct.Struct(">HI")


@register_body
@dataclass(frozen=True)
class ManualAlarmConfirmation:
    MSG_ID: ClassVar[int] = 0x8203
    alarm_seq: int
    alarm_type: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> ManualAlarmConfirmation:
        if len(body) < _LAYOUT.size:
            raise BodyError(f"0x8203 needs {_LAYOUT.size} bytes, got {len(body)}")
        return cls(*_LAYOUT.unpack_from(body))

    def encode(self, version: str) -> bytes:
        return _LAYOUT.pack(self.alarm_seq, self.alarm_type)
