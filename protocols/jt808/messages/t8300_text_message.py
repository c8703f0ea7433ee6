"""0x8300 text message: flags BYTE, (2019 only) text type BYTE, then the text (GBK STRING).

Flags: bit 0 emergency, bit 2 terminal display, bit 3 TTS read-out, bit 4 advertising screen (2013),
bit 5 2013: CAN fault code / 2019: 0 centre navigation 1 CAN fault code. Text type (2019): 1 notice,
2 service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import check_version, decode_text, encode_text
from protocols.jt808.registry import register_body

FLAG_EMERGENCY = 1 << 0
FLAG_DISPLAY = 1 << 2
FLAG_TTS = 1 << 3
FLAG_ADVERTISING = 1 << 4
FLAG_CAN_FAULT = 1 << 5


@register_body
@dataclass(frozen=True)
class TextMessage:
    MSG_ID: ClassVar[int] = 0x8300
    flags: int
    text: str
    text_type: int = 1

    @classmethod
    def decode(cls, body: bytes, version: str) -> TextMessage:
        if version == "2019":
            if len(body) < 2:
                raise BodyError(f"0x8300 (2019) needs at least 2 bytes, got {len(body)}")
            return cls(body[0], decode_text(body[2:]), body[1])
        if not body:
            raise BodyError("0x8300 body is empty")
        return cls(body[0], decode_text(body[1:]))

    def encode(self, version: str) -> bytes:
        head = (
            bytes((self.flags, self.text_type)) if check_version(version) == "2019" else bytes((self.flags,))
        )
        return head + encode_text(self.text)
