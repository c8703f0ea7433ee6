"""0x0805 camera shoot response: reply serial WORD (of the 0x8801), result BYTE (0 success,
1 failure, 2 channel not supported), then, on success only, count WORD and media ids (DWORD each).

A success reply whose id list is missing, or does not hold exactly its count of ids, is a BodyError:
a malformed capture reply must not pass unnoticed (vector PEER-QUEC-0805-2019)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

_HEAD = struct.Struct(">HB")
RESULT_SUCCESS = 0
RESULT_FAILURE = 1
RESULT_CHANNEL_UNSUPPORTED = 2


@register_body
@dataclass(frozen=True)
class CameraShootResponse:
    MSG_ID: ClassVar[int] = 0x0805
    reply_seq: int
    result: int
    media_ids: tuple[int, ...] = ()

    @classmethod
    def decode(cls, body: bytes, version: str) -> CameraShootResponse:
        if len(body) < _HEAD.size:
            raise BodyError(f"0x0805 needs at least {_HEAD.size} bytes, got {len(body)}")
        reply_seq, result = _HEAD.unpack_from(body)
        if result != RESULT_SUCCESS:
            return cls(reply_seq, result)
        if len(body) < _HEAD.size + 2:
            raise BodyError("0x0805 success reply has no media id count")
        (count,) = struct.unpack_from(">H", body, _HEAD.size)
        start = _HEAD.size + 2
        if len(body) < start + 4 * count:
            raise BodyError(f"0x0805 announces {count} media ids, body holds {(len(body) - start) // 4}")
        if len(body) > start + 4 * count:  # QuecPython/jtt808 writes count 0 and the ids as WORDs
            extra = len(body) - start - 4 * count
            raise BodyError(f"0x0805 announces {count} media ids, {extra} bytes follow them")
        return cls(reply_seq, result, struct.unpack_from(f">{count}I", body, start))

    def encode(self, version: str) -> bytes:
        head = _HEAD.pack(self.reply_seq, self.result)
        if self.result != RESULT_SUCCESS:
            return head
        count = len(self.media_ids)
        return head + struct.pack(f">H{count}I", count, *self.media_ids)
