"""0x9212 attachment file upload finished response (attachment server -> terminal): name length BYTE,
name, file type BYTE, result BYTE (0 complete, 1 resend), count BYTE, then per missing range:
offset DWORD, length DWORD."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._alarm_files import read_name, write_name
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">BBB")
_RANGE = struct.Struct(">II")


@register_body
@dataclass(frozen=True)
class AttachmentFileDoneResponse:
    MSG_ID: ClassVar[int] = 0x9212
    name: str
    file_type: int
    result: int
    missing: tuple[tuple[int, int], ...] = ()  # (offset, length) to send again

    @classmethod
    def decode(cls, body: bytes, version: str) -> AttachmentFileDoneResponse:
        """Raises BodyError for a short body or a range list overrunning it."""
        name, at = read_name(body, 0, "0x9212")
        if len(body) < at + _HEAD.size:
            raise BodyError(f"0x9212 needs {at + _HEAD.size} bytes, got {len(body)}")
        file_type, result, count = _HEAD.unpack_from(body, at)
        at += _HEAD.size
        if len(body) < at + count * _RANGE.size:
            raise BodyError(f"0x9212 says {count} ranges but has {len(body) - at} bytes for them")
        missing = tuple(_RANGE.unpack_from(body, at + i * _RANGE.size) for i in range(count))
        return cls(name, file_type, result, missing)

    def encode(self, version: str) -> bytes:
        if len(self.missing) > 0xFF:
            raise BodyError(f"0x9212 holds at most 255 ranges, got {len(self.missing)}")
        out = write_name(self.name, "0x9212") + _HEAD.pack(self.file_type, self.result, len(self.missing))
        return out + b"".join(_RANGE.pack(offset, length) for offset, length in self.missing)
