"""Layout shared by 0x0001 and 0x8001: reply serial WORD, reply message id WORD, result BYTE."""

from __future__ import annotations

import struct

from protocols.jt808.errors import BodyError

LAYOUT = struct.Struct(">HHB")


def unpack(body: bytes, name: str) -> tuple[int, int, int]:
    if len(body) < LAYOUT.size:
        raise BodyError(f"{name} needs {LAYOUT.size} bytes, got {len(body)}")
    reply_seq, reply_msg_id, result = LAYOUT.unpack_from(body)
    return reply_seq, reply_msg_id, result
