"""Vehicle positions in JT/T 809: the 2011 GNSS record and the 2019 position (a JT/T 808 0x0200 body
with the platforms' alarm flags).

2011 (§5.3.3.2.2, 36 bytes): ENCRYPT BYTE, DATE day/month/year(UINT16), TIME h/m/s, LON and LAT UINT32
(1e-6 degree), VEC1 satellite speed and VEC2 recorder speed UINT16 (km/h), VEC3 mileage UINT32 (km),
DIRECTION UINT16, ALTITUDE UINT16 (m), STATE and ALARM UINT32 (the JT/T 808 bits). The date and time are
Beijing time; they become an aware UTC datetime here.
2019 (§5.3.3.2.2): ENCRYPT BYTE, GNSS_DATA_LENGTH UINT32, GNSS_DATA (a JT/T 808-2019 0x0200 body), then
three times PLATFORM_ID BYTE[11] + ALARM UINT32 (the monitoring platforms and their alarm flags).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime

from protocols.china_time import CHINA_TZ
from protocols.jt808.errors import JT808Error
from protocols.jt808.messages import LocationReport
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import PLATFORM_ID_BYTES, decode_id, encode_id, exact, need

_GNSS_2011 = struct.Struct(">BBBHBBBIIHHIHHII")
GNSS_2011_BYTES = _GNSS_2011.size  # 36
_PLATFORM = struct.Struct(f">{PLATFORM_ID_BYTES}sI")
PLATFORMS = 3


@dataclass(frozen=True)
class Gnss2011:
    """One 2011 position record. ``lng_e6`` / ``lat_e6`` are the wire's millionths of a degree."""

    fix_at: datetime
    lng_e6: int
    lat_e6: int
    speed_kmh: int = 0
    recorder_speed_kmh: int = 0
    mileage_km: int = 0
    direction_deg: int = 0
    altitude_m: int = 0
    state: int = 0
    alarm: int = 0
    encrypted: bool = False

    @property
    def lat(self) -> float:
        return self.lat_e6 / 1e6

    @property
    def lng(self) -> float:
        return self.lng_e6 / 1e6

    @classmethod
    def decode(cls, raw: bytes) -> Gnss2011:
        exact(raw, GNSS_2011_BYTES, "2011 GNSS record")
        (enc, day, month, year, hour, minute, second, lng, lat, vec1, vec2, vec3, direction, altitude, state,
         alarm) = _GNSS_2011.unpack(raw)
        try:
            local = datetime(year, month, day, hour, minute, second, tzinfo=CHINA_TZ)
        except ValueError:
            raise BodyError(f"invalid GNSS date/time {raw[1:8].hex()}") from None
        return cls(local.astimezone(UTC), lng, lat, vec1, vec2, vec3, direction, altitude, state, alarm, bool(enc))

    def encode(self) -> bytes:
        if self.fix_at.tzinfo is None:
            raise ValueError("fix times must be timezone-aware (UTC)")
        t = self.fix_at.astimezone(CHINA_TZ)
        return _GNSS_2011.pack(int(self.encrypted), t.day, t.month, t.year, t.hour, t.minute, t.second,
                               self.lng_e6, self.lat_e6, self.speed_kmh, self.recorder_speed_kmh, self.mileage_km,
                               self.direction_deg, self.altitude_m, self.state, self.alarm)


@dataclass(frozen=True)
class PlatformAlarm:
    """A monitoring platform's id (11 bytes; empty when unused) and the alarm flags it raised."""

    platform_id: str = ""
    alarm: int = 0


@dataclass(frozen=True)
class Gnss2019:
    """A 2019 position. ``gnss_data`` is kept as sent; ``location`` is it decoded as a JT/T 808-2019
    0x0200 body, or None when it is not one (public real captures carry a 2011-style record or a stray
    trailing byte there: the frame is kept, the position is not guessed)."""

    gnss_data: bytes
    platforms: tuple[PlatformAlarm, ...] = field(default=(PlatformAlarm(),) * PLATFORMS)
    encrypted: bool = False
    location: LocationReport | None = field(default=None, compare=False)

    @classmethod
    def decode_from(cls, body: bytes, offset: int) -> tuple[Gnss2019, int]:
        """Decode the record at ``offset``; return it and the offset after it."""
        need(body[offset:], 5, "2019 position")
        enc = body[offset]
        length = int.from_bytes(body[offset + 1 : offset + 5], "big")
        start = offset + 5
        need(body[start:], length + PLATFORMS * _PLATFORM.size, f"2019 position with GNSS_DATA of {length} bytes")
        gnss = bytes(body[start : start + length])
        pos = start + length
        platforms = []
        for _ in range(PLATFORMS):
            raw_id, alarm = _PLATFORM.unpack_from(body, pos)
            platforms.append(PlatformAlarm(decode_id(raw_id), alarm))
            pos += _PLATFORM.size
        return cls(gnss, tuple(platforms), bool(enc), _location(gnss)), pos

    def encode(self) -> bytes:
        if len(self.platforms) != PLATFORMS:
            raise ValueError(f"a 2019 position carries exactly {PLATFORMS} platform alarm slots")
        out = struct.pack(">BI", int(self.encrypted), len(self.gnss_data)) + self.gnss_data
        return out + b"".join(encode_id(p.platform_id) + struct.pack(">I", p.alarm) for p in self.platforms)

    @classmethod
    def from_location(cls, location: LocationReport, platforms: tuple[PlatformAlarm, ...] = (PlatformAlarm(),) * 3,
                      encrypted: bool = False) -> Gnss2019:
        """Build the position from a JT/T 808 location (encoded as a 2019 0x0200 body)."""
        return cls(location.encode("2019"), platforms, encrypted, location)


def _location(gnss: bytes) -> LocationReport | None:
    try:
        return LocationReport.decode(gnss, "2019")
    except (JT808Error, ValueError):
        return None
