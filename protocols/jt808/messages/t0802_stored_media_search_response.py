"""0x0802 stored multimedia search response: reply serial WORD (of the 0x8802), count WORD, then per
item: media id DWORD, media type BYTE, channel BYTE, event code BYTE, the 28-byte 0x0200 basic block."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._media import decode_basic_location, encode_basic_location
from protocols.jt808.messages.t0200_location_report import BASIC_SIZE, LocationReport
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">HH")
_ITEM = struct.Struct(">IBBB")
ITEM_SIZE = _ITEM.size + BASIC_SIZE  # 35


@dataclass(frozen=True)
class MediaSearchItem:
    media_id: int
    media_type: int
    channel: int
    event_code: int
    location: LocationReport


@register_body
@dataclass(frozen=True)
class StoredMediaSearchResponse:
    MSG_ID: ClassVar[int] = 0x0802
    reply_seq: int
    items: tuple[MediaSearchItem, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> StoredMediaSearchResponse:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x0802 needs at least {_HEAD.size} bytes, got {len(body)}")
        reply_seq, count = _HEAD.unpack_from(body)
        if len(body) < _HEAD.size + count * ITEM_SIZE:
            held = (len(body) - _HEAD.size) // ITEM_SIZE
            raise BodyError(f"0x0802 announces {count} items, body holds {held}")
        items = []
        for index in range(count):
            pos = _HEAD.size + index * ITEM_SIZE
            media_id, media_type, channel, event_code = _ITEM.unpack_from(body, pos)
            location = decode_basic_location(body, pos + _ITEM.size, "0x0802")
            items.append(MediaSearchItem(media_id, media_type, channel, event_code, location))
        return cls(reply_seq, tuple(items))

    def encode(self, version: str) -> bytes:
        if len(self.items) > 0xFFFF:
            raise ValueError("at most 65535 items per 0x0802")
        out = bytearray(_HEAD.pack(self.reply_seq, len(self.items)))
        for item in self.items:
            out += _ITEM.pack(item.media_id, item.media_type, item.channel, item.event_code)
            out += encode_basic_location(item.location)
        return bytes(out)
