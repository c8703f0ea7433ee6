"""0x8801 camera shoot command: channel BYTE, command WORD (photos to take; 0 stop, 0xFFFF record
video), interval WORD (s; 0 the shortest), save flag BYTE (1 save, 0 upload now), resolution BYTE
(1 320x240, 2 640x480, 3 800x600, 4 1024x768, 5 176x144, 6 352x288, 7 704x288, 8 704x576),
quality BYTE (1-10, 1 best), brightness, contrast, saturation, chroma BYTE (0-255 each)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

_LAYOUT = struct.Struct(">BHHBBBBBBB")
COMMAND_STOP = 0
COMMAND_RECORD = 0xFFFF
RESOLUTIONS = {
    1: (320, 240),
    2: (640, 480),
    3: (800, 600),
    4: (1024, 768),
    5: (176, 144),
    6: (352, 288),
    7: (704, 288),
    8: (704, 576),
}


@register_body
@dataclass(frozen=True)
class CameraShoot:
    MSG_ID: ClassVar[int] = 0x8801
    channel: int
    command: int
    interval_s: int
    save_flag: int
    resolution: int
    quality: int
    brightness: int
    contrast: int
    saturation: int
    chroma: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> CameraShoot:
        if len(body) < _LAYOUT.size:
            raise BodyError(f"0x8801 needs {_LAYOUT.size} bytes, got {len(body)}")
        return cls(*_LAYOUT.unpack_from(body))

    def encode(self, version: str) -> bytes:
        return _LAYOUT.pack(
            self.channel,
            self.command,
            self.interval_s,
            self.save_flag,
            self.resolution,
            self.quality,
            self.brightness,
            self.contrast,
            self.saturation,
            self.chroma,
        )
