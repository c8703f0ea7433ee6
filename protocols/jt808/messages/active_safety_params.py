"""The active-safety parameter blocks of the Jiangsu layout (T/JSATL12-2017 §4.2, 苏标): terminal
parameter 0xF364 (ADAS, 56 bytes) and 0xF365 (DSM, 49 bytes), each one value of an 0x8103 / 0x0104
parameter list, read with 0x8106.

A block is declared once as a list of ``BlockField``s (name with its unit, wire width, the range the
standard allows, its default); ``decode`` and ``encode`` follow from the list. Widths and order are
those of the standard's tables; the public implementations agree on them (yezhihao/jt808-server
``ParamADAS`` / ``ParamDSM`` offsets, SmallChi's ``JT808_0x8103_0xF364``; SmallChi's 0xF365 leaves out
the distraction video time and the abnormal-driving speed threshold, so its 47-byte vector is not the
standard's 49 bytes and is refused here).

- A numeric field whose bytes are all 0xFF means "leave this parameter unchanged" (the standard's
  marker): decoded as sent, and accepted by ``encode`` whatever the field's range.
- ``reserved`` fields are bytes, kept as received (zeros when not given).
- The Guangdong layout (粤标) fills the reserved bytes with more alarms; it is not declared here.

Failure modes: ``decode`` raises BodyError when the block is not exactly its size; ``encode`` raises
ValueError naming the field (missing, not an integer, outside its range, reserved bytes of the wrong
length, an unknown field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocols.jt808.errors import BodyError

ADAS_PARAMS_ID = 0xF364
DSM_PARAMS_ID = 0xF365


@dataclass(frozen=True)
class BlockField:
    name: str  # snake case, the unit in the name
    size: int  # bytes on the wire (1 BYTE, 2 WORD, 4 DWORD; any size for reserved bytes)
    min: int = 0
    max: int = 0
    default: int = 0
    unit: str | None = None  # "km/h", "s", "m", "100ms"
    reserved: bool = False
    bits: bool = False  # a bit mask (alarm / event enable)

    @property
    def keep(self) -> int:
        """The all-0xFF value: "leave unchanged" in an 0x8103."""
        return (1 << (8 * self.size)) - 1


def _n(name: str, size: int, low: int, high: int, default: int, unit: str | None = None) -> BlockField:
    return BlockField(name, size, low, high, default, unit)


def _bits(name: str, default: int) -> BlockField:
    return BlockField(name, 4, 0, 0xFFFFFFFF, default, bits=True)


def _reserved(name: str, size: int) -> BlockField:
    return BlockField(name, size, reserved=True)


def _alarm(prefix: str, *, speed: bool = True, photo_interval_max: int = 10, photo_min: int = 0) -> list[BlockField]:
    """One alarm's graded speed threshold, video length around it, photo count and photo interval."""
    out = [_n(f"{prefix}_speed_threshold_kmh", 1, 0, 220, 50, "km/h")] if speed else []
    return out + [
        _n(f"{prefix}_video_s", 1, 0, 60, 5, "s"),
        _n(f"{prefix}_photo_count", 1, photo_min, 10, 3),
        _n(f"{prefix}_photo_interval_100ms", 1, 1, photo_interval_max, 2, "100ms"),
    ]


def _common(timed_min: int, timed_default: int, photo_interval_max: int, strategy_max: int) -> list[BlockField]:
    """The head both blocks share (bytes 0-18)."""
    return [
        _n("alarm_speed_threshold_kmh", 1, 0, 60, 30, "km/h"),
        _n("alarm_volume", 1, 0, 8, 6),
        # ADAS: 0 off, 1 timed, 2 by distance, 3 reserved; DSM adds 3 on driver card insertion
        _n("photo_strategy", 1, 0, strategy_max, 0),
        _n("timed_photo_interval_s", 2, timed_min, 60000 if timed_min else 3600, timed_default, "s"),
        _n("distance_photo_interval_m", 2, 0, 60000, 200, "m"),
        _n("photo_count", 1, 1, 10, 3),
        _n("photo_interval_100ms", 1, 1, photo_interval_max, 2, "100ms"),
        # 1 352x288, 2 704x288, 3 704x576, 4 640x480, 5 1280x720, 6 1920x1080
        _n("photo_resolution", 1, 1, 6, 1),
        # 1 CIF, 2 HD1, 3 D1, 4 WD1, 5 VGA, 6 720P, 7 1080P
        _n("video_resolution", 1, 1, 7, 1),
    ]


