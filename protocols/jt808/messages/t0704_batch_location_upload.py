"""0x0704 batch location upload: count WORD, kind BYTE (0 normal batch, 1 blind-area backlog), then
per item a WORD length and a 0x0200 body.

The count is authoritative: fewer items than it announces is a BodyError; bytes after the last
counted item are ignored.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages.t0200_location_report import LocationReport
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">HB")
_LEN = struct.Struct(">H")
KIND_NORMAL = 0
KIND_BLIND_AREA = 1


@register_body
@dataclass(frozen=True)
class BatchLocationUpload:
    MSG_ID: ClassVar[int] = 0x0704
    kind: int
    items: tuple[LocationReport, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> BatchLocationUpload:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x0704 needs at least {_HEAD.size} bytes, got {len(body)}")
        count, kind = _HEAD.unpack_from(body)
        items = []
        pos = _HEAD.size
        for index in range(count):
            if pos + 2 > len(body):
                raise BodyError(f"0x0704 announces {count} items, body ends after {index}")
            (length,) = _LEN.unpack_from(body, pos)
            pos += 2
            if pos + length > len(body):
                raise BodyError(f"0x0704 item {index + 1} of {length} bytes overruns the body")
            items.append(LocationReport.decode(body[pos : pos + length], version))
            pos += length
        return cls(kind, tuple(items))

    def encode(self, version: str) -> bytes:
        out = bytearray(_HEAD.pack(len(self.items), self.kind))
        for item in self.items:
            data = item.encode(version)
            out += _LEN.pack(len(data)) + data
        return bytes(out)
