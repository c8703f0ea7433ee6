"""0x1003 the terminal's audio/video attributes (JT/T 1078-2016 table 11), the answer to 0x9003.

| field | wire |
|---|---|
| audio_codec | BYTE, input audio codec (payload type table 12: 6 G.711A, 7 G.711U, 8 G.726, 19 AAC, ...) |
| audio_channels | BYTE |
| audio_sample_rate | BYTE: 0 8 kHz, 1 22.05 kHz, 2 44.1 kHz, 3 48 kHz |
| audio_sample_bits | BYTE: 0 8 bit, 1 16 bit, 2 32 bit |
| audio_frame_length | WORD |
| audio_output | BYTE: 1 the terminal can play audio (two-way talk) |
| video_codec | BYTE (98 H.264, 99 H.265, ...) |
| max_audio_channels, max_video_channels | BYTE each: physical channels |

It carries no reply serial, so it is kept as an uplink and not matched to the 0x9003 that asked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body

SAMPLE_RATES_HZ = {0: 8000, 1: 22050, 2: 44100, 3: 48000}
SAMPLE_BITS = {0: 8, 1: 16, 2: 32}


@register_body
@dataclass(frozen=True)
class AvAttributes(Declared):
    MSG_ID: ClassVar[int] = 0x1003
    LAYOUT: ClassVar[Layout] = Layout(
        "0x1003", "audio_codec:u8 audio_channels:u8 audio_sample_rate:u8 audio_sample_bits:u8 "
        "audio_frame_length:u16 audio_output:u8 video_codec:u8 max_audio_channels:u8 max_video_channels:u8")
    audio_codec: int
    audio_channels: int
    audio_sample_rate: int
    audio_sample_bits: int
    audio_frame_length: int
    audio_output: int
    video_codec: int
    max_audio_channels: int
    max_video_channels: int
