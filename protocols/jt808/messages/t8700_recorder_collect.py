"""0x8700 travel recorder data collection (行驶记录数据采集命令): the GB/T 19056 command word BYTE, then its
data block. Commands 0x08-0x15 (records over a period) take START_TIME and END_TIME BCD[6] (GMT+8) and the
maximum number of blocks WORD; the others an empty block (``start``/``end`` None)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, utc_to_bcd_time
from protocols.jt808.registry import register_body

PERIOD_COMMANDS = range(0x08, 0x16)


@register_body
@dataclass(frozen=True)
class RecorderCollect:
    MSG_ID: ClassVar[int] = 0x8700
    command: int
    start: datetime | None = None
    end: datetime | None = None
    max_blocks: int = 0

    @classmethod
    def decode(cls, body: bytes, version: str) -> RecorderCollect:
        if not body:
            raise BodyError("0x8700 body is empty")
        if len(body) == 1:
            return cls(body[0])
        if len(body) != 15:
            raise BodyError(f"0x8700 data block must be empty or 14 bytes, got {len(body) - 1}")
        return cls(body[0], bcd_time_to_utc(body[1:7]), bcd_time_to_utc(body[7:13]),
                   int.from_bytes(body[13:15], "big"))

    def encode(self, version: str) -> bytes:
        if self.start is None or self.end is None:
            return bytes((self.command,))
        return (bytes((self.command,)) + utc_to_bcd_time(self.start) + utc_to_bcd_time(self.end)
                + struct.pack(">H", self.max_blocks))
