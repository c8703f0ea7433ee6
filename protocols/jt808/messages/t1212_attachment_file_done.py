"""0x1212 attachment file upload finished (terminal -> attachment server): the same fields as 0x1211
(name length BYTE, name, file type BYTE, size DWORD). The server answers 0x9212."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages.t1211_attachment_file_info import decode_file_fields, encode_file_fields
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class AttachmentFileDone:
    MSG_ID: ClassVar[int] = 0x1212
    name: str
    file_type: int
    size: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> AttachmentFileDone:
        """Raises BodyError for a short body."""
        return cls(*decode_file_fields(body, cls.MSG_ID))

    def encode(self, version: str) -> bytes:
        return encode_file_fields(self.name, self.file_type, self.size, self.MSG_ID)
