"""0x8803 stored multimedia upload command: the 0x8802 criteria, then delete flag BYTE (0 keep,
1 delete after upload). The terminal answers 0x0001 and uploads each match as 0x0801."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._media import decode_optional_time, encode_optional_time
from protocols.jt808.registry import register_body

SIZE = 16


@register_body
@dataclass(frozen=True)
class StoredMediaUpload:
    MSG_ID: ClassVar[int] = 0x8803
    media_type: int
    channel: int
    event_code: int
    start: datetime | None
    end: datetime | None
    delete: int = 0

    @classmethod
    def decode(cls, body: bytes, version: str) -> StoredMediaUpload:
        if len(body) < SIZE:
            raise BodyError(f"0x8803 needs {SIZE} bytes, got {len(body)}")
        return cls(
            body[0],
            body[1],
            body[2],
            decode_optional_time(body[3:9]),
            decode_optional_time(body[9:15]),
            body[15],
        )

    def encode(self, version: str) -> bytes:
        return (
            bytes((self.media_type, self.channel, self.event_code))
            + encode_optional_time(self.start)
            + encode_optional_time(self.end)
            + bytes((self.delete,))
        )
