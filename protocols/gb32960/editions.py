"""Real-time and back-filled data (0x02 / 0x03) from one GB/T 32960.3 edition's blocks to the other's (pure).

Terminals in the field speak the 2016 edition (``##``) and the 2025 one (``$$``), and a superior platform takes one
of them: a platform that relays its vehicles to it writes each frame in the superior's edition. What the two
editions share goes across with its value (never its raw number: the scales and offsets differ); what one of them
has no place for is left out and named in ``Transcoded.left_out``; what the target requires and the source does not
carry is sent as the standard's "invalid" (0xFF / 0xFFFF ...), which says "no valid value", never a made-up one. A
value the target's range cannot hold (a 2016 current of 4,000 A in a 2025 field of -3,000 ... 3,553 A) is sent as
"abnormal".

| 2016 | 2025 |
|---|---|
| 0x01 vehicle (with accelerator, brake; gear bits 6-7 reserved) | 0x01 vehicle (without; gear bit 7 "invalid") |
| 0x02 motors (with controller voltage, DC current) | 0x02 motors (without; wider speed and torque) |
| 0x03 fuel cell (voltage, current, consumption, probes, hydrogen extremes, DC-DC) | 0x03 hydrogen extremes, DC-DC, remaining hydrogen, DC-DC controller temperature |
| 0x04 engine (status, crankshaft speed, fuel) | 0x04 crankshaft speed |
| 0x05 position (WGS-84) | 0x05 position with its coordinate system (1 WGS-84, 2 GCJ-02, 3 other) |
| 0x06 extreme values | none; to 2016 they are computed from the frame's cell voltages and temperatures |
| 0x07 alarms | 0x06 alarms (with 2-byte general fault codes) |
| 0x08 cell voltages (a frame may carry a window of a pack's cells) | 0x07 cell (parallel unit) voltages, a whole pack |
| 0x09 probe temperatures | 0x08 probe temperatures |
| none | 0x30 fuel-cell stacks, 0x31 supercapacitor, 0x32 its extremes, 0xFF the vehicle's signature |

User-defined blocks (0x80 ... 0xFE) go as they are. The hydrogen concentration goes nowhere (2016 gives ppm, the
2025 reading we have states no unit); a 2025 signature never goes (it signs the vehicle's own bytes, which change).
A GCJ-02 position goes to 2016 converted to WGS-84 (GeoToolCN's inverse, metres off), an "other" one is left out.
The 2025 layouts are those of protocols/gb32960/messages/blocks_2025.py (its docstring says where they come from).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from protocols.gb32960.header import Protocol
from protocols.gb32960.messages._blocks import CustomBlock, UnparsedTail
from protocols.gb32960.messages.blocks_2016 import (
    _CELL_V,
    _FUEL_HEAD,
    _FUEL_TAIL,
    _PACK_HEAD,
    MOTOR_FIELDS_2016,
    Alarms,
    CellVoltages,
    Engine,
    Extremes,
    FuelCell,
    Motor,
    Motors,
    PackTemperatures,
    PackVoltages,
    Position,
    ProbeTemperatures,
    VehicleData,
)
from protocols.gb32960.messages.blocks_2025 import (
    _FUEL_2025,
    _PARALLEL_HEAD,
    _UNIT_V,
    COORDINATES_GCJ02,
    COORDINATES_WGS84,
    MOTOR_FIELDS_2025,
    Alarms2025,
    Engine2025,
    FuelCell2025,
    FuelCellStacks,
    MinUnitVoltages,
    Motors2025,
    PackTemperatures2025,
    PackUnitVoltages,
    Position2025,
    Signature,
    Supercapacitor,
    SupercapacitorExtremes,
    VehicleData2025,
    to_wgs84,
)
from protocols.gb32960.messages.realtime import RealtimeReport
from protocols.gb32960.values import Field, Reading, Special, to_raw, write_list

P2016, P2025 = Protocol.GB32960_2016, Protocol.GB32960_2025
INVALID = Special.INVALID
MAX_CELLS_A_FRAME = 200  # 2016: one subsystem's cells in one frame, 1 ... 200 (table 21)


@dataclass(frozen=True)
class Transcoded:
    report: RealtimeReport
    left_out: tuple[str, ...]  # what the target edition has no place for, e.g. "0x31 supercapacitor"


def fit(field: Field, value: Reading) -> Reading:
    """``value`` when the field's range holds it, else "abnormal" (the value exists; this edition cannot say it)."""
    try:
        to_raw(field, value)
    except ValueError:
        if not field.special:
            raise
        return Special.ABNORMAL
    return value


