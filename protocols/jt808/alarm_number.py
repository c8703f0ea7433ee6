"""The active-safety alarm number (报警标识号) shared by items 0x64-0x67 and messages 0x9208/0x1210.

| field | Jiangsu 2017 (T/JSATL12) | Guangdong 2019 (粤标) |
|---|---|---|
| terminal id | BYTE[7] | BYTE[30] |
| time | BCD[6] GMT+8 | BCD[6] GMT+8 |
| serial (same-second alarms) | BYTE | BYTE |
| attachment count | BYTE | BYTE |
| reserved | BYTE | BYTE[2] |

The layout is chosen by the active regional variant (``protocols.jt808.variants``); decoders read it
from the variant's item spec or body class, never by branching on the region.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, decode_fixed_text, encode_fixed_text, utc_to_bcd_time


@dataclass(frozen=True)
class AlarmNumber:
    terminal_id: str
    time: datetime  # aware UTC
    seq: int
    attachments: int

    def to_json(self) -> dict[str, Any]:
        return {"terminal_id": self.terminal_id, "time": _iso(self.time), "seq": self.seq,
                "attachments": self.attachments}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> AlarmNumber:
        moment = value["time"]
        if isinstance(moment, str):
            moment = datetime.fromisoformat(moment)
        return cls(str(value["terminal_id"]), moment, int(value["seq"]), int(value["attachments"]))


@dataclass(frozen=True)
class AlarmNumberLayout:
    """How wide the terminal id and the reserved tail are in one regional standard."""

    name: str
    terminal_id_size: int
    reserved_size: int

    @property
    def size(self) -> int:
        return self.terminal_id_size + 8 + self.reserved_size

    def decode(self, raw: bytes, at: int = 0) -> AlarmNumber:
        """Raises BodyError when fewer than ``size`` bytes follow ``at`` or the time is not BCD."""
        if len(raw) - at < self.size:
            raise BodyError(f"alarm number ({self.name}) needs {self.size} bytes, got {len(raw) - at}")
        tid = self.terminal_id_size
        return AlarmNumber(
            decode_fixed_text(raw[at:at + tid]),
            bcd_time_to_utc(raw[at + tid:at + tid + 6]),
            raw[at + tid + 6],
            raw[at + tid + 7],
        )

    def encode(self, number: AlarmNumber) -> bytes:
        """Raises ValueError for a terminal id wider than the layout or a seq/count above 255."""
        return (encode_fixed_text(number.terminal_id, self.terminal_id_size) + utc_to_bcd_time(number.time)
                + bytes((number.seq, number.attachments)) + bytes(self.reserved_size))


JIANGSU_2017 = AlarmNumberLayout("jiangsu2017", 7, 1)
GUANGDONG_2019 = AlarmNumberLayout("guangdong2019", 30, 2)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()
