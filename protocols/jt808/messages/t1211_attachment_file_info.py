"""0x1211 attachment file information (terminal -> attachment server), before a file's data chunks:
name length BYTE, name, file type BYTE (0 picture, 1 audio, 2 video, 3 text, 4 other), size DWORD."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._alarm_files import read_name, write_name
from protocols.jt808.registry import register_body

_TAIL = struct.Struct(">BI")


def decode_file_fields(body: bytes, msg_id: int) -> tuple[str, int, int]:
    """(name, file type, size) of a 0x1211/0x1212 body. Raises BodyError for a short body."""
    name, at = read_name(body, 0, f"0x{msg_id:04X}")
    if len(body) < at + _TAIL.size:
        raise BodyError(f"0x{msg_id:04X} needs {at + _TAIL.size} bytes, got {len(body)}")
    file_type, size = _TAIL.unpack_from(body, at)
    return name, file_type, size


def encode_file_fields(name: str, file_type: int, size: int, msg_id: int) -> bytes:
    return write_name(name, f"0x{msg_id:04X}") + _TAIL.pack(file_type, size)


@register_body
@dataclass(frozen=True)
class AttachmentFileInfo:
    MSG_ID: ClassVar[int] = 0x1211
    name: str
    file_type: int
    size: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> AttachmentFileInfo:
        return cls(*decode_file_fields(body, cls.MSG_ID))

    def encode(self, version: str) -> bytes:
        return encode_file_fields(self.name, self.file_type, self.size, self.MSG_ID)
