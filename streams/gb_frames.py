"""``gb32960.uplink.v1`` records -> what the GB steps store (pure; streams/gb_uplinks.py runs the steps).

``parse_frames(values, limits)`` parses each record once (``fleet.gb32960_records.GbUplink``) and reads its
decoded message (``protocols.gb32960.jsonify.to_json``): a real-time (0x02) or back-filled (0x03) frame of
GB/T 32960 (2016 ``##`` and 2025 ``$$`` blocks) or GB 17691 / HJ 1239 yields a :class:`GbFrame` with

- ``fix``: the position block (32960 0x05, or the 17691 data stream's position) as a ``Fix`` of the one
  position path (gps, device_last, live map), only for a valid fix (status bit 0 clear) with coordinates:
  speed from the whole-vehicle block (17691: the data stream's), mileage likewise, ACC on when the vehicle is
  started (32960 status 1) or its engine turns (17691); the alarm object of the track point (console-spec §3,
  platform-spec §3 "an object of battery, motor, engine and other fault lists") in ``extras["gb_alarm"]``;
- ``state``: the block readings of ``nev_state`` (migration 0049), per block, abnormal / invalid values None;
- ``alarm``: the general alarm flags, level and fault-code lists (32960 0x07; 17691 OBD MIL and fault codes).

Other commands (login, heartbeat, ...) and encrypted data units give a frame without readings. A record that
does not parse is a ``PayloadError`` in its place (dead-lettered by the step that needs it); so is a fix whose
coordinates or speed are out of range (``streams.validation.validate_fix``, the 808 path's rule).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from fleet.alarm_catalog import GB_ALARM_ITEM
from fleet.gb32960_records import GbUplink
from protocols.gb32960.header import Protocol
from protocols.gb32960.messages.blocks_2016 import GENERAL_BITS_2016_MASK
from protocols.gb32960.messages.blocks_2025 import COORDINATES_GCJ02, GENERAL_BITS_2025_MASK, to_wgs84
from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED, Fix, PayloadError, load_json_object, parse_time
from streams.validation import UNPOSITIONED, Limits, time_quality, validate_fix
from warehouse.queries.gb_states import JSON_COLUMNS, STATE_BLOCKS, TEXT_COLUMNS

REALTIME, BACKFILLED = 0x02, 0x03
DATA_COMMANDS = frozenset((REALTIME, BACKFILLED))

# Block type names (jsonify's "type") -> the nev_state block they fill; 2025 names without the suffix.
_BLOCKS = {
    "VehicleData": "vehicle", "Motors": "motors", "FuelCell": "fuel_cell", "Engine": "engine",
    "Position": "position", "Extremes": "extremes", "Alarms": "alarms", "CellVoltages": "cells",
    "ProbeTemperatures": "temps", "PackTemperatures": "temps", "ObdInfo": "obd", "EngineDataStream": "stream",
    "FuelCellStacks": "stacks", "Supercapacitor": "supercap", "SupercapacitorExtremes": "supercap_extremes",
}
# The fault-code lists of 0x07 under the names of the track point's alarm object (platform-spec §3).
FAULT_LISTS = (("battery", "storage_faults"), ("motor", "motor_faults"), ("engine", "engine_faults"),
               ("other", "other_faults"))
# The general alarm flags' bits per framing, as the codec declares them: GB/T 32960.3-2016 table 19 bits 0-18
# (19-31 reserved); the 2025 edition adds 19-27 (blocks_2025.GeneralAlarm2025). A reserved bit a terminal sets is
# no alarm.
_FRAMING_2025 = Protocol.GB32960_2025.value


NO_LEVELS: Mapping[int, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GbAlarm:
    """What a frame says of alarms: the standard's level (0-3, None when abnormal / invalid), the general
    flags, the fault-code lists by name (battery, motor, engine, other; 17691: obd), the OBD MIL."""

    level: int | None
    flags: int
    faults: dict[str, list[int]]
    mil: bool = False
    levels: Mapping[int, int] = field(default_factory=lambda: NO_LEVELS)  # general flag bit -> its own level (2025 edition)


@dataclass(frozen=True, slots=True)
class GbFrame:
    """One parsed record; ``msg_id`` is its header command (streams.pipeline.Step takes frames by it)."""

    uplink: GbUplink
    msg_id: int
    received_at: datetime
    collected_at: datetime | None = None
    fix: Fix | None = None
    state: dict[str, dict[str, Any]] = field(default_factory=dict)  # block -> {column: value}
    alarm: GbAlarm | None = None
    # what the states step takes (ACC, business state): the fix, else, for a frame without a valid position, an
    # unpositioned one at (0, 0) that only the states read (an 808 terminal's "no fix" report)
    state_fix: Fix | None = None

    @property
    def device_id(self) -> int:
        return self.uplink.device_id

    @property
    def enterprise_id(self) -> int:
        return self.uplink.enterprise_id

    @property
    def car_id(self) -> int | None:
        return self.uplink.car_id

    @property
    def backfilled(self) -> bool:
        return self.msg_id == BACKFILLED


def number(value: Any) -> float | int | None:
    """A reading as a number; "abnormal" / "invalid" (and anything else) None."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _codes(value: Any) -> list[int]:
    return [c for c in value if isinstance(c, int)] if isinstance(value, list) else []


