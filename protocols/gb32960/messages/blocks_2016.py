"""Real-time information blocks 0x01 ... 0x09 of GB/T 32960.3-2016 §7.2.3 (tables 9-20), big-endian.

Wire units are converted here, once (speed 0.1 km/h, mileage 0.1 km, voltage 0.1 V, current 0.1 A with
offset -1000 A, cell voltage 1 mV, temperatures offset -40 °C, ...); abnormal / invalid raw values stay
``Special`` states. The 2025 edition's blocks are in blocks_2025.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import IntFlag
from typing import Self

from protocols.gb32960.header import Protocol
from protocols.gb32960.messages._blocks import FixedBlock, register_block
from protocols.gb32960.values import (
    Field,
    Reading,
    Special,
    read_fields,
    read_list,
    read_uint,
    write_fields,
    write_list,
)

P16 = Protocol.GB32960_2016
F = Field


@register_block(P16)
@dataclass(frozen=True, slots=True)
class VehicleData(FixedBlock):
    """0x01 whole vehicle (table 9). ``status`` 1 started / 2 off / 3 other; ``charging`` 1 parked
    charging / 2 driving charging / 3 not charging / 4 charged; ``gear`` is the bit field of table 10."""

    INFO_TYPE = 0x01
    FIELDS = (F("status", 1), F("charging", 1), F("run_mode", 1), F("speed_kmh", 2, 0.1), F("mileage_km", 4, 0.1),
              F("total_voltage_v", 2, 0.1), F("total_current_a", 2, 0.1, -1000), F("soc_pct", 1), F("dcdc", 1),
              F("gear", 1, special=False), F("insulation_kohm", 2), F("accelerator_pct", 1), F("brake_pct", 1))
    status: Reading
    charging: Reading
    run_mode: Reading
    speed_kmh: Reading
    mileage_km: Reading
    total_voltage_v: Reading
    total_current_a: Reading
    soc_pct: Reading
    dcdc: Reading
    gear: int
    insulation_kohm: Reading
    accelerator_pct: Reading
    brake_pct: Reading


MOTOR_FIELDS_2016 = (F("number", 1, special=False), F("status", 1), F("controller_temp_c", 1, offset=-40),
                     F("speed_rpm", 2, offset=-20000), F("torque_nm", 2, 0.1, -2000), F("temp_c", 1, offset=-40),
                     F("controller_voltage_v", 2, 0.1), F("dc_current_a", 2, 0.1, -1000))


@dataclass(frozen=True, slots=True)
class Motor:
    number: int
    status: Reading
    controller_temp_c: Reading
    speed_rpm: Reading
    torque_nm: Reading
    temp_c: Reading
    controller_voltage_v: Reading | None = None  # not in the 2025 reading
    dc_current_a: Reading | None = None


@register_block(P16)
@dataclass(frozen=True, slots=True)
class Motors:
    """0x02 drive motors (table 11-12): a count, then 12 bytes per motor."""

    INFO_TYPE = 0x02
    FIELDS = MOTOR_FIELDS_2016
    motors: tuple[Motor, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "motor count")
        motors = []
        for i in range(count):
            values, at = read_fields(cls.FIELDS, data, at, f"motor {i + 1} of {count}")
            motors.append(Motor(*values))  # type: ignore[arg-type]
        return cls(tuple(motors)), at

    def encode(self) -> bytes:
        out = bytes((len(self.motors),))
        for motor in self.motors:
            out += write_fields(self.FIELDS, [getattr(motor, f.name) for f in self.FIELDS])
        return out


_ALARM_LEVEL = (F("max_level", 1),)  # one field read and written as a field list
_FUEL_HEAD = (F("voltage_v", 2, 0.1), F("current_a", 2, 0.1), F("h2_consumption_kg_per_100km", 2, 0.01))
_FUEL_TAIL = (F("max_h2_temp_c", 2, 0.1, -40), F("max_h2_temp_probe", 1), F("max_h2_concentration_ppm", 2),
              F("max_h2_concentration_sensor", 1), F("max_h2_pressure_mpa", 2, 0.1), F("max_h2_pressure_sensor", 1),
              F("dcdc", 1))
_PROBE_TEMP = F("temp_c", 1, offset=-40)


@register_block(P16)
@dataclass(frozen=True, slots=True)
class FuelCell:
    """0x03 fuel cell (table 13): voltage, current, H2 consumption, probe temperatures, H2 extremes."""

    INFO_TYPE = 0x03
    voltage_v: Reading
    current_a: Reading
    h2_consumption_kg_per_100km: Reading
    probe_temps_c: tuple[Reading, ...]
    max_h2_temp_c: Reading
    max_h2_temp_probe: Reading
    max_h2_concentration_ppm: Reading
    max_h2_concentration_sensor: Reading
    max_h2_pressure_mpa: Reading
    max_h2_pressure_sensor: Reading
    dcdc: Reading

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        head, at = read_fields(_FUEL_HEAD, data, at, "fuel cell")
        count, at = read_uint(data, at, 2, "fuel cell probe count")
        temps, at = read_list(_PROBE_TEMP, count, data, at, f"{count} fuel cell probe temperatures")
        tail, at = read_fields(_FUEL_TAIL, data, at, "fuel cell hydrogen extremes")
        return cls(*head, temps, *tail), at  # type: ignore[call-arg, arg-type]

    def encode(self) -> bytes:
        head = write_fields(_FUEL_HEAD, [getattr(self, f.name) for f in _FUEL_HEAD])
        temps = write_list(_PROBE_TEMP, self.probe_temps_c)
        tail = write_fields(_FUEL_TAIL, [getattr(self, f.name) for f in _FUEL_TAIL])
        return head + len(self.probe_temps_c).to_bytes(2, "big") + temps + tail


@register_block(P16)
@dataclass(frozen=True, slots=True)
class Engine(FixedBlock):
    """0x04 engine (table 14): status 1 on / 2 off, crankshaft speed, fuel consumption."""

    INFO_TYPE = 0x04
    FIELDS = (F("status", 1), F("crankshaft_rpm", 2), F("fuel_l_per_100km", 2, 0.01))
    status: Reading
    crankshaft_rpm: Reading
    fuel_l_per_100km: Reading


class SignedCoordinates:
    """Position status bits (table 16): bit 0 set = no valid fix, bit 1 south, bit 2 west; the
    coordinates on the wire are unsigned 1e-6 degree. ``lat`` / ``lng`` are the signed degrees."""

    status: int
    longitude_deg: Reading
    latitude_deg: Reading

    @property
    def fix_valid(self) -> bool:
        return not self.status & 0x01

    @property
    def lat(self) -> float | None:
        if isinstance(self.latitude_deg, Special):
            return None
        return -self.latitude_deg if self.status & 0x02 else float(self.latitude_deg)

    @property
    def lng(self) -> float | None:
        if isinstance(self.longitude_deg, Special):
            return None
        return -self.longitude_deg if self.status & 0x04 else float(self.longitude_deg)


@register_block(P16)
@dataclass(frozen=True, slots=True)
class Position(FixedBlock, SignedCoordinates):
    """0x05 position (table 15): status, longitude, latitude."""

    INFO_TYPE = 0x05
    FIELDS = (F("status", 1, special=False), F("longitude_deg", 4, 0.000001), F("latitude_deg", 4, 0.000001))
    status: int
    longitude_deg: Reading
    latitude_deg: Reading


@register_block(P16)
@dataclass(frozen=True, slots=True)
class Extremes(FixedBlock):
    """0x06 extreme values (table 17), in the standard's order: subsystem, then cell / probe, then value
    (one public library reads the temperature part probe-first; we follow the standard)."""

    INFO_TYPE = 0x06
    FIELDS = (F("max_voltage_subsystem", 1), F("max_voltage_cell", 1), F("max_cell_voltage_v", 2, 0.001),
              F("min_voltage_subsystem", 1), F("min_voltage_cell", 1), F("min_cell_voltage_v", 2, 0.001),
              F("max_temp_subsystem", 1), F("max_temp_probe", 1), F("max_temp_c", 1, offset=-40),
              F("min_temp_subsystem", 1), F("min_temp_probe", 1), F("min_temp_c", 1, offset=-40))
    max_voltage_subsystem: Reading
    max_voltage_cell: Reading
    max_cell_voltage_v: Reading
    min_voltage_subsystem: Reading
    min_voltage_cell: Reading
    min_cell_voltage_v: Reading
    max_temp_subsystem: Reading
    max_temp_probe: Reading
    max_temp_c: Reading
    min_temp_subsystem: Reading
    min_temp_probe: Reading
    min_temp_c: Reading


class GeneralAlarm(IntFlag):
    """General alarm flags of 0x07 (table 19), bits 0-18; bits 19-31 are reserved."""

    TEMPERATURE_DIFFERENCE = 1 << 0
    BATTERY_HIGH_TEMPERATURE = 1 << 1
    STORAGE_OVERVOLTAGE = 1 << 2
    STORAGE_UNDERVOLTAGE = 1 << 3
    SOC_LOW = 1 << 4
    CELL_OVERVOLTAGE = 1 << 5
    CELL_UNDERVOLTAGE = 1 << 6
    SOC_HIGH = 1 << 7
    SOC_JUMP = 1 << 8
    STORAGE_MISMATCH = 1 << 9
    CELL_CONSISTENCY = 1 << 10
    INSULATION = 1 << 11
    DCDC_TEMPERATURE = 1 << 12
    BRAKE_SYSTEM = 1 << 13
    DCDC_STATUS = 1 << 14
    MOTOR_CONTROLLER_TEMPERATURE = 1 << 15
    HIGH_VOLTAGE_INTERLOCK = 1 << 16
    MOTOR_TEMPERATURE = 1 << 17
    STORAGE_OVERCHARGE = 1 << 18


FaultCodes = tuple[int, ...] | Special
GENERAL_BITS_2016_MASK = (1 << 19) - 1


@functools.lru_cache(maxsize=1024)
def _general_names(bits: int) -> tuple[str, ...]:
    # looked up once per distinct value: iterating an IntFlag costs as much as decoding the rest of the block, and a
    # fleet's frames carry few distinct combinations (bounded, so a terminal sending every value cannot grow it)
    return tuple(flag.name or "" for flag in GeneralAlarm(bits))


def read_codes(data: bytes, at: int, what: str, width: int = 4) -> tuple[FaultCodes, int]:
    """A fault-code list: a count (0 ... 252; 0xFE abnormal / 0xFF invalid, then no codes follow)."""
    count, at = read_uint(data, at, 1, f"{what} fault count")
    if count >= 0xFE:
        return (Special.ABNORMAL if count == 0xFE else Special.INVALID), at
    codes = []
    for i in range(count):
        code, at = read_uint(data, at, width, f"{what} fault code {i + 1} of {count}")
        codes.append(code)
    return tuple(codes), at


def write_codes(codes: FaultCodes, width: int = 4) -> bytes:
    if isinstance(codes, Special):
        return bytes((0xFE if codes is Special.ABNORMAL else 0xFF,))
    if len(codes) > 252:
        raise ValueError(f"at most 252 fault codes in a list, got {len(codes)}")
    return bytes((len(codes),)) + b"".join(c.to_bytes(width, "big") for c in codes)


@register_block(P16)
@dataclass(frozen=True, slots=True)
class Alarms:
    """0x07 alarms (table 18): highest level (0 none ... 3), general flags, and the fault-code lists of
    the storage, motor, engine and other faults (a count, then 4-byte codes; a list whose count is
    abnormal / invalid is that ``Special`` state)."""

    INFO_TYPE = 0x07
    max_level: Reading
    flags: int
    storage_faults: FaultCodes
    motor_faults: FaultCodes
    engine_faults: FaultCodes
    other_faults: FaultCodes

    @property
    def general(self) -> GeneralAlarm:
        return GeneralAlarm(self.flags & GENERAL_BITS_2016_MASK)

    @property
    def general_names(self) -> tuple[str, ...]:
        """The set general flags' names, lowest bit first (the names of ``general``)."""
        return _general_names(self.flags & GENERAL_BITS_2016_MASK)

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        (level,), at = read_fields(_ALARM_LEVEL, data, at, "alarm level")
        flags, at = read_uint(data, at, 4, "general alarm flags")
        storage, at = read_codes(data, at, "storage")
        motor, at = read_codes(data, at, "motor")
        engine, at = read_codes(data, at, "engine")
        other, at = read_codes(data, at, "other")
        return cls(level, flags, storage, motor, engine, other), at

    def encode(self) -> bytes:
        out = write_fields(_ALARM_LEVEL, [self.max_level]) + self.flags.to_bytes(4, "big")
        for codes in (self.storage_faults, self.motor_faults, self.engine_faults, self.other_faults):
            out += write_codes(codes)
        return out


