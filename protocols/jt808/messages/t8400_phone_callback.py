"""0x8400 phone callback (电话回拨): flag BYTE (0 a normal call, 1 listen-in: the terminal calls the number
with its microphone open and its speaker off), then the phone number (STRING, at most 20 bytes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text
from protocols.jt808.registry import register_body

FLAG_CALL = 0
FLAG_LISTEN = 1
PHONE_MAX_BYTES = 20


@register_body
@dataclass(frozen=True)
class PhoneCallback:
    MSG_ID: ClassVar[int] = 0x8400
    flag: int
    phone: str

    @classmethod
    def decode(cls, body: bytes, version: str) -> PhoneCallback:
        if not body:
            raise BodyError("0x8400 body is empty")
        return cls(body[0], decode_text(body[1:]))

    def encode(self, version: str) -> bytes:
        raw = encode_text(self.phone)
        if len(raw) > PHONE_MAX_BYTES or self.flag not in (FLAG_CALL, FLAG_LISTEN):
            raise ValueError(f"0x8400 needs flag 0 or 1 and a phone of at most {PHONE_MAX_BYTES} bytes")
        return bytes((self.flag,)) + raw