def _column(block: str, column: str, source: str, data: dict[str, Any]) -> Any:
    if column in JSON_COLUMNS:
        if not source:  # the whole block (fuel cell, engine)
            return {k: v for k, v in data.items() if k not in ("type", "info_type")}
        value = data.get(source)
        return value if isinstance(value, list) else None
    value = data.get(source)
    if column in TEXT_COLUMNS:
        return value if isinstance(value, str) else None
    return number(value)


def _readings(blocks: list[Any]) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(block -> nev_state columns, block -> the decoded block) of a data unit's blocks (first of a kind)."""
    state: dict[str, dict[str, Any]] = {}
    raw: dict[str, dict[str, Any]] = {}
    for data in blocks:
        if not isinstance(data, dict):
            continue
        name = str(data.get("type", ""))
        block = _BLOCKS.get(name.removesuffix("2025"))
        if block is None or block in state:
            continue
        raw[block] = data
        state[block] = {column: _column(block, column, source, data)
                        for column, source in STATE_BLOCKS[block].items()}
    return state, raw


def _stream_position(data: dict[str, Any]) -> tuple[bool, float | None, float | None]:
    """The 17691 data stream's position (status bit 0 no fix, bit 1 south, bit 2 west)."""
    status = data.get("position_status")
    lat, lng = number(data.get("latitude_deg")), number(data.get("longitude_deg"))
    if not isinstance(status, int) or lat is None or lng is None:
        return False, None, None
    return not status & 1, -lat if status & 2 else float(lat), -lng if status & 4 else float(lng)


def _alarm(raw: dict[str, dict[str, Any]], general_mask: int) -> GbAlarm | None:
    alarms, obd = raw.get("alarms"), raw.get("obd")
    if alarms is not None:
        level = number(alarms.get("max_level"))
        raw_flags = alarms.get("flags")
        flags = raw_flags if isinstance(raw_flags, int) else 0
        faults = {name: _codes(alarms.get(source)) for name, source in FAULT_LISTS}
        listed = alarms.get("general_faults")
        return GbAlarm(int(level) if level is not None else None, flags & general_mask, faults,
                       levels=general_levels(_codes(listed)) if listed else NO_LEVELS)
    if obd is not None:
        return GbAlarm(None, 0, {"obd": _codes(obd.get("fault_codes"))}, mil=obd.get("mil") == 1)
    return None


def general_levels(codes: list[int]) -> Mapping[int, int]:
    """The 2025 edition's general fault list as each general alarm's own level: an entry is two bytes, the
    alarm's number (its bit in the general flags, table 24) then its level (rtm_con's reading of
    GB/T 32960.3-2025 table 23). Numbers beyond the flags' 32 bits are no alarm."""
    return {code >> 8: code & 0xFF for code in codes if code >> 8 < 32}


def alarm_object(alarm: GbAlarm) -> dict[str, Any]:
    """The track point's alarm in object form (platform-spec §3/§9: the 18-bit object-form alarm and the
    battery / motor / engine / other fault lists): ``{alarm, level, battery, motor, engine, other}``."""
    return {"alarm": alarm.flags, "level": alarm.level, **alarm.faults, **({"mil": 1} if alarm.mil else {})}


