"""What a GB terminal sends, built from its vehicle's state with the codec's typed bodies
(``protocols.gb32960``): GB/T 32960.3 real-time data in the 2016 (``##``) or the 2025 (``$$``) reading,
and GB 17691 / HJ 1239 emission reports.

2016 blocks: 0x01 whole vehicle, 0x02 drive motors, 0x05 position, 0x06 extreme values, 0x07 alarms,
0x08 cell voltages (all 96 cells in one frame), 0x09 probe temperatures. 2025 blocks (the codec's
reading of that edition): 0x01 whole vehicle, 0x02 motors, 0x05 position (WGS-84), 0x06 alarms (each set
flag's level in the general fault list), 0x07 minimum parallel-unit voltages (one cell per unit in a 96S1P pack), 0x08
probe temperatures; that edition has no extreme-values block. A fuel-cell bus adds 0x03 fuel cell (the edition's
layout) and, in 2025, 0x30 fuel-cell stacks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from protocols.gb32960 import Protocol
from protocols.gb32960.messages import (
    Alarms,
    Alarms2025,
    CellVoltages,
    EmissionReissued,
    EmissionReport,
    Extremes,
    FuelCell,
    FuelCell2025,
    FuelCellStacks,
    Motor,
    Motors,
    Motors2025,
    PackTemperatures,
    PackUnitVoltages,
    PackVoltages,
    Position,
    Position2025,
    ProbeTemperatures,
    RealtimeReport,
    ReissuedReport,
    Stack,
    VehicleData,
    VehicleData2025,
)
from protocols.gb32960.messages.blocks_2016 import GENERAL_BITS_2016_MASK
from protocols.gb32960.messages.blocks_2025 import MinUnitVoltages, PackTemperatures2025
from simulator.gb32960.diesel import DieselTruck
from simulator.gb32960.ev import ElectricVehicle, EvState

PACK = 1  # the one rechargeable energy storage subsystem
RUN_MODE_ELECTRIC = 1
DCDC_WORKING, DCDC_OFF = 1, 2
MOTOR_CONSUMING, MOTOR_OFF, MOTOR_READY = 1, 3, 4
COORDINATES_WGS84 = 1


def _motors(state: EvState, count: int, with_dc: bool) -> tuple[Motor, ...]:
    b = state.battery
    status = MOTOR_CONSUMING if state.speed_kmh > 0 else (MOTOR_READY if state.status == 1 else MOTOR_OFF)
    current = round(max(0.0, b.total_current_a) / count * 10) / 10 if state.speed_kmh > 0 else 0.0
    return tuple(Motor(number=n, status=status, controller_temp_c=state.controller_temp_c,
                       speed_rpm=state.motor_rpm, torque_nm=state.motor_torque_nm, temp_c=state.motor_temp_c,
                       controller_voltage_v=b.total_voltage_v if with_dc else None,
                       dc_current_a=current if with_dc else None)
                 for n in range(1, count + 1))


def _alarm_values(state: EvState, protocol: Protocol) -> dict[str, Any]:
    """The alarm block's values: a 2016 terminal has only that edition's flags (its level the highest of
    those); a 2025 one lists each flag's own level in the general fault list (its number, then its level)."""
    b = state.battery
    if protocol is Protocol.GB32960_2025:
        return {"max_level": b.alarm_level, "flags": b.alarm_flags, "storage_faults": b.storage_faults,
                "motor_faults": (), "engine_faults": (), "other_faults": (),
                "general_faults": tuple(bit << 8 | level for bit, level in b.alarm_levels)}
    levels = [level for bit, level in b.alarm_levels if GENERAL_BITS_2016_MASK >> bit & 1]
    return {"max_level": max(levels, default=0), "flags": b.alarm_flags & GENERAL_BITS_2016_MASK,
            "storage_faults": b.storage_faults, "motor_faults": (), "engine_faults": (), "other_faults": ()}


def _extremes(state: EvState) -> Extremes:
    cells, temps = state.battery.cell_voltages_v, state.battery.probe_temps_c
    hi_v, lo_v = max(cells), min(cells)
    hi_t, lo_t = max(temps), min(temps)
    return Extremes(PACK, cells.index(hi_v) + 1, hi_v, PACK, cells.index(lo_v) + 1, lo_v,
                    PACK, temps.index(hi_t) + 1, hi_t, PACK, temps.index(lo_t) + 1, lo_t)


H2_CONCENTRATION_PPM = 40  # the hydrogen sensors' reading of a tight system (no leak)
H2_SENSOR, H2_PROBE = 1, 1


