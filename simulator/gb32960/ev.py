"""An electric bus or van: the demo fleet's one driving model (``fleet.driving_model.Drive``) with a
battery (``simulator.gb32960.battery``) that it drains and charges; and a fuel-cell bus (``FuelCellBus``, below),
whose stack supplies the traction and which refuels hydrogen instead of charging.

- In service it drives like the JT/T 808 fleet; the energy a step takes is its distance × the pack's
  kWh/km (growing with the square of the speed above 40 km/h) plus the auxiliaries while the ACC is on.
- At ``RETURN_SOC_PCT`` it heads back to its depot (``Drive.head_to``, re-aimed every step) and, within
  ``DEPOT_RADIUS_M``, parks and charges: charging state 1 (parked charging), a negative current, SOC and
  cell voltages rising, the charger's power tapering above 80 %; at ``FULL_SOC_PCT`` charging state 4
  (charged) until it leaves again 5-30 minutes later, then 3 (not charging).
- Deterministic for its random sources; ``advance`` integrates in steps of at most ``STEP_S`` so a
  report every 1 s or every 60 s drives and charges alike.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass

from fleet.driving_model import M_PER_DEG_LAT, Drive, DrivingModel
from simulator.gb32960.battery import Battery, BatterySnapshot, PackSpec
from simulator.gb32960.fuel_cell import FuelCellSnapshot, FuelCellSpec, FuelCellSystem

STEP_S = 10.0
RETURN_SOC_PCT = 20.0
FULL_SOC_PCT = 95.0
DEPOT_RADIUS_M = 300.0

CHARGING, DRIVING_CHARGING, NOT_CHARGING, CHARGED = 1, 2, 3, 4  # GB/T 32960.3 table 9 charging state
STARTED, OFF = 1, 2  # vehicle status
GEAR_PARK = 0x0F  # table 10: bits 0-3 gear (15 park, 14 drive), bit 5 driving force, bit 4 braking force
GEAR_DRIVE = 0x0E | 0x20


@dataclass(frozen=True)
class EvState:
    """One report of an electric vehicle, in the wire's resolution."""

    status: int
    charging: int
    speed_kmh: float
    mileage_km: float
    gear: int
    accelerator_pct: int
    brake_pct: int
    lat: float
    lng: float
    motor_rpm: int
    motor_torque_nm: float
    motor_temp_c: int
    controller_temp_c: int
    battery: BatterySnapshot
    fuel_cell: FuelCellSnapshot | None = None  # a fuel-cell vehicle's stack and hydrogen system