_PACK_HEAD = (F("number", 1, special=False), F("voltage_v", 2, 0.1), F("current_a", 2, 0.1, -1000),
              F("total_cells", 2, special=False), F("first_cell", 2, special=False))
_CELL_V = F("cell_voltage_v", 2, 0.001)


@dataclass(frozen=True, slots=True)
class PackVoltages:
    """One storage subsystem's cells in this frame: cells ``first_cell`` ... of ``total_cells``."""

    number: int
    voltage_v: Reading
    current_a: Reading
    total_cells: int
    first_cell: int
    cell_voltages_v: tuple[Reading, ...]


@register_block(P16)
@dataclass(frozen=True, slots=True)
class CellVoltages:
    """0x08 storage voltages per cell (table 20-21)."""

    INFO_TYPE = 0x08
    packs: tuple[PackVoltages, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "storage subsystem count")
        packs = []
        for i in range(count):
            head, at = read_fields(_PACK_HEAD, data, at, f"storage subsystem {i + 1} of {count}")
            cells, at = read_uint(data, at, 1, "cells in this frame")
            volts, at = read_list(_CELL_V, cells, data, at, f"{cells} cell voltages")
            packs.append(PackVoltages(*head, volts))  # type: ignore[call-arg, arg-type]
        return cls(tuple(packs)), at

    def encode(self) -> bytes:
        out = bytes((len(self.packs),))
        for p in self.packs:
            out += write_fields(_PACK_HEAD, [p.number, p.voltage_v, p.current_a, p.total_cells, p.first_cell])
            out += bytes((len(p.cell_voltages_v),)) + write_list(_CELL_V, p.cell_voltages_v)
        return out


@dataclass(frozen=True, slots=True)
class PackTemperatures:
    number: int
    probe_temps_c: tuple[Reading, ...]


@register_block(P16)
@dataclass(frozen=True, slots=True)
class ProbeTemperatures:
    """0x09 storage temperatures per probe (table 22-23)."""

    INFO_TYPE = 0x09
    packs: tuple[PackTemperatures, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "storage subsystem count")
        packs = []
        for _ in range(count):
            number, at = read_uint(data, at, 1, "subsystem number")
            probes, at = read_uint(data, at, 2, "probe count")
            temps, at = read_list(_PROBE_TEMP, probes, data, at, f"{probes} probe temperatures")
            packs.append(PackTemperatures(number, temps))
        return cls(tuple(packs)), at

    def encode(self) -> bytes:
        out = bytes((len(self.packs),))
        for p in self.packs:
            n = len(p.probe_temps_c)
            out += bytes((p.number,)) + n.to_bytes(2, "big") + write_list(_PROBE_TEMP, p.probe_temps_c)
        return out
