"""0x0001 terminal general response."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages import _response
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class TerminalResponse:
    """``result``: 0 success/ack, 1 failure, 2 message error, 3 not supported."""

    MSG_ID: ClassVar[int] = 0x0001
    reply_seq: int
    reply_msg_id: int
    result: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> TerminalResponse:
        return cls(*_response.unpack(body, "0x0001"))

    def encode(self, version: str) -> bytes:
        return _response.LAYOUT.pack(self.reply_seq, self.reply_msg_id, self.result)
