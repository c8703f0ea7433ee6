"""Layouts shared by the media messages (0x0800, 0x0801, 0x0802, 0x8802, 0x8803).

media_type: 0 photo, 1 audio, 2 video. media_format: 0 JPEG, 1 TIF, 2 MP3, 3 WAV, 4 WMV.
event_code (platform-spec §9): 0 platform command, 1 timed, 2 robbery alarm, 3 collision/rollover,
4 door open photo, 5 door close photo, 6 door open->closed over 20 km/h, 7 fixed distance, 9 platform
recording, 64.. vendor/regional codes.
"""

from __future__ import annotations

from datetime import datetime

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, utc_to_bcd_time
from protocols.jt808.messages.t0200_location_report import BASIC_SIZE, LocationReport

MEDIA_TYPES = {0: "photo", 1: "audio", 2: "video"}
MEDIA_FORMATS = {0: "jpeg", 1: "tif", 2: "mp3", 3: "wav", 4: "wmv"}
_NO_TIME = bytes(6)


def decode_basic_location(body: bytes, pos: int, name: str) -> LocationReport:
    """The 28-byte 0x0200 basic block at ``body[pos:]`` (no additional items)."""
    block = body[pos : pos + BASIC_SIZE]
    if len(block) < BASIC_SIZE:
        raise BodyError(f"{name} location block needs {BASIC_SIZE} bytes, got {len(block)}")
    return LocationReport.decode(block, "2013")


def encode_basic_location(location: LocationReport) -> bytes:
    """The basic block only: extras of ``location`` are not part of these messages."""
    return location.encode("2013")[:BASIC_SIZE]


def decode_optional_time(raw: bytes) -> datetime | None:
    """BCD[6]; all zeros means "no limit" (None)."""
    return None if raw == _NO_TIME else bcd_time_to_utc(raw)


def encode_optional_time(moment: datetime | None) -> bytes:
    return _NO_TIME if moment is None else utc_to_bcd_time(moment)
