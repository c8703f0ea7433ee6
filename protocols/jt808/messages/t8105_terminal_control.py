"""0x8105 terminal control: command word BYTE, then the command's parameters as a STRING (fields
separated by ';', only commands 1 wireless upgrade and 2 connect to a server have any).

Commands: 1 upgrade, 2 connect to server, 3 power off, 4 reset, 5 factory reset, 6 close data
connection, 7 close all wireless connections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text
from protocols.jt808.registry import register_body

COMMAND_RESET = 4


@register_body
@dataclass(frozen=True)
class TerminalControl:
    MSG_ID: ClassVar[int] = 0x8105
    command: int
    params: str = ""

    @classmethod
    def decode(cls, body: bytes, version: str) -> TerminalControl:
        if not body:
            raise BodyError("0x8105 body is empty")
        return cls(body[0], decode_text(body[1:]))

    def encode(self, version: str) -> bytes:
        return bytes((self.command,)) + encode_text(self.params)