def fit_list(field: Field, values: tuple[Reading, ...]) -> tuple[Reading, ...]:
    """``fit`` over a pack's cells or probes: the list as it is when the field's range holds every value (checked
    at once, as encoding it will be), else value by value."""
    try:
        write_list(field, values)
    except ValueError:
        return tuple(fit(field, v) for v in values)
    return values


def _fitted(fields: tuple[Field, ...], values: dict[str, Any]) -> list[Any]:
    return [fit(f, values[f.name]) for f in fields]


def _fixed(cls: Any, values: dict[str, Any]) -> Any:
    return cls(*_fitted(cls.FIELDS, values))


def _fields(block: Any, names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(block, name) for name in names}


def transcode(report: RealtimeReport, source: Protocol, target: Protocol) -> Transcoded:
    """``report`` (decoded in ``source``'s edition) with its blocks in ``target``'s; the same report when the
    editions are the same."""
    if source is target:
        return Transcoded(report, ())
    if {source, target} != {P2016, P2025}:
        raise ValueError(f"no transcoding from {source.value} to {target.value}")
    convert = _BLOCKS_TO_2025 if target is P2025 else _BLOCKS_TO_2016
    standard: list[Any] = []
    custom: list[Any] = []
    left_out: list[str] = []
    for block in report.blocks:
        if isinstance(block, CustomBlock):
            custom.append(block)
            continue
        if isinstance(block, UnparsedTail):
            left_out.append(f"0x{block.info_type:02X} and after (no known layout)")
            continue
        rule = convert.get(type(block))
        if rule is None:
            left_out.append(_name(block))
            continue
        made, dropped = rule(block)
        standard.extend(made)
        left_out.extend(dropped)
    if target is P2016:
        extremes = _extremes(report.blocks)
        if extremes is not None:
            standard.append(extremes)
    standard.sort(key=lambda b: b.INFO_TYPE)
    blocks = (*standard, *custom)
    return Transcoded(type(report)(report.collected_at, blocks), tuple(left_out))


# the blocks one edition has and the other has no place for, as ``left_out`` names them
_UNPLACED = {Extremes: "extreme values", FuelCellStacks: "fuel-cell stacks", Supercapacitor: "supercapacitor",
             SupercapacitorExtremes: "supercapacitor extremes", Signature: "the vehicle's signature"}


def _name(block: Any) -> str:
    return f"0x{block.INFO_TYPE:02X} {_UNPLACED.get(type(block), type(block).__name__)}"


Rule = Callable[[Any], tuple[list[Any], list[str]]]


# ------------------------------------------------------------------ 2016 -> 2025

# The gear byte (table A.1 of either edition): bits 0-3 the gear, 4 braking and 5 driving force, alike; 2016 reserves
# bits 6-7, 2025 makes bit 7 "gear position invalid" (as rtm_con reads its table A.1). The shared bits go across; a
# reserved bit a 2016 terminal set must not read as "invalid" in 2025, and 2016 has no "invalid" to say it with.
GEAR_SHARED_BITS = 0x3F


def _vehicle_to_2025(b: VehicleData) -> tuple[list[Any], list[str]]:
    values = _fields(b, [f.name for f in VehicleData2025.FIELDS])
    values["gear"] = b.gear & GEAR_SHARED_BITS
    return [_fixed(VehicleData2025, values)], []


def _motors_to_2025(b: Motors) -> tuple[list[Any], list[str]]:
    motors = tuple(Motor(*_fitted(MOTOR_FIELDS_2025, _fields(m, [f.name for f in MOTOR_FIELDS_2025])))
                   for m in b.motors)
    return [Motors2025(motors)], []


