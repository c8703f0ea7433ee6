"""GB/T 32960.3-2025 real-time blocks, as one public implementation reads them.

We did not read the 2025 text. The only public implementation (baichangda/MyFramework, its ``v2025``
model) gives these layouts, and its public ``$$`` sample decodes with them to the last byte and
re-encodes byte for byte: 0x01 whole vehicle without accelerator / brake (18 bytes), 0x02 motors of
10 bytes (speed offset -32000 rpm, torque 4 bytes at 0.1 N·m offset -20000 N·m, no voltage / current),
0x03 fuel-cell engine and hydrogen system, 0x04 engine (crankshaft speed only), 0x05 position with a
coordinate-system byte, 0x06 alarms with a general fault list, 0x07 minimum parallel-unit voltages,
0x08 probe temperatures, 0x30 fuel-cell stacks, 0x31 supercapacitor, 0x32 supercapacitor extremes,
0xFF signature. Field names and units follow that reading until someone checks them against the text.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import IntFlag
from typing import Self

from protocols.gb32960.header import Protocol
from protocols.gb32960.messages._blocks import FixedBlock, register_block
from protocols.gb32960.messages.blocks_2016 import (
    GENERAL_BITS_2016_MASK,
    Alarms,
    FaultCodes,
    Motor,
    ProbeTemperatures,
    SignedCoordinates,
    _general_names,
    read_codes,
    write_codes,
)
from protocols.gb32960.values import (
    Field,
    Reading,
    need,
    read_fields,
    read_list,
    read_uint,
    write_fields,
    write_list,
)

F = Field
MOTOR_FIELDS_2025 = (F("number", 1, special=False), F("status", 1), F("controller_temp_c", 1, offset=-40),
                     F("speed_rpm", 2, offset=-32000), F("torque_nm", 4, 0.1, -20000), F("temp_c", 1, offset=-40))


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class VehicleData2025(FixedBlock):
    """0x01 whole vehicle in the 2025 reading: the 2016 fields up to insulation (no accelerator, brake), the total
    current with an offset of -3000 A (2016: -1000), as the 2025 edition's battery currents. A second public
    implementation (rtm_con, naming the 2025 edition's table 10) reads it so, and the first one's own sample,
    built with a current of 0.01 A, carries the raw 30000, which is 0 A with it and 2,000 A with the 2016 offset."""

    INFO_TYPE = 0x01
    FIELDS = (F("status", 1), F("charging", 1), F("run_mode", 1), F("speed_kmh", 2, 0.1), F("mileage_km", 4, 0.1),
              F("total_voltage_v", 2, 0.1), F("total_current_a", 2, 0.1, -3000), F("soc_pct", 1), F("dcdc", 1),
              F("gear", 1, special=False), F("insulation_kohm", 2))
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


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Motors2025:
    """0x02 drive motors in the 2025 reading: a count, then 10 bytes per motor."""

    INFO_TYPE = 0x02
    motors: tuple[Motor, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "motor count")
        motors = []
        for i in range(count):
            values, at = read_fields(MOTOR_FIELDS_2025, data, at, f"motor {i + 1} of {count}")
            motors.append(Motor(*values))  # type: ignore[arg-type]
        return cls(tuple(motors)), at

    def encode(self) -> bytes:
        out = bytes((len(self.motors),))
        for motor in self.motors:
            out += write_fields(MOTOR_FIELDS_2025, [getattr(motor, f.name) for f in MOTOR_FIELDS_2025])
        return out


_FUEL_2025 = (F("max_h2_temp_c", 2, offset=-40), F("max_h2_temp_probe", 1), F("max_h2_concentration", 2, 0.0001),
              F("max_h2_concentration_sensor", 1), F("max_h2_pressure_mpa", 2, 0.1), F("max_h2_pressure_sensor", 1),
              F("dcdc", 1), F("h2_remaining_pct", 1), F("dcdc_controller_temp_c", 1, offset=-40))


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class FuelCell2025(FixedBlock):
    """0x03 fuel-cell engine and hydrogen system (12 bytes): hydrogen extremes, DC-DC, remaining
    hydrogen. ``max_h2_concentration`` is the raw / 10000 the source reads; it states no unit."""

    INFO_TYPE = 0x03
    FIELDS = _FUEL_2025
    max_h2_temp_c: Reading
    max_h2_temp_probe: Reading
    max_h2_concentration: Reading
    max_h2_concentration_sensor: Reading
    max_h2_pressure_mpa: Reading
    max_h2_pressure_sensor: Reading
    dcdc: Reading
    h2_remaining_pct: Reading
    dcdc_controller_temp_c: Reading


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Engine2025(FixedBlock):
    """0x04 engine: crankshaft speed only."""

    INFO_TYPE = 0x04
    FIELDS = (F("crankshaft_rpm", 2),)
    crankshaft_rpm: Reading


COORDINATES_WGS84, COORDINATES_GCJ02 = 1, 2  # the 2025 position's coordinate-system byte; 3: another system


def to_wgs84(lng: float, lat: float, coordinate_system: int) -> tuple[float, float]:
    """A 2025 position in WGS-84, the system the platform keeps (as 2016 terminals and JT/T 808 ones send it):
    GCJ-02 converted by GeoToolCN's inverse (metres off, far below a fix's own error); WGS-84 and any other
    system as they are (BeiDou's CGCS2000 is centimetres from WGS-84). GeoToolCN is imported on the first GCJ-02
    position only: the gateway and the codec's other users never pay for it."""
    if coordinate_system != COORDINATES_GCJ02:
        return lng, lat
    from GeoToolCN.coords import gcj02_to_wgs84

    return gcj02_to_wgs84(lng, lat)


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Position2025(FixedBlock, SignedCoordinates):
    """0x05 position with a coordinate-system byte after the status (1 WGS-84, 2 GCJ-02, 3 another system, as
    rtm_con reads the 2025 edition's table 22)."""

    INFO_TYPE = 0x05
    FIELDS = (F("status", 1, special=False), F("coordinate_system", 1, special=False),
              F("longitude_deg", 4, 0.000001), F("latitude_deg", 4, 0.000001))
    status: int
    coordinate_system: int
    longitude_deg: Reading
    latitude_deg: Reading


class GeneralAlarm2025(IntFlag):
    """The general alarm flags the 2025 edition adds to 2016's bits 0-18 (as rtm_con reads its table 24): bits
    19-27; 28-31 reserved. Bit 23 is the battery's thermal event, the alarm a new-energy fleet fears most."""

    MOTOR_OVERSPEED = 1 << 19
    MOTOR_OVERCURRENT = 1 << 20
    SUPERCAPACITOR_HIGH_TEMPERATURE = 1 << 21
    SUPERCAPACITOR_OVERVOLTAGE = 1 << 22
    BATTERY_THERMAL_EVENT = 1 << 23
    HYDROGEN_LEAK = 1 << 24
    HYDROGEN_PRESSURE = 1 << 25
    HYDROGEN_TEMPERATURE = 1 << 26
    STACK_HIGH_TEMPERATURE = 1 << 27


GENERAL_BITS_2025 = 28  # bits 0-27 carry alarms in the 2025 edition (2016: 0-18)
GENERAL_BITS_2025_MASK = (1 << GENERAL_BITS_2025) - 1


@functools.lru_cache(maxsize=1024)
def _general_names_2025(bits: int) -> tuple[str, ...]:
    # once per distinct value, bounded, as the 2016 names (blocks_2016._general_names)
    added = bits & GENERAL_BITS_2025_MASK & ~GENERAL_BITS_2016_MASK
    return _general_names(bits & GENERAL_BITS_2016_MASK) + tuple(flag.name or "" for flag in GeneralAlarm2025(added))


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Alarms2025(Alarms):
    """0x06 alarms: the 2016 content, the general flags of bits 0-27 (``general_names``), plus the general fault
    list, kept as 2-byte codes: each is a general alarm's number (high byte) and that alarm's own level (low
    byte), as rtm_con reads the edition's table 23 (the alarm steps use it, streams/gb_frames.general_levels)."""

    INFO_TYPE = 0x06
    general_faults: FaultCodes = ()

    @property
    def general_names(self) -> tuple[str, ...]:
        """The set general flags' names, lowest bit first: 2016's names, then the 2025 edition's."""
        return _general_names_2025(self.flags)

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        base, at = Alarms.decode(data, at)
        general, at = read_codes(data, at, "general", width=2)
        return cls(base.max_level, base.flags, base.storage_faults, base.motor_faults, base.engine_faults,
                   base.other_faults, general), at

    def encode(self) -> bytes:
        return Alarms.encode(self) + write_codes(self.general_faults, width=2)


_PARALLEL_HEAD = (F("number", 1), F("voltage_v", 2, 0.1), F("current_a", 2, 0.1, -3000))
_UNIT_V = F("unit_voltage_v", 2, 0.001)


@dataclass(frozen=True, slots=True)
class PackUnitVoltages:
    number: Reading
    voltage_v: Reading
    current_a: Reading
    unit_voltages_v: tuple[Reading, ...]


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class MinUnitVoltages:
    """0x07 minimum parallel-unit voltages per battery pack (replaces 2016's per-cell 0x08): pack
    number, voltage, current (0.1 A, offset -3000 A), a count, then the units' voltages (1 mV)."""

    INFO_TYPE = 0x07
    packs: tuple[PackUnitVoltages, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "battery pack count")
        packs = []
        for i in range(count):
            head, at = read_fields(_PARALLEL_HEAD, data, at, f"battery pack {i + 1} of {count}")
            units, at = read_uint(data, at, 2, "parallel unit count")
            volts, at = read_list(_UNIT_V, units, data, at, f"{units} parallel unit voltages")
            packs.append(PackUnitVoltages(*head, volts))  # type: ignore[call-arg, arg-type]
        return cls(tuple(packs)), at

    def encode(self) -> bytes:
        out = bytes((len(self.packs),))
        for p in self.packs:
            n = len(p.unit_voltages_v)
            out += write_fields(_PARALLEL_HEAD, [p.number, p.voltage_v, p.current_a]) + n.to_bytes(2, "big")
            out += write_list(_UNIT_V, p.unit_voltages_v)
        return out


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class PackTemperatures2025(ProbeTemperatures):
    """0x08 battery temperatures per probe: the 2016 0x09 layout under a new type."""

    INFO_TYPE = 0x08


_STACK_HEAD = (F("number", 1), F("voltage_v", 2, 0.1), F("current_a", 2, 0.1),
               F("h2_inlet_pressure_kpa", 2, 0.1, -100), F("air_inlet_pressure_kpa", 2, 0.1, -100),
               F("air_inlet_temp_c", 1, offset=-40))
_TEMP = F("temp_c", 1, offset=-40)


@dataclass(frozen=True, slots=True)
class Stack:
    number: Reading
    voltage_v: Reading
    current_a: Reading
    h2_inlet_pressure_kpa: Reading
    air_inlet_pressure_kpa: Reading
    air_inlet_temp_c: Reading
    coolant_outlet_temps_c: tuple[Reading, ...]


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class FuelCellStacks:
    """0x30 fuel-cell stacks: per stack voltage, current, hydrogen / air inlet pressure ((raw - 1000) /
    10 as the source reads it; its unit is not stated, kPa assumed), air inlet temperature and the
    coolant outlet probe temperatures."""

    INFO_TYPE = 0x30
    stacks: tuple[Stack, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "stack count")
        stacks = []
        for i in range(count):
            head, at = read_fields(_STACK_HEAD, data, at, f"stack {i + 1} of {count}")
            probes, at = read_uint(data, at, 2, "coolant probe count")
            temps, at = read_list(_TEMP, probes, data, at, f"{probes} coolant temperatures")
            stacks.append(Stack(*head, temps))  # type: ignore[call-arg, arg-type]
        return cls(tuple(stacks)), at

    def encode(self) -> bytes:
        out = bytes((len(self.stacks),))
        for s in self.stacks:
            n = len(s.coolant_outlet_temps_c)
            out += write_fields(_STACK_HEAD, [getattr(s, f.name) for f in _STACK_HEAD]) + n.to_bytes(2, "big")
            out += write_list(_TEMP, s.coolant_outlet_temps_c)
        return out


_CAP_HEAD = (F("number", 1), F("voltage_v", 2, 0.1), F("current_a", 2, 0.1, -3000))
_CAP_V = F("cell_voltage_v", 2, 0.001)


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Supercapacitor:
    """0x31 supercapacitor: system number, voltage, current (offset -3000 A), cell voltages, probe temperatures."""

    INFO_TYPE = 0x31
    number: Reading
    voltage_v: Reading
    current_a: Reading
    cell_voltages_v: tuple[Reading, ...]
    probe_temps_c: tuple[Reading, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        head, at = read_fields(_CAP_HEAD, data, at, "supercapacitor")
        cells, at = read_uint(data, at, 2, "supercapacitor cell count")
        volts, at = read_list(_CAP_V, cells, data, at, f"{cells} supercapacitor cell voltages")
        probes, at = read_uint(data, at, 2, "supercapacitor probe count")
        temps, at = read_list(_TEMP, probes, data, at, f"{probes} supercapacitor temperatures")
        return cls(*head, volts, temps), at  # type: ignore[call-arg, arg-type]

    def encode(self) -> bytes:
        v, t = len(self.cell_voltages_v), len(self.probe_temps_c)
        return (write_fields(_CAP_HEAD, [self.number, self.voltage_v, self.current_a]) + v.to_bytes(2, "big")
                + write_list(_CAP_V, self.cell_voltages_v) + t.to_bytes(2, "big")
                + write_list(_TEMP, self.probe_temps_c))


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class SupercapacitorExtremes(FixedBlock):
    """0x32 supercapacitor extremes: system, cell / probe (2 bytes), value, for max / min voltage and temperature."""

    INFO_TYPE = 0x32
    FIELDS = (F("max_voltage_system", 1), F("max_voltage_cell", 2), F("max_cell_voltage_v", 2, 0.001),
              F("min_voltage_system", 1), F("min_voltage_cell", 2), F("min_cell_voltage_v", 2, 0.001),
              F("max_temp_system", 1), F("max_temp_probe", 2), F("max_temp_c", 1, offset=-40),
              F("min_temp_system", 1), F("min_temp_probe", 2), F("min_temp_c", 1, offset=-40))
    max_voltage_system: Reading
    max_voltage_cell: Reading
    max_cell_voltage_v: Reading
    min_voltage_system: Reading
    min_voltage_cell: Reading
    min_cell_voltage_v: Reading
    max_temp_system: Reading
    max_temp_probe: Reading
    max_temp_c: Reading
    min_temp_system: Reading
    min_temp_probe: Reading
    min_temp_c: Reading


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Signature:
    """0xFF the vehicle's digital signature: algorithm type, then r and s, each with a 2-byte length.
    Kept as bytes: checking it needs the vehicle's key, which is the link's business."""

    INFO_TYPE = 0xFF
    algorithm: int
    r: bytes
    s: bytes

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        algorithm, at = read_uint(data, at, 1, "signature type")
        r_len, at = read_uint(data, at, 2, "signature r length")
        need(data, at, r_len, "signature r")
        r, at = bytes(data[at : at + r_len]), at + r_len
        s_len, at = read_uint(data, at, 2, "signature s length")
        need(data, at, s_len, "signature s")
        return cls(algorithm, r, bytes(data[at : at + s_len])), at + s_len

    def encode(self) -> bytes:
        return (bytes((self.algorithm,)) + len(self.r).to_bytes(2, "big") + self.r
                + len(self.s).to_bytes(2, "big") + self.s)
