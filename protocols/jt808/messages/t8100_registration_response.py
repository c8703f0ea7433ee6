"""0x8100 registration response: reply serial WORD, result BYTE, auth code STRING (only on success)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">HB")
SUCCESS = 0


@register_body
@dataclass(frozen=True)
class RegistrationResponse:
    """``result``: 0 success, 1 vehicle already registered, 2 vehicle not in database, 3 terminal
    already registered, 4 terminal not in database. ``auth_code`` is None unless result is 0."""

    MSG_ID: ClassVar[int] = 0x8100
    reply_seq: int
    result: int
    auth_code: str | None = None

    @classmethod
    def decode(cls, body: bytes, version: str) -> RegistrationResponse:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x8100 needs at least {_HEAD.size} bytes, got {len(body)}")
        reply_seq, result = _HEAD.unpack_from(body)
        auth_code = decode_text(body[_HEAD.size :]) if result == SUCCESS else None
        return cls(reply_seq, result, auth_code)

    def encode(self, version: str) -> bytes:
        head = _HEAD.pack(self.reply_seq, self.result)
        if self.result != SUCCESS:
            return head
        if self.auth_code is None:
            raise ValueError("a successful 0x8100 needs an auth_code")
        return head + encode_text(self.auth_code)
