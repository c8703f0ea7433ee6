"""0x0801 multimedia data upload: media id DWORD, media type BYTE, media format BYTE, event code
BYTE, channel BYTE, the 28-byte 0x0200 basic block (since 2013), then the file bytes. Usually
sub-packaged: each package decodes to RawBody; ``merge_subpackages`` gives this body.

JT/T 808-2011 has no position block: ``location`` is None for version "2011", and also when a
"2013" body has a JPEG start (FF D8 FF) where the alarm flags would be (a 2011 terminal's header
looks like 2013; vector BODY-0801-2011).

A position block that does not decode (terminals without a fix send 28 zero bytes, whose time
000000000000 is no date) does not make the file unreadable: ``location`` is None and
``location_error`` says why; the file is still the body's bytes from offset 36.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._media import decode_basic_location, encode_basic_location
from protocols.jt808.messages.t0200_location_report import BASIC_SIZE, LocationReport
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">IBBBB")
DATA_OFFSET = _HEAD.size + BASIC_SIZE  # 36
_JPEG_START = b"\xff\xd8\xff"


@register_body
@dataclass(frozen=True)
class MediaUpload:
    MSG_ID: ClassVar[int] = 0x0801
    media_id: int
    media_type: int
    media_format: int
    event_code: int
    channel: int
    location: LocationReport | None
    data: bytes
    location_error: str | None = None

    @classmethod
    def decode(cls, body: bytes, version: str) -> MediaUpload:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x0801 needs at least {_HEAD.size} bytes, got {len(body)}")
        media_id, media_type, media_format, event_code, channel = _HEAD.unpack_from(body)
        if version == "2011" or (version != "2019" and body[_HEAD.size : _HEAD.size + 3] == _JPEG_START):
            return cls(
                media_id, media_type, media_format, event_code, channel, None, bytes(body[_HEAD.size :])
            )
        if len(body) < DATA_OFFSET:
            raise BodyError(f"0x0801 needs at least {DATA_OFFSET} bytes, got {len(body)}")
        location_error = None
        try:
            location: LocationReport | None = decode_basic_location(body, _HEAD.size, "0x0801")
        except BodyError as exc:
            location, location_error = None, f"0x0801 location block: {exc}"
        return cls(
            media_id, media_type, media_format, event_code, channel, location, bytes(body[DATA_OFFSET:]),
            location_error,
        )

    def encode(self, version: str) -> bytes:
        head = _HEAD.pack(self.media_id, self.media_type, self.media_format, self.event_code, self.channel)
        if self.location is None or version == "2011":  # the 2011 layout has no position
            return head + bytes(self.data)
        return head + encode_basic_location(self.location) + bytes(self.data)
