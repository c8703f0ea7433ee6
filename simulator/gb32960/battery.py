"""A traction battery of 96 cells in series: state of charge, cell voltages, probe temperatures and
insulation, and the alarms a GB/T 32960 terminal reports about them (general alarm flags of table 19,
the highest level, storage fault codes).

Pure and deterministic for a random source. ``step(dt_s, power_kw)`` moves it on: positive power
discharges (driving, auxiliaries), negative power charges. ``snapshot()`` is what a report carries, already
in the wire's resolution (SOC 1 %, pack voltage 0.1 V, current 0.1 A, cells 1 mV, temperatures 1 °C,
insulation 1 kΩ), so a frame decodes to exactly these numbers.

- Cell voltage = open-circuit voltage at the SOC (LFP for buses, NMC for vans) + the cell's own offset
  (normal, σ 4 mV: the realistic spread of a balanced pack) - current × the cell's resistance (σ 5 %),
  so the cells sag under load and rise while charging; the pack voltage is their sum.
- Current (GB/T 32960.3 table 9: positive discharging, negative charging) = power / pack voltage.
- Probe temperatures follow the current's heat towards ambient (time constant 30 minutes), each probe
  with a fixed offset (σ 1 °C).
- Alarms (``BatteryAlarms``): episodes at ``rate_per_hour`` per vehicle-hour, one kind at a time: a cell
  over-temperature (one probe 58-65 °C: flags 1 battery high temperature and 0 temperature difference,
  level 2, storage fault ``FAULT_OVER_TEMPERATURE``), an insulation fault (10-25 kΩ: flag 11, level 3,
  ``FAULT_INSULATION``) or, one episode in ten, a thermal event (one probe 75-90 °C: flags 1 and 0 at level 2
  and the 2025 edition's flag 23 at level 3, ``FAULT_THERMAL_EVENT``; a 2016 terminal has no flag 23 and
  reports the other two); and SOC low (flag 4, level 1) while the SOC is under ``SOC_LOW_PCT``. Each set flag's
  own level is in ``alarm_levels`` (the 2025 edition's general fault list).
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field

from protocols.gb32960.messages import GeneralAlarm
from protocols.gb32960.messages.blocks_2025 import GeneralAlarm2025

CELLS = 96
PROBES = 32  # one probe per three cells
SOC_LOW_PCT = 15
FAULT_OVER_TEMPERATURE = 0x0B010001  # storage fault codes (vendor-defined in the standard)
FAULT_INSULATION = 0x0B020001
FAULT_THERMAL_EVENT = 0x0B010002
KINDS = ("over_temperature", "insulation", "thermal_event")
KIND_WEIGHTS = (45, 45, 10)
AMBIENT_C = 22.0
HEAT_TAU_S = 1800.0
INSULATION_NORMAL_KOHM = (18_000, 24_000)

# Open-circuit voltage (V) by SOC (%), piecewise linear.
OCV_LFP = ((0, 2.90), (5, 3.15), (10, 3.21), (30, 3.26), (60, 3.29), (90, 3.33), (98, 3.38), (100, 3.45))
OCV_NMC = ((0, 3.30), (10, 3.56), (30, 3.68), (50, 3.77), (70, 3.89), (90, 4.07), (100, 4.18))


def ocv(curve: tuple[tuple[float, float], ...], soc_pct: float) -> float:
    socs = [s for s, _ in curve]
    i = min(max(bisect.bisect_right(socs, soc_pct), 1), len(curve) - 1)
    (s0, v0), (s1, v1) = curve[i - 1], curve[i]
    return v0 + (v1 - v0) * (min(max(soc_pct, s0), s1) - s0) / (s1 - s0)


@dataclass(frozen=True)
class PackSpec:
    """A vehicle's pack and how it uses energy."""

    kind: str
    capacity_kwh: float
    ocv: tuple[tuple[float, float], ...]
    cell_resistance_ohm: float
    charge_power_kw: float  # at the depot's charger, tapering above 80 % SOC
    kwh_per_km: float  # at 40 km/h; more at higher speeds (drag)
    aux_kw: float  # auxiliaries while the vehicle is on (air conditioning, DC-DC)
    motors: int
    rpm_per_kmh: float  # motor speed per road speed (wheel and reduction gear)
    cells: int = CELLS
    probes: int = PROBES


BUS = PackSpec("bus", 280.0, OCV_LFP, 0.0004, 150.0, 1.1, 6.0, 2, 30.0)
VAN = PackSpec("van", 60.0, OCV_NMC, 0.0012, 40.0, 0.18, 1.2, 1, 80.0)
# A fuel-cell bus's buffer pack (simulator.gb32960.ev.FuelCellBus): small, never plugged in (its stack charges it).
FCBUS = PackSpec("fcbus", 80.0, OCV_LFP, 0.0008, 0.0, 1.0, 6.0, 1, 30.0)
SPECS = {"bus": BUS, "van": VAN, "fcbus": FCBUS}


@dataclass(frozen=True)
class BatterySnapshot:
    """One report's battery readings, in the wire's resolution."""

    soc_pct: int
    total_voltage_v: float
    total_current_a: float
    cell_voltages_v: tuple[float, ...]
    probe_temps_c: tuple[int, ...]
    insulation_kohm: int
    storage_faults: tuple[int, ...]
    alarm_levels: tuple[tuple[int, int], ...] = ()  # (flag bit, its level) of each set flag, lowest bit first

    @property
    def alarm_flags(self) -> int:
        return sum(1 << bit for bit, _ in self.alarm_levels)

    @property
    def alarm_level(self) -> int:
        """The highest level of the set flags (0: none)."""
        return max((level for _, level in self.alarm_levels), default=0)

    @property
    def general(self) -> GeneralAlarm:
        return GeneralAlarm(self.alarm_flags)


