"""0x0104 query parameters response: reply serial WORD, count BYTE, then parameters.

A body that ends cleanly after fewer parameters than its count keeps those (a real terminal's reply,
vector P-0104-SHORT); a parameter that overruns the body is still a BodyError."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages.params import TerminalParam, decode_params, encode_params
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">HB")


@register_body
@dataclass(frozen=True)
class QueryParametersResponse:
    MSG_ID: ClassVar[int] = 0x0104
    reply_seq: int
    params: tuple[TerminalParam, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryParametersResponse:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x0104 needs at least {_HEAD.size} bytes, got {len(body)}")
        reply_seq, count = _HEAD.unpack_from(body)
        return cls(reply_seq, decode_params(body, _HEAD.size, count, "0x0104", short_ok=True))

    def encode(self, version: str) -> bytes:
        return struct.pack(">H", self.reply_seq) + encode_params(self.params)
