"""0x9201 remote playback request (JT/T 1078-2016 table 24): the terminal opens a media connection to
the named server and plays back what it recorded between ``start`` and ``end``.

| field | wire |
|---|---|
| server_ip | BYTE length + STRING |
| tcp_port, udp_port | WORD each |
| channel | BYTE |
| media_type | BYTE: 0 audio+video, 1 audio, 2 video, 3 video or audio+video |
| stream_type | BYTE: 0 main or sub, 1 main, 2 sub |
| storage | BYTE: 0 main or backup storage, 1 main, 2 backup |
| playback_mode | BYTE: 0 normal, 1 fast forward, 2 key frames backwards, 3 key frames forward, 4 single frame |
| speed | BYTE (modes 1, 2): 0 none, 1 x1, 2 x2, 3 x4, 4 x8, 5 x16 |
| start, end | BCD[6] each (GMT+8); all zeros: none (``None``) |

The terminal answers 0x1205 (the resources it will play)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body

SPEED_FACTORS = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 16}
MODE_NORMAL, MODE_FAST_FORWARD, MODE_KEY_BACKWARD, MODE_KEY_FORWARD, MODE_SINGLE_FRAME = range(5)


@register_body
@dataclass(frozen=True)
class PlaybackRequest(Declared):
    MSG_ID: ClassVar[int] = 0x9201
    LAYOUT: ClassVar[Layout] = Layout(
        "0x9201", "server_ip:str8 tcp_port:u16 udp_port:u16 channel:u8 media_type:u8 stream_type:u8 "
        "storage:u8 playback_mode:u8 speed:u8 start:opt_time end:opt_time")
    server_ip: str
    tcp_port: int
    udp_port: int
    channel: int
    media_type: int
    stream_type: int
    storage: int
    playback_mode: int
    speed: int
    start: datetime | None
    end: datetime | None