class ElectricVehicle:
    def __init__(self, rng: random.Random, spec: PackSpec, model: DrivingModel | None = None, *,
                 soc_pct: float | None = None, alarm_rate_per_hour: float = 0.5,
                 mileage_km: float | None = None) -> None:
        """``soc_pct``: the charge it starts with, else a random one (25-95 %, so some go charging soon);
        ``mileage_km``: the odometer to go on from (its last stored reading), else a random one."""
        self.spec, self.rng = spec, rng
        self.drive = Drive(rng, model or DrivingModel(), mileage_km=mileage_km)
        m = self.drive.m
        r, angle = m.radius_km * 1000 * 0.3 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        self.depot = (m.centre_lng + r * math.cos(angle) / self.drive.m_per_deg_lng,
                      m.centre_lat + r * math.sin(angle) / M_PER_DEG_LAT)
        start_soc = rng.uniform(25.0, 95.0)
        self.battery = Battery(spec, random.Random(rng.random()), soc=start_soc if soc_pct is None else soc_pct,
                               alarm_rate_per_hour=alarm_rate_per_hour)
        self.phase = "service"  # service | returning | charging | charged
        self.charging_sessions = 0
        self._last_speed = 0.0
        self._accel = 0.0

    @property
    def charging_state(self) -> int:
        return {"charging": CHARGING, "charged": CHARGED}.get(self.phase, NOT_CHARGING)

    def advance(self, dt_s: float) -> None:
        steps = max(1, math.ceil(dt_s / STEP_S - 1e-9))
        for _ in range(steps):
            self._step(dt_s / steps)

    def _plan(self) -> None:
        """The phase before a step: back to the depot when the pack is low, charged there, off again."""
        drive, battery = self.drive, self.battery
        if self.phase == "service" and battery.soc <= RETURN_SOC_PCT:
            self.phase = "returning"
        if self.phase == "returning":
            if drive.distance_m(*self.depot) <= DEPOT_RADIUS_M:
                self.phase, self.charging_sessions = "charging", self.charging_sessions + 1
                drive.park_for(24 * 3600.0)  # until charged
            else:
                drive.head_to(*self.depot)
        if self.phase == "charging" and battery.soc >= FULL_SOC_PCT:
            self.phase = "charged"
            drive.park_for(self.rng.uniform(300.0, 1800.0))
        if self.phase == "charged" and drive.mode == "drive":
            self.phase = "service"

    def _battery_kw(self, dt: float, demand_kw: float, km: float) -> float:
        """The power the pack carries of the vehicle's demand (a battery-electric vehicle: all of it)."""
        return demand_kw

    def _step(self, dt: float) -> None:
        drive, battery = self.drive, self.battery
        self._plan()
        before_km, before_kmh = drive.mileage_km, drive.speed_kmh
        drive.advance(dt)
        km = drive.mileage_km - before_km
        self._accel = (drive.speed_kmh - before_kmh) / dt
        if self.phase == "charging":
            taper = 1.0 if battery.soc < 80 else max(0.15, 1.0 - (battery.soc - 80.0) / 20.0)
            power_kw = -self.spec.charge_power_kw * taper
        else:
            mean_kmh = km * 3600.0 / dt
            per_km = self.spec.kwh_per_km * (1.0 + max(0.0, (mean_kmh / 40.0) ** 2 - 1.0) * 0.35)
            power_kw = km * per_km * 3600.0 / dt + (self.spec.aux_kw if drive.acc_on else 0.0)
        battery.step(dt, self._battery_kw(dt, power_kw, km), active=drive.acc_on or self.phase == "charging")

    def _supplied_kw(self, snap: BatterySnapshot) -> float:
        """The electric power the vehicle draws: the pack's."""
        return snap.total_voltage_v * snap.total_current_a / 1000.0

    def state(self) -> EvState:
        d, snap = self.drive, self.battery.snapshot()
        speed = round(d.speed_kmh, 1)
        rpm = round(speed * self.spec.rpm_per_kmh)
        motor_kw = max(0.0, self._supplied_kw(snap) - self.spec.aux_kw)
        torque = round(motor_kw * 9550.0 / rpm / self.spec.motors, 1) if rpm >= 100 else 0.0
        driving = d.mode == "drive" and speed > 0
        heat = round(min(40.0, speed / 2))
        return EvState(
            status=STARTED if d.acc_on else OFF, charging=self.charging_state, speed_kmh=speed,
            mileage_km=round(d.mileage_km, 1), gear=GEAR_DRIVE if driving else GEAR_PARK,
            accelerator_pct=min(100, round(max(0.0, self._accel) * 40 + (15 if driving else 0))),
            brake_pct=min(100, round(max(0.0, -self._accel) * 30)), lat=round(d.lat, 6), lng=round(d.lng, 6),
            motor_rpm=rpm, motor_torque_nm=torque, motor_temp_c=round(self.battery.pack_temp_c) + 8 + heat,
            controller_temp_c=round(self.battery.pack_temp_c) + 4 + heat // 2, battery=snap)


RETURN_H2_PCT = 15.0
REFUELLED_PCT = 99.5


class FuelCellBus(ElectricVehicle):
    """A fuel-cell bus: the same driving, a small buffer pack, and a stack (``simulator.gb32960.fuel_cell``) that
    supplies the traction and keeps the pack near its target charge. It does not plug in: at
    ``RETURN_H2_PCT`` of hydrogen it heads to its depot's hydrogen station, refuels parked
    (charging state 3 throughout) and goes back into service a few minutes after the tank is full."""

    def __init__(self, rng: random.Random, spec: PackSpec, fuel: FuelCellSpec, model: DrivingModel | None = None, *,
                 alarm_rate_per_hour: float = 0.5, mileage_km: float | None = None) -> None:
        super().__init__(rng, spec, model, soc_pct=rng.uniform(50.0, 70.0), alarm_rate_per_hour=alarm_rate_per_hour,
                         mileage_km=mileage_km)
        self.fuel = FuelCellSystem(fuel, random.Random(rng.random()), h2_kg=fuel.tank_kg * rng.uniform(0.3, 1.0))
        self.refuellings = 0

    def _plan(self) -> None:
        drive = self.drive
        if self.phase == "service" and self.fuel.remaining_pct <= RETURN_H2_PCT:  # its stack recharges the pack
            self.phase = "returning"
        if self.phase == "returning":
            if drive.distance_m(*self.depot) <= DEPOT_RADIUS_M:
                self.phase, self.refuellings = "refuelling", self.refuellings + 1
                drive.park_for(24 * 3600.0)  # until the tank is full
            else:
                drive.head_to(*self.depot)
        if self.phase == "refuelling" and self.fuel.remaining_pct >= REFUELLED_PCT:
            self.phase = "refuelled"
            drive.park_for(self.rng.uniform(60.0, 300.0))
        if self.phase == "refuelled" and drive.mode == "drive":
            self.phase = "service"

    def _battery_kw(self, dt: float, demand_kw: float, km: float) -> float:
        if self.phase == "refuelling":
            self.fuel.refuel(dt)
        return self.fuel.step(dt, demand_kw, self.battery.soc, km,
                              on=self.drive.acc_on and self.phase != "refuelling")

    def _supplied_kw(self, snap: BatterySnapshot) -> float:
        return super()._supplied_kw(snap) + self.fuel.power_kw  # the pack's and the stack's

    def state(self) -> EvState:
        return dataclasses.replace(super().state(), fuel_cell=self.fuel.snapshot())