def _fuel_cell_blocks(state: EvState, protocol: Protocol) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A fuel-cell vehicle's blocks: (0x03 to go after the motors, the 2025 edition's 0x30 stacks to go last)."""
    f = state.fuel_cell
    if f is None:
        return (), ()
    if protocol is Protocol.GB32960_2025:
        return ((FuelCell2025(round(f.h2_temp_c), H2_PROBE, H2_CONCENTRATION_PPM / 10000, H2_SENSOR,
                              f.tank_pressure_mpa, H2_SENSOR, f.dcdc, f.h2_remaining_pct, f.dcdc_controller_temp_c),),
                (FuelCellStacks((Stack(1, f.voltage_v, f.current_a, f.h2_inlet_pressure_kpa, f.air_inlet_pressure_kpa,
                                       f.air_inlet_temp_c, f.coolant_outlet_temps_c),)),))
    return (FuelCell(f.voltage_v, f.current_a, f.h2_consumption_kg_per_100km, f.probe_temps_c, f.h2_temp_c, H2_PROBE,
                     H2_CONCENTRATION_PPM, H2_SENSOR, f.tank_pressure_mpa, H2_SENSOR, f.dcdc),), ()


def ev_blocks(state: EvState, protocol: Protocol, motors: int) -> tuple[Any, ...]:
    """The real-time information blocks of one report."""
    b = state.battery
    fuel, stacks = _fuel_cell_blocks(state, protocol)
    common: dict[str, Any] = {"status": state.status, "charging": state.charging, "run_mode": RUN_MODE_ELECTRIC,
              "speed_kmh": state.speed_kmh, "mileage_km": state.mileage_km, "total_voltage_v": b.total_voltage_v,
              "total_current_a": b.total_current_a, "soc_pct": b.soc_pct,
              "dcdc": DCDC_WORKING if state.status == 1 or state.charging == 1 else DCDC_OFF,
              "gear": state.gear, "insulation_kohm": b.insulation_kohm}
    temps = (PackTemperatures(PACK, b.probe_temps_c),)
    if protocol is Protocol.GB32960_2025:
        return (VehicleData2025(**common), Motors2025(_motors(state, motors, with_dc=False)), *fuel,
                Position2025(0, COORDINATES_WGS84, state.lng, state.lat), Alarms2025(**_alarm_values(state, protocol)),
                MinUnitVoltages((PackUnitVoltages(PACK, b.total_voltage_v, b.total_current_a, b.cell_voltages_v),)),
                PackTemperatures2025(temps), *stacks)
    cells = len(b.cell_voltages_v)
    return (VehicleData(**common, accelerator_pct=state.accelerator_pct, brake_pct=state.brake_pct),
            Motors(_motors(state, motors, with_dc=True)), *fuel, Position(0, state.lng, state.lat), _extremes(state),
            Alarms(**_alarm_values(state, protocol)),
            CellVoltages((PackVoltages(PACK, b.total_voltage_v, b.total_current_a, cells, 1, b.cell_voltages_v),)),
            ProbeTemperatures(temps))


def realtime_body(collected_at: datetime, blocks: tuple[Any, ...], *, reissued: bool) -> RealtimeReport:
    """0x02 real-time data, or 0x03 back-filled data (the same layout) for a report sent again."""
    return (ReissuedReport if reissued else RealtimeReport)(collected_at, blocks)


def emission_body(collected_at: datetime, serial: int, blocks: tuple[Any, ...], *,
                  reissued: bool) -> EmissionReport:
    return (EmissionReissued if reissued else EmissionReport)(collected_at, serial, blocks)


class EvReporter:
    """An electric vehicle as its terminal reports it."""

    def __init__(self, vehicle: ElectricVehicle, protocol: Protocol) -> None:
        self.vehicle, self.protocol = vehicle, protocol

    def advance(self, dt_s: float) -> None:
        self.vehicle.advance(dt_s)

    def blocks(self) -> tuple[Any, ...]:
        return ev_blocks(self.vehicle.state(), self.protocol, self.vehicle.spec.motors)


class TruckReporter:
    """A diesel truck as its terminal reports it: the data stream in every report, the OBD information
    in the first report of a session, every ``obd_every`` reports and whenever the MIL changes."""

    def __init__(self, truck: DieselTruck, vin: str, obd_every: int = 30) -> None:
        self.truck, self.vin, self.obd_every = truck, vin, obd_every
        self._since_obd: int | None = None
        self._mil = truck.mil

    def advance(self, dt_s: float) -> None:
        self.truck.advance(dt_s)

    def new_session(self) -> None:
        self._since_obd = None

    def blocks(self) -> tuple[Any, ...]:
        stream = self.truck.stream()
        mil = self.truck.mil
        if self._since_obd is None or self._since_obd + 1 >= self.obd_every or mil != self._mil:
            self._since_obd, self._mil = 0, mil
            return (self.truck.obd(self.vin), stream)
        self._since_obd += 1
        return (stream,)
