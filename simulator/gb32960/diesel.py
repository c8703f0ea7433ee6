"""A heavy diesel truck reporting over GB 17691 / HJ 1239: the demo fleet's one driving model
(``fleet.driving_model.Drive``) with an engine and its after-treatment (SCR with urea reagent, DPF).

- Engine speed and torque follow the road speed and acceleration (idle 600 rpm, 8 % torque); fuel flow and
  intake air follow speed × torque.
- NOx upstream of the SCR grows with torque (150-1200 ppm); the SCR removes ~92 % once its inlet is over
  200 °C and there is reagent, so downstream NOx is low in a warm drive and high in a cold start.
- The reagent (AdBlue) level falls with the distance (``REAGENT_PCT_PER_KM``) and is refilled to 95-100 %
  at the first stop under ``REAGENT_REFILL_PCT``.
- The DPF's differential pressure is its soot load (growing with the distance) plus the exhaust flow's
  share; over ``DPF_REGENERATE_KPA`` it regenerates (SCR inlet hotter for a while, soot back to ~2 kPa).
- OBD: SAE J1939, every monitor supported and ready; now and then (``fault_rate_per_hour``) an emission
  fault episode lights the MIL with a diagnostic trouble code.
Readings are quantised to their wire fields (``EngineDataStream.FIELDS``), so a frame decodes to exactly
``stream()``. Deterministic for its random source.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from fleet.driving_model import Drive, DrivingModel
from protocols.gb32960.messages import EngineDataStream, ObdInfo
from protocols.gb32960.values import Field, Reading, to_raw, to_value

STEP_S = 10.0
TANK_L = 400.0
REAGENT_PCT_PER_KM = 0.08
REAGENT_REFILL_PCT = 15.0
DPF_REGENERATE_KPA = 18.0
OBD_J1939 = 2
DIAGNOSIS_SUPPORTED = 0x03FF  # every monitor of the readiness word supported ...
DIAGNOSIS_READY = 0x03FF  # ... and complete
# J1939 DM1 style codes (SPN 4364 "SCR conversion efficiency", SPN 3251 "DPF differential pressure")
FAULT_CODES = (0x0010B412, 0x00000CB3)


@dataclass
class _Engine:
    rpm: float = 0.0
    torque_pct: float = 0.0
    scr_in_c: float = 20.0
    coolant_c: float = 20.0
    soot_kpa: float = 2.0
    regenerating_s: float = 0.0


class DieselTruck:
    def __init__(self, rng: random.Random, model: DrivingModel | None = None, *,
                 fault_rate_per_hour: float = 0.2, mileage_km: float | None = None) -> None:
        """``mileage_km``: the odometer to go on from (its last stored reading), else a random one."""
        self.rng = rng
        self.drive = Drive(rng, model or DrivingModel(), fuel_l=rng.uniform(120.0, TANK_L), mileage_km=mileage_km)
        self.engine = _Engine(soot_kpa=rng.uniform(2.0, 15.0), scr_in_c=rng.uniform(20.0, 250.0),
                              coolant_c=rng.uniform(20.0, 88.0))
        self.reagent_pct = rng.uniform(12.0, 100.0)
        self.fault_rate_per_hour = fault_rate_per_hour
        self.fault_left_s = 0.0
        self.fault_code = 0
        self.refills = 0
        self.regenerations = 0
        self._accel = 0.0

    @property
    def mil(self) -> int:
        return 1 if self.fault_left_s > 0 else 0

    def advance(self, dt_s: float) -> None:
        steps = max(1, math.ceil(dt_s / STEP_S - 1e-9))
        for _ in range(steps):
            self._step(dt_s / steps)

    def start_fault(self, seconds: float = 1800.0) -> None:
        self.fault_left_s, self.fault_code = seconds, self.rng.choice(FAULT_CODES)

    def _step(self, dt: float) -> None:
        d, e = self.drive, self.engine
        before_km, before_kmh = d.mileage_km, d.speed_kmh
        d.fuel_l = max(d.fuel_l, 60.0)  # the shared model refuels at 20 l; a truck's tank is larger
        d.advance(dt)
        km = d.mileage_km - before_km
        self._accel = (d.speed_kmh - before_kmh) / dt
        if not d.acc_on:
            e.rpm, e.torque_pct = 0.0, 0.0
        elif d.speed_kmh < 1:
            e.rpm, e.torque_pct = 600.0 + self.rng.uniform(-15, 15), 8.0
        else:
            e.rpm = min(1900.0, 900.0 + d.speed_kmh * 11.0)
            e.torque_pct = min(95.0, max(5.0, 25.0 + d.speed_kmh * 0.35 + self._accel * 25.0
                                         + self.rng.uniform(-4, 4)))
        hot = 180.0 + e.torque_pct * 2.4 + (220.0 if e.regenerating_s > 0 else 0.0) if d.acc_on else 20.0
        e.scr_in_c += (hot - e.scr_in_c) * min(1.0, dt / 300.0)
        e.coolant_c += ((88.0 if d.acc_on else 20.0) - e.coolant_c) * min(1.0, dt / 900.0)
        e.soot_kpa += km * 0.02
        if e.regenerating_s > 0:
            e.regenerating_s -= dt
            e.soot_kpa = max(2.0, e.soot_kpa - dt * 0.02)
        elif e.soot_kpa > DPF_REGENERATE_KPA and d.driving:
            e.regenerating_s, self.regenerations = 900.0, self.regenerations + 1
        self.reagent_pct = max(0.0, self.reagent_pct - km * REAGENT_PCT_PER_KM)
        if not d.acc_on and self.reagent_pct < REAGENT_REFILL_PCT:
            self.reagent_pct, self.refills = self.rng.uniform(95.0, 100.0), self.refills + 1
        if self.fault_left_s > 0:
            self.fault_left_s -= dt
        elif d.acc_on and self.rng.random() < self.fault_rate_per_hour * dt / 3600.0:
            self.start_fault()

    def stream(self) -> EngineDataStream:
        """The 0x02 engine and after-treatment data stream now, in its wire resolution."""
        d, e = self.drive, self.engine
        nox_up = 150.0 + e.torque_pct * 11.0 if e.rpm else 0.0
        efficiency = 0.92 if e.scr_in_c > 200.0 and self.reagent_pct > 0 else 0.3
        if self.fault_code == FAULT_CODES[0] and self.fault_left_s > 0:
            efficiency = 0.45  # the SCR fault the MIL reports
        flow = e.rpm * (0.2 + e.torque_pct / 100.0) * 0.6
        values = {
            "speed_kmh": d.speed_kmh, "atmospheric_pressure_kpa": 101.0, "engine_torque_pct": e.torque_pct,
            "friction_torque_pct": 10.0 if e.rpm else 0.0, "engine_speed_rpm": e.rpm,
            "fuel_flow_l_per_h": e.rpm * (0.1 + e.torque_pct / 100.0) * 0.02,
            "nox_upstream_ppm": nox_up, "nox_downstream_ppm": nox_up * (1 - efficiency),
            "reagent_level_pct": self.reagent_pct, "intake_air_flow_kg_per_h": flow,
            "scr_inlet_temp_c": e.scr_in_c, "scr_outlet_temp_c": e.scr_in_c - 15.0 if e.rpm else e.scr_in_c,
            "dpf_pressure_difference_kpa": e.soot_kpa + flow / 400.0, "coolant_temp_c": e.coolant_c,
            "tank_level_pct": min(100.0, d.fuel_l / TANK_L * 100.0), "position_status": 0,
            "longitude_deg": d.lng, "latitude_deg": d.lat, "mileage_km": d.mileage_km,
        }
        fields = {f.name: f for f in EngineDataStream.FIELDS}
        quantised: dict[str, Any] = {name: _quantised(fields[name], value) for name, value in values.items()}
        return EngineDataStream(**quantised)

    def obd(self, vin: str) -> ObdInfo:
        """The 0x01 OBD information now: J1939, MIL, readiness, VIN, calibration, the active codes."""
        return ObdInfo(obd_protocol=OBD_J1939, mil=self.mil, diagnosis_supported=DIAGNOSIS_SUPPORTED,
                       diagnosis_ready=DIAGNOSIS_READY, vin=vin, calibration_id="FWSIM-ECU-CAL-0001",
                       cvn="1A2B3C4D", iupr=bytes(36), fault_codes=(self.fault_code,) if self.mil else ())


def _quantised(field: Field, value: float) -> Reading:
    """``value`` as its wire field will carry it (clamped into the field's range)."""
    if field.special is False:
        return int(value)
    top = field.top - 2
    raw = min(top, max(0, round((value - field.offset) / field.scale)))
    return to_value(field, to_raw(field, to_value(field, raw)))