@dataclass(frozen=True)
class ParamBlock:
    param_id: int
    name: str
    fields: tuple[BlockField, ...]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.fields)

    def field(self, name: str) -> BlockField:
        for candidate in self.fields:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def defaults(self) -> dict[str, int | bytes]:
        return {f.name: bytes(f.size) if f.reserved else f.default for f in self.fields}

    def decode(self, raw: bytes) -> dict[str, int | bytes]:
        """The block's bytes (one parameter's value) -> field values. Raises BodyError unless the
        block is exactly ``size`` bytes."""
        if len(raw) != self.size:
            raise BodyError(f"parameter 0x{self.param_id:04X} ({self.name}) is {self.size} bytes, got {len(raw)}")
        out: dict[str, int | bytes] = {}
        at = 0
        for f in self.fields:
            chunk = raw[at:at + f.size]
            out[f.name] = bytes(chunk) if f.reserved else int.from_bytes(chunk, "big")
            at += f.size
        return out

    def encode(self, values: Mapping[str, Any]) -> bytes:
        """Field values -> the block's bytes. Every numeric field is required; reserved fields default
        to zeros. Raises ValueError naming the field."""
        unknown = sorted(set(values) - {f.name for f in self.fields})
        if unknown:
            raise ValueError(f"{self.name}: unknown field {unknown[0]}")
        out = bytearray()
        for f in self.fields:
            value = values.get(f.name)
            if f.reserved:
                data = bytes(f.size) if value is None else value
                if not isinstance(data, bytes | bytearray) or len(data) != f.size:
                    raise ValueError(f"{self.name}.{f.name} is {f.size} reserved bytes")
                out += data
                continue
            if value is None:
                raise ValueError(f"{self.name}.{f.name} is required")
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{self.name}.{f.name} must be an integer, got {str(value)[:20]!r}")
            if not (f.min <= value <= f.max or value == f.keep):
                unit = f" {f.unit}" if f.unit else ""
                raise ValueError(f"{self.name}.{f.name} must be {f.min} to {f.max}{unit}, got {value}")
            out += value.to_bytes(f.size, "big")
        return bytes(out)


# T/JSATL12-2017 §4.2 table "ADAS parameters" (0xF364), 56 bytes.
ADAS_PARAMS = ParamBlock(ADAS_PARAMS_ID, "adas_params", (
    *_common(0, 60, 10, 3),
    # bits 0/1 obstacle level 1/2, 2/3 frequent lane change, 4/5 lane departure, 6/7 forward collision,
    # 8/9 pedestrian collision, 10/11 headway, 16 road sign over limit
    _bits("alarm_enable", 0x00010FFF),
    _bits("event_enable", 0x00000003),  # bit 0 road sign recognition, bit 1 active photo
    _reserved("reserved_19", 1),
    _n("obstacle_distance_threshold_100ms", 1, 10, 50, 30, "100ms"),
    *_alarm("obstacle"),
    _n("lane_change_period_s", 1, 30, 120, 60, "s"),
    _n("lane_change_count", 1, 3, 10, 5),
    *_alarm("lane_change"),
    *_alarm("lane_departure"),
    _n("forward_collision_time_threshold_100ms", 1, 10, 50, 27, "100ms"),
    *_alarm("forward_collision"),
    _n("pedestrian_collision_time_threshold_100ms", 1, 10, 50, 30, "100ms"),
    *_alarm("pedestrian_collision"),
    _n("headway_distance_threshold_100ms", 1, 10, 50, 10, "100ms"),
    *_alarm("headway"),
    *_alarm("road_sign", speed=False)[1:],  # road signs: photo count and interval only
    _reserved("reserved_52", 4),
))

# T/JSATL12-2017 §4.2 table "DSM parameters" (0xF365), 49 bytes.
DSM_PARAMS = ParamBlock(DSM_PARAMS_ID, "dsm_params", (
    *_common(60, 3600, 5, 3),
    # bits 0/1 fatigue level 1/2, 2/3 phone call, 4/5 smoking, 6/7 distraction, 8/9 abnormal driving
    _bits("alarm_enable", 0x000001FF),
    _bits("event_enable", 0x00000003),  # bit 0 driver change, bit 1 active photo
    _n("smoking_check_interval_s", 2, 0, 3600, 180, "s"),
    _n("phone_check_interval_s", 2, 0, 3600, 120, "s"),
    _reserved("reserved_23", 3),
    *_alarm("fatigue", photo_interval_max=5),
    *_alarm("phone", photo_interval_max=5, photo_min=1),
    *_alarm("smoking", photo_interval_max=5, photo_min=1),
    *_alarm("distraction", photo_interval_max=5),
    *_alarm("abnormal_driving", photo_interval_max=5),
    # 0 off, 1 timed, 2 by distance, 3 on card insertion and start of driving
    _n("driver_id_trigger", 1, 0, 3, 0),
    _reserved("reserved_47", 2),
))

BLOCKS: dict[int, ParamBlock] = {block.param_id: block for block in (ADAS_PARAMS, DSM_PARAMS)}
