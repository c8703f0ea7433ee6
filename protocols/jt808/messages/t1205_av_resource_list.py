"""0x1205 the terminal's audio/video resource list (JT/T 1078-2016 tables 23, 24), the answer to 0x9205
(and 0x9201): reply serial WORD, count DWORD, then per resource 28 bytes:

| field | wire |
|---|---|
| channel | BYTE |
| start, end | BCD[6] each (GMT+8) |
| alarm_flags | 64BITS |
| media_type | BYTE: 0 audio+video, 1 audio, 2 video |
| stream_type | BYTE: 1 main, 2 sub |
| storage | BYTE: 1 main, 2 backup |
| size_bytes | DWORD |

Long lists arrive as sub-packages (vectors SUB-2a/b: 35 resources in two packages)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.messages._layout import Layout
from protocols.jt808.registry import register_body

_HEAD = Layout("0x1205", "reply_seq:u16 count:u32")
_ITEM = Layout("0x1205 resource", "channel:u8 start:opt_time end:opt_time alarm_flags:u64 media_type:u8 "
               "stream_type:u8 storage:u8 size_bytes:u32")
ITEM_SIZE = 28


@dataclass(frozen=True)
class AvResource:
    channel: int
    start: datetime | None
    end: datetime | None
    alarm_flags: int
    media_type: int
    stream_type: int
    storage: int
    size_bytes: int


@register_body
@dataclass(frozen=True)
class AvResourceList:
    MSG_ID: ClassVar[int] = 0x1205
    reply_seq: int
    items: tuple[AvResource, ...]

    @classmethod
    def decode(cls, body: bytes, version: str) -> AvResourceList:
        """Raises BodyError when the body holds fewer resources than its count says."""
        head, at = _HEAD.decode(body)
        count = head["count"]
        if len(body) - at < count * ITEM_SIZE:
            raise BodyError(f"0x1205 announces {count} resources, body holds {(len(body) - at) // ITEM_SIZE}")
        items = []
        for _ in range(count):
            values, at = _ITEM.decode(body, at)
            items.append(AvResource(**values))
        return cls(head["reply_seq"], tuple(items))

    def encode(self, version: str) -> bytes:
        out = bytearray(_HEAD.encode({"reply_seq": self.reply_seq, "count": len(self.items)}))
        for item in self.items:
            out += _ITEM.encode(item.__dict__)
        return bytes(out)