@dataclass
class BatteryAlarms:
    """Which battery alarm episode runs (module doc). Draws from its own random source."""

    rng: random.Random
    rate_per_hour: float = 0.5
    kind: str | None = None  # one of KINDS
    left_s: float = 0.0
    probe: int = 0
    episodes: int = 0

    def step(self, dt_s: float, active: bool) -> None:
        """Age the running episode; maybe start one (only while the vehicle is on or charging)."""
        if self.kind is not None:
            self.left_s -= dt_s
            if self.left_s <= 0:
                self.kind = None
        elif active and self.rate_per_hour > 0 and self.rng.random() < self.rate_per_hour * dt_s / 3600.0:
            self.start(self.rng.choices(KINDS, KIND_WEIGHTS)[0])

    def start(self, kind: str, seconds: float | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown battery alarm {kind!r}")
        self.kind, self.episodes = kind, self.episodes + 1
        self.left_s = seconds if seconds is not None else self.rng.uniform(120.0, 600.0)
        self.probe = self.rng.randrange(PROBES)


@dataclass
class Battery:
    spec: PackSpec
    rng: random.Random
    soc: float = 60.0  # %, not rounded
    current_a: float = 0.0
    pack_temp_c: float = AMBIENT_C
    alarms: BatteryAlarms = field(init=False)
    alarm_rate_per_hour: float = 0.5

    def __post_init__(self) -> None:
        rng = self.rng
        self.cell_offsets_v = tuple(max(-0.012, min(0.012, rng.gauss(0.0, 0.004))) for _ in range(self.spec.cells))
        self.cell_r_ohm = tuple(self.spec.cell_resistance_ohm * max(0.85, rng.gauss(1.0, 0.05))
                                for _ in range(self.spec.cells))
        self.probe_offsets_c = tuple(rng.gauss(0.0, 1.0) for _ in range(self.spec.probes))
        self.insulation_kohm = rng.randint(*INSULATION_NORMAL_KOHM)
        self.alarms = BatteryAlarms(random.Random(rng.random()), self.alarm_rate_per_hour)

    @property
    def voltage_v(self) -> float:
        """Open-circuit pack voltage (what the current is computed from)."""
        return ocv(self.spec.ocv, self.soc) * self.spec.cells

    def step(self, dt_s: float, power_kw: float, *, active: bool = True) -> None:
        """``dt_s`` seconds at ``power_kw`` (positive discharging, negative charging)."""
        self.current_a = power_kw * 1000.0 / self.voltage_v
        self.soc = min(100.0, max(0.0, self.soc - power_kw * dt_s / 3600.0 / self.spec.capacity_kwh * 100.0))
        target = AMBIENT_C + abs(self.current_a) * self.spec.cell_resistance_ohm * 60.0
        self.pack_temp_c += (target - self.pack_temp_c) * min(1.0, dt_s / HEAT_TAU_S)
        self.alarms.step(dt_s, active)

    def snapshot(self) -> BatterySnapshot:
        open_v = ocv(self.spec.ocv, self.soc)
        cell_mv = [round((open_v + off - self.current_a * r) * 1000)
                   for off, r in zip(self.cell_offsets_v, self.cell_r_ohm, strict=True)]
        temps = [round(self.pack_temp_c + off) for off in self.probe_offsets_c]
        insulation, faults = self.insulation_kohm, []
        levels: dict[int, int] = {}  # flag -> its level
        kind = self.alarms.kind
        if kind in ("over_temperature", "thermal_event"):
            hot = 58 + self.alarms.probe % 8 if kind == "over_temperature" else 75 + self.alarms.probe % 16
            temps[self.alarms.probe] = hot  # 58-65 °C on one probe; 75-90 °C in a thermal event
            levels[GeneralAlarm.BATTERY_HIGH_TEMPERATURE] = levels[GeneralAlarm.TEMPERATURE_DIFFERENCE] = 2
            faults = [FAULT_OVER_TEMPERATURE]
            if kind == "thermal_event":
                levels[GeneralAlarm2025.BATTERY_THERMAL_EVENT] = 3
                faults = [FAULT_THERMAL_EVENT]
        elif kind == "insulation":
            insulation = 10 + self.alarms.probe // 2  # 10-25 kΩ: under GB 18384's 100 Ω/V of a 300-400 V pack
            levels[GeneralAlarm.INSULATION], faults = 3, [FAULT_INSULATION]
        soc_pct = round(self.soc)
        if soc_pct < SOC_LOW_PCT:
            levels[GeneralAlarm.SOC_LOW] = 1
        return BatterySnapshot(
            soc_pct=soc_pct, total_voltage_v=round(sum(cell_mv) / 100) / 10,
            total_current_a=round(self.current_a * 10) / 10, cell_voltages_v=tuple(mv / 1000 for mv in cell_mv),
            probe_temps_c=tuple(temps), insulation_kohm=insulation, storage_faults=tuple(faults),
            alarm_levels=tuple(sorted((flag.bit_length() - 1, level) for flag, level in levels.items())))