def _fuel_to_2025(b: FuelCell) -> tuple[list[Any], list[str]]:
    values = _fields(b, ["max_h2_temp_c", "max_h2_temp_probe", "max_h2_concentration_sensor", "max_h2_pressure_mpa",
                         "max_h2_pressure_sensor", "dcdc"])
    values.update(max_h2_concentration=INVALID, h2_remaining_pct=INVALID, dcdc_controller_temp_c=INVALID)
    return [FuelCell2025(*_fitted(_FUEL_2025, values))], [
        "0x03 fuel cell voltage, current, hydrogen consumption, probe temperatures, hydrogen concentration"]


def _engine_to_2025(b: Engine) -> tuple[list[Any], list[str]]:
    return [_fixed(Engine2025, {"crankshaft_rpm": b.crankshaft_rpm})], []


def _position_to_2025(b: Position) -> tuple[list[Any], list[str]]:
    return [Position2025(b.status, COORDINATES_WGS84, b.longitude_deg, b.latitude_deg)], []


def _alarms_to_2025(b: Alarms) -> tuple[list[Any], list[str]]:
    return [Alarms2025(b.max_level, b.flags, b.storage_faults, b.motor_faults, b.engine_faults, b.other_faults, ())], []


def _cells_to_2025(b: CellVoltages) -> tuple[list[Any], list[str]]:
    packs, left = [], []
    for p in b.packs:
        if p.first_cell != 1 or len(p.cell_voltages_v) != p.total_cells:
            # a window of a pack spread over frames: 2025 sends a pack whole, so a part of one cannot go
            left.append(f"0x08 subsystem {p.number}: cells {p.first_cell} ... of {p.total_cells} (a part of the pack)")
            continue
        head = _fitted(_PARALLEL_HEAD, {"number": p.number, "voltage_v": p.voltage_v, "current_a": p.current_a})
        units = fit_list(_UNIT_V, p.cell_voltages_v)
        packs.append(PackUnitVoltages(*head, units))  # type: ignore[call-arg]
    return ([MinUnitVoltages(tuple(packs))] if packs else []), left


def _temps_to_2025(b: ProbeTemperatures) -> tuple[list[Any], list[str]]:
    return [PackTemperatures2025(b.packs)], []


_BLOCKS_TO_2025: dict[type, Rule] = {
    VehicleData: _vehicle_to_2025, Motors: _motors_to_2025, FuelCell: _fuel_to_2025, Engine: _engine_to_2025,
    Position: _position_to_2025, Alarms: _alarms_to_2025, CellVoltages: _cells_to_2025,
    ProbeTemperatures: _temps_to_2025,
}


# ------------------------------------------------------------------ 2025 -> 2016

def _vehicle_to_2016(b: VehicleData2025) -> tuple[list[Any], list[str]]:
    values = _fields(b, [f.name for f in VehicleData2025.FIELDS])
    values.update(accelerator_pct=INVALID, brake_pct=INVALID, gear=b.gear & GEAR_SHARED_BITS)
    return [_fixed(VehicleData, values)], ([] if b.gear & ~GEAR_SHARED_BITS == 0 else ["0x01 gear position invalid"])


def _motors_to_2016(b: Motors2025) -> tuple[list[Any], list[str]]:
    motors = []
    for m in b.motors:
        values = _fields(m, [f.name for f in MOTOR_FIELDS_2025])
        values.update(controller_voltage_v=INVALID, dc_current_a=INVALID)
        motors.append(Motor(*_fitted(MOTOR_FIELDS_2016, values)))
    return [Motors(tuple(motors))], []


def _fuel_to_2016(b: FuelCell2025) -> tuple[list[Any], list[str]]:
    head = _fitted(_FUEL_HEAD, {"voltage_v": INVALID, "current_a": INVALID, "h2_consumption_kg_per_100km": INVALID})
    tail = _fitted(_FUEL_TAIL, {**_fields(b, ["max_h2_temp_c", "max_h2_temp_probe", "max_h2_concentration_sensor",
                                              "max_h2_pressure_mpa", "max_h2_pressure_sensor", "dcdc"]),
                                "max_h2_concentration_ppm": INVALID})
    block = FuelCell(*head, (), *tail)  # type: ignore[call-arg]
    return [block], ["0x03 remaining hydrogen, DC-DC controller temperature, hydrogen concentration"]


