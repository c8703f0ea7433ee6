"""0x8103 set terminal parameters: count BYTE, then parameters (see ``params``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages.params import TerminalParam, decode_params, encode_params
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class SetParameters:
    MSG_ID: ClassVar[int] = 0x8103
    params: tuple[TerminalParam, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> SetParameters:
        if not body:
            raise BodyError("0x8103 body is empty")
        return cls(decode_params(body, 1, body[0], "0x8103"))

    def encode(self, version: str) -> bytes:
        return encode_params(self.params)
