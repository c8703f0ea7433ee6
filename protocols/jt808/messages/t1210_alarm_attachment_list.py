"""0x1210 alarm attachment list (terminal -> attachment server), Jiangsu 2017 table 4-24:
terminal id BYTE[7] (BYTE[30] in Guangdong 2019), alarm number (16/40 bytes), alarm uuid BYTE[32],
info type BYTE (0 normal, 1 resent), count BYTE, then per file: name length BYTE, name, size DWORD."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumber, AlarmNumberLayout
from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_fixed_text, encode_fixed_text
from protocols.jt808.messages._alarm_files import UUID_SIZE, need, read_name, uuid_bytes, write_name
from protocols.jt808.registry import register_body

_SIZE = struct.Struct(">I")


@dataclass(frozen=True)
class AttachmentFile:
    name: str
    size: int


@register_body
@dataclass(frozen=True)
class AlarmAttachmentList:
    MSG_ID: ClassVar[int] = 0x1210
    ALARM_NO_LAYOUT: ClassVar[AlarmNumberLayout] = JIANGSU_2017
    terminal_id: str
    alarm_no: AlarmNumber
    alarm_uuid: str
    info_type: int
    files: tuple[AttachmentFile, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> AlarmAttachmentList:
        """Raises BodyError for a short body or a file list overrunning it."""
        layout = cls.ALARM_NO_LAYOUT
        tid = layout.terminal_id_size
        need(body, tid + layout.size + UUID_SIZE + 2, "0x1210")
        at = tid + layout.size
        alarm_uuid = decode_fixed_text(body[at:at + UUID_SIZE])
        info_type, count = body[at + UUID_SIZE], body[at + UUID_SIZE + 1]
        at += UUID_SIZE + 2
        files = []
        for _ in range(count):
            name, at = read_name(body, at, "0x1210 file")
            if at + _SIZE.size > len(body):
                raise BodyError(f"0x1210 file {name!r}: size missing")
            files.append(AttachmentFile(name, _SIZE.unpack_from(body, at)[0]))
            at += _SIZE.size
        return cls(decode_fixed_text(body[:tid]), layout.decode(body, tid), alarm_uuid, info_type, tuple(files))

    def encode(self, version: str) -> bytes:
        if len(self.files) > 0xFF:
            raise BodyError(f"0x1210 holds at most 255 files, got {len(self.files)}")
        layout = self.ALARM_NO_LAYOUT
        out = (encode_fixed_text(self.terminal_id, layout.terminal_id_size) + layout.encode(self.alarm_no)
               + uuid_bytes(self.alarm_uuid) + bytes((self.info_type, len(self.files))))
        for file in self.files:
            out += write_name(file.name, "0x1210 file") + _SIZE.pack(file.size)
        return out