def _engine_to_2016(b: Engine2025) -> tuple[list[Any], list[str]]:
    return [_fixed(Engine, {"status": INVALID, "crankshaft_rpm": b.crankshaft_rpm, "fuel_l_per_100km": INVALID})], []


def _position_to_2016(b: Position2025) -> tuple[list[Any], list[str]]:
    if b.coordinate_system == COORDINATES_WGS84:
        return [Position(b.status, b.longitude_deg, b.latitude_deg)], []
    lng, lat = b.lng, b.lat
    if b.coordinate_system != COORDINATES_GCJ02 or lng is None or lat is None:
        return [], [f"0x05 position in coordinate system {b.coordinate_system} (2016 takes WGS-84)"]
    lng, lat = to_wgs84(lng, lat, b.coordinate_system)
    status = (b.status & 0x01) | (0x02 if lat < 0 else 0) | (0x04 if lng < 0 else 0)
    return [Position(status, round(abs(lng), 6), round(abs(lat), 6))], []


def _alarms_to_2016(b: Alarms2025) -> tuple[list[Any], list[str]]:
    block = Alarms(b.max_level, b.flags, b.storage_faults, b.motor_faults, b.engine_faults, b.other_faults)
    return [block], (["0x06 general fault codes"] if b.general_faults else [])


def _cells_to_2016(b: MinUnitVoltages) -> tuple[list[Any], list[str]]:
    packs, left = [], []
    for p in b.packs:
        count = len(p.unit_voltages_v)
        if isinstance(p.number, Special) or not 1 <= count <= MAX_CELLS_A_FRAME:
            left.append(f"0x07 pack {p.number}: {count} cells (2016 takes 1 ... {MAX_CELLS_A_FRAME} a frame)")
            continue
        head = _fitted(_PACK_HEAD, {"number": p.number, "voltage_v": p.voltage_v, "current_a": p.current_a,
                                    "total_cells": count, "first_cell": 1})
        cells = fit_list(_CELL_V, p.unit_voltages_v)
        packs.append(PackVoltages(*head, cells))  # type: ignore[call-arg]
    return ([CellVoltages(tuple(packs))] if packs else []), left


def _temps_to_2016(b: PackTemperatures2025) -> tuple[list[Any], list[str]]:
    return [ProbeTemperatures(tuple(PackTemperatures(p.number, p.probe_temps_c) for p in b.packs))], []


_BLOCKS_TO_2016: dict[type, Rule] = {
    VehicleData2025: _vehicle_to_2016, Motors2025: _motors_to_2016, FuelCell2025: _fuel_to_2016,
    Engine2025: _engine_to_2016, Position2025: _position_to_2016, Alarms2025: _alarms_to_2016,
    MinUnitVoltages: _cells_to_2016, PackTemperatures2025: _temps_to_2016,
}


def _extremes(blocks: tuple[Any, ...]) -> Extremes | None:
    """2016's 0x06 (the highest and lowest cell voltage and temperature, with their subsystem and cell / probe) from
    a 2025 frame's cell voltages and temperatures: the same frame's readings, 1-based positions, "invalid" where
    the frame has none."""
    voltages = [(v, p.number, i) for b in blocks if isinstance(b, MinUnitVoltages) for p in b.packs
                if not isinstance(p.number, Special)
                for i, v in enumerate(p.unit_voltages_v, 1) if not isinstance(v, Special)]
    temps = [(t, p.number, i) for b in blocks if isinstance(b, PackTemperatures2025) for p in b.packs
             for i, t in enumerate(p.probe_temps_c, 1) if not isinstance(t, Special)]
    if not voltages and not temps:
        return None
    values: dict[str, Any] = {}
    for kind, readings, place, value in (("voltage", voltages, "cell", "cell_voltage_v"),
                                        ("temp", temps, "probe", "temp_c")):
        for end, pick in (("max", max), ("min", min)):
            found: tuple[Reading, Reading, Reading] = (
                pick(readings, key=lambda r: r[0]) if readings else (INVALID, INVALID, INVALID))
            reading, number, index = found
            values[f"{end}_{kind}_subsystem"] = number
            values[f"{end}_{kind}_{place}"] = index
            values[f"{end}_{value}"] = reading
    return _fixed(Extremes, values)


__all__ = ["Transcoded", "transcode", "fit", "fit_list"]
