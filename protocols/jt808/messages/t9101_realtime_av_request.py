"""0x9101 real-time audio/video transmission request (JT/T 1078-2016 table 17): the terminal opens a
media connection to the server named here and streams the channel as JT/T 1078 RTP packets.

| field | wire |
|---|---|
| server_ip | BYTE length + STRING |
| tcp_port, udp_port | WORD each (udp 0: TCP only) |
| channel | BYTE, logical channel (platform-spec §9: 1 front, 2 driver, ... audio 33, 36, 37) |
| data_type | BYTE: 0 audio+video, 1 video, 2 two-way talk, 3 listen, 4 centre broadcast, 5 transparent |
| stream_type | BYTE: 0 main stream, 1 sub stream |

The terminal answers 0x0001."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body

DATA_AV, DATA_VIDEO, DATA_TALK, DATA_LISTEN, DATA_BROADCAST, DATA_TRANSPARENT = range(6)
STREAM_MAIN, STREAM_SUB = 0, 1


@register_body
@dataclass(frozen=True)
class RealtimeAvRequest(Declared):
    MSG_ID: ClassVar[int] = 0x9101
    LAYOUT: ClassVar[Layout] = Layout(
        "0x9101", "server_ip:str8 tcp_port:u16 udp_port:u16 channel:u8 data_type:u8 stream_type:u8")
    server_ip: str
    tcp_port: int
    udp_port: int
    channel: int
    data_type: int
    stream_type: int
