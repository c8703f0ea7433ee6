"""0x9205 query the audio/video resources a terminal recorded (JT/T 1078-2016 table 22).

| field | wire |
|---|---|
| channel | BYTE (0: all channels) |
| start, end | BCD[6] each (GMT+8); all zeros: no limit (``None``) |
| alarm_flags | 64BITS: bits 0-31 the 0x0200 alarm flags, 32-63 the video alarm flags (all 0: any) |
| media_type | BYTE: 0 audio+video, 1 audio, 2 video, 3 video or audio+video |
| stream_type | BYTE: 0 all, 1 main, 2 sub |
| storage | BYTE: 0 all, 1 main, 2 backup |

The terminal answers 0x1205 with the same reply serial."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class QueryAvResources(Declared):
    MSG_ID: ClassVar[int] = 0x9205
    LAYOUT: ClassVar[Layout] = Layout(
        "0x9205", "channel:u8 start:opt_time end:opt_time alarm_flags:u64 media_type:u8 stream_type:u8 storage:u8")
    channel: int
    start: datetime | None
    end: datetime | None
    alarm_flags: int = 0
    media_type: int = 0
    stream_type: int = 0
    storage: int = 0