def _fix(record: GbUplink, at: datetime, received_at: datetime, raw: dict[str, dict[str, Any]],
         alarm: GbAlarm | None) -> tuple[Fix | None, Fix | None]:
    """(the frame's fix, the states' fix): a valid position is both; a frame with a whole-vehicle block (or a
    GB 17691 data stream) but no valid position gives the states an unpositioned fix at (0, 0), which
    ``validate_fix`` names ``unpositioned``, so it is never stored (the 808 path's rule for a "no fix" report)."""
    vehicle, stream = raw.get("vehicle"), raw.get("stream")
    position = raw.get("position")
    if position is not None:
        valid, lat, lng = bool(position.get("fix_valid")), number(position.get("lat")), number(position.get("lng"))
        system = position.get("coordinate_system")  # 2025 only; the track is WGS-84 (docs/architecture.md)
        if system == COORDINATES_GCJ02 and lat is not None and lng is not None:
            lng, lat = to_wgs84(float(lng), float(lat), system)
        moving = vehicle
    elif stream is not None:
        valid, lat, lng = _stream_position(stream)
        moving = stream
    else:
        valid, lat, lng, moving = False, None, None, vehicle
    if moving is None:
        return None, None
    speed = number(moving.get("speed_kmh"))
    mileage = number(moving.get("mileage_km"))
    acc_on = vehicle.get("status") == 1 if vehicle is not None else bool(number(moving.get("engine_speed_rpm")))
    acc = STATUS_ACC_ON if acc_on else 0
    if not valid or lat is None or lng is None:
        return None, Fix(device_id=record.device_id, car_id=record.car_id, enterprise_id=record.enterprise_id,
                         fix_at=at, lat=0.0, lng=0.0, altitude_m=0.0, speed_kmh=float(speed or 0.0),
                         direction_deg=0, alarm_flags=0, status_flags=acc, mileage_km=None, fuel_l=None, extras={},
                         received_at=received_at)
    extras: dict[str, Any] = {"gb_protocol": record.frame_protocol}
    if alarm is not None and (alarm.flags or alarm.mil or any(alarm.faults.values())):
        extras[GB_ALARM_ITEM] = alarm_object(alarm)
    fix = Fix(device_id=record.device_id, car_id=record.car_id, enterprise_id=record.enterprise_id, fix_at=at,
              lat=float(lat), lng=float(lng), altitude_m=0.0, speed_kmh=float(speed or 0.0), direction_deg=0,
              alarm_flags=0, status_flags=STATUS_POSITIONED | acc,
              mileage_km=float(mileage) if mileage is not None else None, fuel_l=None, extras=extras,
              received_at=received_at)
    return fix, fix


def parse_frame(value: Any, limits: Limits) -> GbFrame:
    """One record value (bytes, str or an already parsed object). Raises PayloadError naming what is wrong."""
    obj = value if isinstance(value, dict) else load_json_object(value)
    try:
        record = GbUplink.from_json(obj)
    except ValueError as exc:
        raise PayloadError(str(exc)) from exc
    received_at = parse_time(record.received_at, "received_at")
    if record.command not in DATA_COMMANDS:
        return GbFrame(record, record.command, received_at)
    body = record.message.get("body")
    if not isinstance(body, dict) or "hex" in body:  # encrypted data unit: kept in the message log only
        return GbFrame(record, record.command, received_at)
    blocks = body.get("blocks")
    if not isinstance(blocks, list):
        raise PayloadError("gb32960 uplink: data without blocks")
    collected = body.get("collected_at")
    at = parse_time(collected, "message.body.collected_at") if collected is not None else received_at
    state, raw = _readings(blocks)
    alarm = _alarm(raw, GENERAL_BITS_2025_MASK if record.frame_protocol == _FRAMING_2025 else GENERAL_BITS_2016_MASK)
    if alarm is not None and "alarms" in state:
        state["alarms"]["alarm_flags"] = alarm.flags  # the detail page names what the alarm rows name
    fix, state_fix = _fix(record, at, received_at, raw, alarm)
    position = raw.get("position")
    if fix is not None and position is not None and position.get("coordinate_system") == COORDINATES_GCJ02:
        state["position"] = {**state["position"], "lat": fix.lat, "lng": fix.lng}  # in WGS-84, as the fix
    if fix is not None:
        reason = validate_fix(fix, limits)
        if reason is not None:
            raise PayloadError(f"gb32960 position: {reason}")
        quality = time_quality(fix, limits)
        if quality:
            fix = dataclasses.replace(fix, quality=quality)
        state_fix = fix
    elif state_fix is not None and (validate_fix(state_fix, limits) != UNPOSITIONED or time_quality(state_fix, limits)):
        state_fix = None  # a speed out of range, or dated implausibly: no state from it either
    return GbFrame(record, record.command, received_at, at, fix, state, alarm, state_fix)


def parse_frames(values: Sequence[Any], limits: Limits) -> list[GbFrame | PayloadError]:
    """Each value parsed once, index-aligned; a value that does not parse is its PayloadError."""
    out: list[GbFrame | PayloadError] = []
    for value in values:
        try:
            out.append(parse_frame(value, limits))
        except PayloadError as exc:
            out.append(exc)
    return out
