"""0x0800 multimedia event information: media id DWORD, media type BYTE, media format BYTE, event
code BYTE, channel BYTE (codes in ``_media``)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

_LAYOUT = struct.Struct(">IBBBB")


@register_body
@dataclass(frozen=True)
class MediaEventInfo:
    MSG_ID: ClassVar[int] = 0x0800
    media_id: int
    media_type: int
    media_format: int
    event_code: int
    channel: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> MediaEventInfo:
        if len(body) < _LAYOUT.size:
            raise BodyError(f"0x0800 needs {_LAYOUT.size} bytes, got {len(body)}")
        return cls(*_LAYOUT.unpack_from(body))

    def encode(self, version: str) -> bytes:
        return _LAYOUT.pack(self.media_id, self.media_type, self.media_format, self.event_code, self.channel)
