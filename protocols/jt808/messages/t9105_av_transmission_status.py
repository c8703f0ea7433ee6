"""0x9105 real-time audio/video transmission status notice (JT/T 1078-2016 table 20), sent by the
platform while a channel streams: channel BYTE, packet loss rate BYTE (percent of the last period)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class AvTransmissionStatus(Declared):
    MSG_ID: ClassVar[int] = 0x9105
    LAYOUT: ClassVar[Layout] = Layout("0x9105", "channel:u8 loss_pct:u8")
    channel: int
    loss_pct: int
