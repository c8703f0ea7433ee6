"""0x8003 re-send sub-packages request: original serial WORD (of the first package), count, then the
package ids (WORD each, from 1). The count is a BYTE in 2011/2013 and a WORD from 2019."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import check_version
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class ResendSubpackagesRequest:
    MSG_ID: ClassVar[int] = 0x8003
    original_seq: int
    package_ids: tuple[int, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> ResendSubpackagesRequest:
        head = ">HH" if version == "2019" else ">HB"
        size = struct.calcsize(head)
        if len(body) < size:
            raise BodyError(f"0x8003 ({version}) needs at least {size} bytes, got {len(body)}")
        original_seq, count = struct.unpack_from(head, body)
        if len(body) < size + 2 * count:
            raise BodyError(f"0x8003 announces {count} package ids, body holds {(len(body) - size) // 2}")
        return cls(original_seq, struct.unpack_from(f">{count}H", body, size))

    def encode(self, version: str) -> bytes:
        count = len(self.package_ids)
        wide = check_version(version) == "2019"
        if count > (0xFFFF if wide else 0xFF):
            raise ValueError(f"too many package ids for a {version} 0x8003: {count}")
        head = struct.pack(">HH" if wide else ">HB", self.original_seq, count)
        return head + struct.pack(f">{count}H", *self.package_ids)
