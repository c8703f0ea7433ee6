"""0x9202 remote playback control (JT/T 1078-2016 table 25).

| field | wire |
|---|---|
| channel | BYTE |
| control | BYTE: 0 start / resume, 1 pause, 2 end, 3 fast forward, 4 key frames backwards, 5 seek, 6 key frames forward |
| speed | BYTE (controls 3, 4): 0 none, 1 x1, 2 x2, 3 x4, 4 x8, 5 x16 |
| seek_to | BCD[6] (control 5, GMT+8); all zeros otherwise (``None``) |

The terminal answers 0x0001."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body

CONTROL_PLAY, CONTROL_PAUSE, CONTROL_END, CONTROL_FAST_FORWARD, CONTROL_KEY_BACKWARD, CONTROL_SEEK, \
    CONTROL_KEY_FORWARD = range(7)


@register_body
@dataclass(frozen=True)
class PlaybackControl(Declared):
    MSG_ID: ClassVar[int] = 0x9202
    LAYOUT: ClassVar[Layout] = Layout("0x9202", "channel:u8 control:u8 speed:u8 seek_to:opt_time")
    channel: int
    control: int
    speed: int = 0
    seek_to: datetime | None = None
