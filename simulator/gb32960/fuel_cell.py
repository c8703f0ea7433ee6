"""A fuel-cell bus's hydrogen system: the stack that follows the traction demand and keeps the buffer battery near
its target charge, and the tank it empties (refilled at the depot's hydrogen station).

- The stack's set point is the vehicle's demand plus ``RECHARGE_KW_PER_PCT`` for every point the battery is
  below ``TARGET_SOC_PCT`` (less above it), between 0 and its rated power, reached at most ``RAMP_KW_PER_S`` a
  second (a stack follows slowly; the battery takes the peaks and the braking). The battery carries the rest.
- Hydrogen used = the stack's electric energy / ``kwh_per_kg`` (about half of hydrogen's 33.3 kWh/kg lower
  heating value); the tank's pressure is proportional to what is left (35 MPa full).
- The stack's voltage falls with its current (a linear polarisation curve per cell), its coolant outlet warms
  towards 55-75 ℃ with its load; its inlet pressures rise with the air and hydrogen it draws.
- Deterministic for its random source (the probes' offsets).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TARGET_SOC_PCT = 60.0
RECHARGE_KW_PER_PCT = 2.0
RAMP_KW_PER_S = 10.0
REFUEL_KG_PER_S = 25.0 / 600.0  # a full tank in about ten minutes
HEAT_TAU_S = 300.0
AMBIENT_C = 22.0
DCDC_WORKING, DCDC_OFF = 1, 2  # GB/T 32960.3 table 13's DC-DC state


@dataclass(frozen=True)
class FuelCellSpec:
    cells: int = 400             # in series: ~320 V at rated load
    rated_kw: float = 110.0
    tank_kg: float = 25.0        # usable hydrogen at 35 MPa
    tank_mpa: float = 35.0
    kwh_per_kg: float = 16.5
    open_cell_v: float = 0.98
    cell_ohm: float = 0.00055    # the polarisation curve's slope per cell (V per A)
    coolant_probes: int = 2
    fuel_cell_probes: int = 4


BUS_STACK = FuelCellSpec()  # the demo fuel-cell bus's stack and tank


@dataclass(frozen=True)
class FuelCellSnapshot:
    """One report's fuel-cell readings, in the wire's resolution."""

    voltage_v: float
    current_a: float
    h2_consumption_kg_per_100km: float
    h2_remaining_pct: int
    tank_pressure_mpa: float
    h2_temp_c: float
    probe_temps_c: tuple[int, ...]
    coolant_outlet_temps_c: tuple[int, ...]
    h2_inlet_pressure_kpa: float
    air_inlet_pressure_kpa: float
    air_inlet_temp_c: int
    dcdc: int
    dcdc_controller_temp_c: int


@dataclass
class FuelCellSystem:
    spec: FuelCellSpec
    rng: random.Random
    h2_kg: float = 0.0
    power_kw: float = 0.0
    stack_temp_c: float = AMBIENT_C
    _kg_per_km: float = 0.08  # the recent consumption, for the report's kg/100 km
    _probe_offsets: tuple[float, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        self._probe_offsets = tuple(self.rng.gauss(0.0, 1.2)
                                    for _ in range(self.spec.coolant_probes + self.spec.fuel_cell_probes))

    @property
    def remaining_pct(self) -> float:
        return 100.0 * self.h2_kg / self.spec.tank_kg

    def step(self, dt_s: float, demand_kw: float, soc_pct: float, km: float, *, on: bool) -> float:
        """``dt_s`` seconds of a vehicle drawing ``demand_kw`` (negative: braking) whose battery is at
        ``soc_pct`` and which drove ``km``: the stack's new output, the hydrogen it used. Returns the power
        the battery carries (positive discharging)."""
        target = 0.0
        if on and self.h2_kg > 0:
            target = min(self.spec.rated_kw, max(0.0, demand_kw + (TARGET_SOC_PCT - soc_pct) * RECHARGE_KW_PER_PCT))
        ramp = RAMP_KW_PER_S * dt_s
        self.power_kw += max(-ramp, min(ramp, target - self.power_kw))
        used = min(self.h2_kg, self.power_kw * dt_s / 3600.0 / self.spec.kwh_per_kg)
        self.h2_kg -= used
        if km > 0.01:
            self._kg_per_km += (used / km - self._kg_per_km) * min(1.0, km / 5.0)
        heat_target = AMBIENT_C + (33.0 + 20.0 * self.power_kw / self.spec.rated_kw if self.power_kw > 0 else 0.0)
        self.stack_temp_c += (heat_target - self.stack_temp_c) * min(1.0, dt_s / HEAT_TAU_S)
        return demand_kw - self.power_kw

    def refuel(self, dt_s: float) -> None:
        self.h2_kg = min(self.spec.tank_kg, self.h2_kg + REFUEL_KG_PER_S * dt_s)

    def snapshot(self) -> FuelCellSnapshot:
        s = self.spec
        on = self.power_kw > 0.5
        # V = n (V0 - r I) and P = V I: the current of the stack's output on its polarisation curve
        a, b, c = s.cells * s.cell_ohm, -s.cells * s.open_cell_v, self.power_kw * 1000.0
        current = (-b - (b * b - 4 * a * c) ** 0.5) / (2 * a) if on else 0.0
        voltage = s.cells * (s.open_cell_v - s.cell_ohm * current) if on else 0.0
        load = self.power_kw / s.rated_kw
        offsets = self._probe_offsets
        coolant = tuple(round(self.stack_temp_c + off) for off in offsets[: s.coolant_probes])
        probes = tuple(round(self.stack_temp_c - 3 + off) for off in offsets[s.coolant_probes:])
        return FuelCellSnapshot(
            voltage_v=round(voltage, 1), current_a=round(current, 1),
            h2_consumption_kg_per_100km=round(self._kg_per_km * 100, 2), h2_remaining_pct=round(self.remaining_pct),
            tank_pressure_mpa=round(s.tank_mpa * self.h2_kg / s.tank_kg, 1), h2_temp_c=round(AMBIENT_C + 3 * load, 1),
            probe_temps_c=probes, coolant_outlet_temps_c=coolant,
            h2_inlet_pressure_kpa=round(120.0 + 60.0 * load, 1) if on else 0.0,
            air_inlet_pressure_kpa=round(110.0 + 70.0 * load, 1) if on else 0.0,
            air_inlet_temp_c=round(AMBIENT_C + 15 * load), dcdc=DCDC_WORKING if on else DCDC_OFF,
            dcdc_controller_temp_c=round(AMBIENT_C + 8 + 20 * load))
