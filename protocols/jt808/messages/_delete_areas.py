"""The four delete bodies (0x8601 circles, 0x8603 rectangles, 0x8605 polygons, 0x8607 routes) share one
layout: count BYTE, then that many ids DWORD. Count 0 (no ids) deletes every area of that shape; the
standard allows at most 125 ids per message (more is a BodyError / ValueError: send several)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import check_version
from protocols.jt808.messages._areas import Cursor, put

MAX_IDS = 125


@dataclass(frozen=True)
class DeleteAreas:
    """Base of the four delete bodies; ``ids`` empty means all of that shape."""

    MSG_ID: ClassVar[int]
    ids: tuple[int, ...] = ()

    @classmethod
    def decode(cls, body: bytes, version: str) -> DeleteAreas:
        what = f"0x{cls.MSG_ID:04X}"
        cur = Cursor(body, what)
        count = cur.uint(1, "count")
        if count > MAX_IDS:
            raise BodyError(f"{what} count at byte 0: {count}, at most {MAX_IDS} ids per message")
        cur.check_count(count, 4, "ids")
        ids = tuple(cur.uint(4, f"id {i}") for i in range(count))
        cur.finish()
        return cls(ids)

    def encode(self, version: str) -> bytes:
        check_version(version)
        what = f"0x{self.MSG_ID:04X}"
        if len(self.ids) > MAX_IDS:
            raise ValueError(f"{what}: {len(self.ids)} ids, at most {MAX_IDS} per message")
        return bytes((len(self.ids),)) + b"".join(put(i, 4, "id", what) for i in self.ids)
