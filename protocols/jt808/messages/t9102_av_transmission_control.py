"""0x9102 audio/video transmission control (JT/T 1078-2016 table 19).

| field | wire |
|---|---|
| channel | BYTE |
| command | BYTE: 0 close the transmission, 1 switch stream type, 2 pause all streams of the channel, 3 resume, 4 close two-way talk |
| close_type | BYTE (command 0): 0 close audio and video, 1 close audio only, 2 close video only |
| stream_type | BYTE (command 1): 0 main, 1 sub |

The terminal answers 0x0001."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body

COMMAND_CLOSE, COMMAND_SWITCH_STREAM, COMMAND_PAUSE, COMMAND_RESUME, COMMAND_CLOSE_TALK = range(5)
CLOSE_ALL, CLOSE_AUDIO, CLOSE_VIDEO = range(3)


@register_body
@dataclass(frozen=True)
class AvTransmissionControl(Declared):
    MSG_ID: ClassVar[int] = 0x9102
    LAYOUT: ClassVar[Layout] = Layout("0x9102", "channel:u8 command:u8 close_type:u8 stream_type:u8")
    channel: int
    command: int
    close_type: int = 0
    stream_type: int = 0
