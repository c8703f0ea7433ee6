"""0x8802 stored multimedia search: media type BYTE, channel BYTE (0 all), event code BYTE, start
BCD[6], end BCD[6] (all zeros: no limit, ``None`` here). The terminal answers with 0x0802."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._media import decode_optional_time, encode_optional_time
from protocols.jt808.registry import register_body

SIZE = 15


@register_body
@dataclass(frozen=True)
class StoredMediaSearch:
    MSG_ID: ClassVar[int] = 0x8802
    media_type: int
    channel: int
    event_code: int
    start: datetime | None
    end: datetime | None

    @classmethod
    def decode(cls, body: bytes, version: str) -> StoredMediaSearch:
        if len(body) < SIZE:
            raise BodyError(f"0x8802 needs {SIZE} bytes, got {len(body)}")
        return cls(
            body[0], body[1], body[2], decode_optional_time(body[3:9]), decode_optional_time(body[9:15])
        )

    def encode(self, version: str) -> bytes:
        return (
            bytes((self.media_type, self.channel, self.event_code))
            + encode_optional_time(self.start)
            + encode_optional_time(self.end)
        )
