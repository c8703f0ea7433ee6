"""0x8800 multimedia upload response: media id DWORD, retransmit count BYTE, then the package ids
(WORD each, from 1) to send again. No ids means the upload is complete. A bare 4-byte body (some
platforms omit the count when it is 0) decodes as complete."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class MediaUploadResponse:
    MSG_ID: ClassVar[int] = 0x8800
    media_id: int
    retransmit_ids: tuple[int, ...] = ()

    @classmethod
    def decode(cls, body: bytes, version: str) -> MediaUploadResponse:
        if len(body) < 4:
            raise BodyError(f"0x8800 needs at least 4 bytes, got {len(body)}")
        (media_id,) = struct.unpack_from(">I", body)
        if len(body) == 4:
            return cls(media_id)
        count = body[4]
        if len(body) < 5 + 2 * count:
            raise BodyError(f"0x8800 announces {count} package ids, body holds {(len(body) - 5) // 2}")
        return cls(media_id, struct.unpack_from(f">{count}H", body, 5))

    def encode(self, version: str) -> bytes:
        count = len(self.retransmit_ids)
        if count > 0xFF:
            raise ValueError(f"at most 255 package ids per 0x8800, got {count}")
        return struct.pack(f">IB{count}H", self.media_id, count, *self.retransmit_ids)
