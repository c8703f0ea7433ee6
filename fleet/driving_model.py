"""The demo fleet's one driving model: how a vehicle drives, parks and raises alarms.

The seeded history (``warehouse.history``: the month of report history and the recent days) and the live
simulator (``simulator.driving`` / ``simulator.alarms``) both run these rules, so a seeded vehicle-day and a
live one drive the same kilometres and raise the same alarms (terminal bits and ADAS / DSM events, in the
same proportions): the dashboard's and cockpit's trends do not jump where seeded days meet live ones.

``Drive`` moves one vehicle: trips along a heading that turns now and then and that turns back towards the
centre at ``radius_km``, speed approaching a target with bounded acceleration and braking, short idles (ACC
on, speed 0) and parks (ACC off) between trips, around the clock (a fleet that works in shifts: the live
demo moves whenever it is run). Its results do not depend on the step: ``advance`` integrates in steps of at
most ``step_s`` and every rate is per second, so a track sampled every 5 s (simulator), 60 s (recent days)
or 300 s (the month) drives alike.

``AlarmMix`` decides the alarms: terminal-bit episodes per hour with the ACC on (overspeed, fatigue, main
power low, emergency held until confirmed or released) and active-safety events per hour of driving (ADAS
types 1-3, DSM types 1-4, level 1 twice as often as 2). It draws from its own random source, so alarms never
change the track. Deterministic for given random sources.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fleet.settings import SimulatorSettings

M_PER_DEG_LAT = 111_320.0
ACCEL_KMH_PER_S = 1.0
BRAKE_KMH_PER_S = 3.0
CORNER_EVERY_S = 120.0
CORNER_KMH = 25.0
CRUISE_KMH = (30.0, 85.0)
OVERSPEED_FACTOR = 1.15  # how much faster than the limit a speeding driver goes
DRIVING_KMH = 5.0

EMERGENCY, OVERSPEED, FATIGUE, POWER_LOW = 1 << 0, 1 << 1, 1 << 2, 1 << 7
EMERGENCY_RELEASE_S = 1800.0  # a driver resets the panic button after half an hour if nobody confirms
# share of terminal-bit episodes per kind, and how long each lasts
TERMINAL_KINDS: tuple[tuple[str, float], ...] = (("overspeed", 0.5), ("fatigue", 0.2), ("power_low", 0.15),
                                                 ("emergency", 0.15))
DURATIONS_S = {"overspeed": (30.0, 120.0), "fatigue": (120.0, 600.0), "power_low": (60.0, 300.0)}
ADAS_TYPES = (1, 2, 3)
DSM_TYPES = (1, 2, 3, 4)


@dataclass(frozen=True)
class DrivingModel:
    centre_lng: float = 116.39
    centre_lat: float = 39.91
    radius_km: float = 15.0
    limit_kmh: float = 90.0
    alarm_rate_per_hour: float = 4.0  # terminal-bit episodes per vehicle-hour with the ACC on
    safety_alarm_rate_per_hour: float = 10.0  # ADAS / DSM events per vehicle-hour of driving
    step_s: float = 60.0  # longest integration step, whatever the fix interval

    @classmethod
    def from_settings(cls, settings: SimulatorSettings) -> DrivingModel:
        """The model the live simulator runs (its centre, radius and alarm rates): the seeds use it too."""
        return cls(centre_lng=settings.centre_lng, centre_lat=settings.centre_lat, radius_km=settings.radius_km,
                   alarm_rate_per_hour=settings.alarm_rate_per_hour,
                   safety_alarm_rate_per_hour=settings.safety_alarm_rate_per_hour)


class Drive:
    """One vehicle's motion. Position in degrees, speed in km/h, odometer in km, fuel in litres."""

    def __init__(self, rng: random.Random, model: DrivingModel | None = None, *, lng: float | None = None,
                 lat: float | None = None, mileage_km: float | None = None, fuel_l: float | None = None) -> None:
        """``lng``/``lat``/``mileage_km``/``fuel_l``: where the vehicle goes on from (its last stored fix), else
        random ones (drawn all the same, so the rest of the run does not depend on what was given)."""
        self.rng, self.m = rng, model or DrivingModel()
        self.m_per_deg_lng = M_PER_DEG_LAT * math.cos(math.radians(self.m.centre_lat))
        r = self.m.radius_km * 1000 * math.sqrt(rng.random()) * 0.8
        angle = rng.uniform(0, 2 * math.pi)
        self.lng = self.m.centre_lng + r * math.cos(angle) / self.m_per_deg_lng
        self.lat = self.m.centre_lat + r * math.sin(angle) / M_PER_DEG_LAT
        self.heading = rng.uniform(0, 360)
        self.mileage_km = rng.uniform(1_000, 200_000)
        self.fuel_l = rng.uniform(60, 200)
        self.altitude_m = rng.uniform(30, 80)
        self.speed_kmh, self.target_kmh = 0.0, rng.uniform(*CRUISE_KMH)
        # start as a fleet already at work: about half the vehicles driving, the rest stopped
        self.mode = "drive" if rng.random() < 0.5 else "park"
        self.mode_left_s = rng.uniform(0, 3600 if self.mode == "drive" else 1800)
        self.speeding = False  # set by AlarmMix for an overspeed episode
        if lng is not None and lat is not None:
            self.lng, self.lat = lng, lat
        if mileage_km is not None:
            self.mileage_km = mileage_km
        if fuel_l is not None:
            self.fuel_l = fuel_l

    @property
    def acc_on(self) -> bool:
        return self.mode != "park"

    @property
    def driving(self) -> bool:
        return self.mode == "drive" and self.speed_kmh >= DRIVING_KMH

    def start_trip(self) -> None:
        """Leave the current stop now (tests and demos that need a moving vehicle)."""
        self.mode, self.mode_left_s = "drive", self.rng.uniform(600, 3600)

    def distance_m(self, lng: float, lat: float) -> float:
        """Metres from here to (``lng``, ``lat``) on the model's local plane."""
        return math.hypot((lng - self.lng) * self.m_per_deg_lng, (lat - self.lat) * M_PER_DEG_LAT)

    def head_to(self, lng: float, lat: float) -> None:
        """Drive towards (``lng``, ``lat``) from now (an electric vehicle going back to its depot to charge):
        the heading points there and the trip lasts at least 10 more minutes; call it again as it moves,
        since the trip's own turns still apply."""
        self.heading = math.degrees(math.atan2((lng - self.lng) * self.m_per_deg_lng,
                                               (lat - self.lat) * M_PER_DEG_LAT)) % 360
        if self.mode != "drive":
            self.mode, self.target_kmh = "drive", self.rng.uniform(*CRUISE_KMH)
        self.mode_left_s = max(self.mode_left_s, 600.0)

    def park_for(self, seconds: float) -> None:
        """Stop here with the ACC off for ``seconds`` (charging at the depot), then trips resume."""
        self.mode, self.mode_left_s, self.speed_kmh = "park", max(seconds, 1.0), 0.0

    def advance(self, dt_s: float) -> None:
        """Move forward by ``dt_s`` seconds, in steps of at most ``step_s``."""
        steps = max(1, math.ceil(dt_s / self.m.step_s - 1e-9))
        for _ in range(steps):
            self._step(dt_s / steps)

    def _step(self, dt: float) -> None:
        rng, m = self.rng, self.m
        self.mode_left_s -= dt
        if self.mode_left_s <= 0:
            self._next_mode()
        if self.mode != "drive":
            self.speed_kmh = 0.0
            return
        if rng.random() < dt / CORNER_EVERY_S and not self.speeding:  # a speeding driver keeps straight on
            self.heading = (self.heading + rng.choice((-90, 90, -30, 30))) % 360
            self.speed_kmh = min(self.speed_kmh, CORNER_KMH)
            self.target_kmh = rng.uniform(*CRUISE_KMH)
        self.heading = (self.heading + rng.uniform(-4, 4) * math.sqrt(dt / 60)) % 360
        dx, dy = (self.lng - m.centre_lng) * self.m_per_deg_lng, (self.lat - m.centre_lat) * M_PER_DEG_LAT
        if math.hypot(dx, dy) > m.radius_km * 1000:  # at the edge: head back towards the centre
            self.heading = (math.degrees(math.atan2(-dx, -dy)) + rng.uniform(-20, 20)) % 360
        metres = self._accelerate(dt) / 3.6
        rad = math.radians(self.heading)
        self.lng += metres * math.sin(rad) / self.m_per_deg_lng
        self.lat += metres * math.cos(rad) / M_PER_DEG_LAT
        self.mileage_km += metres / 1000
        self.fuel_l -= metres / 1000 * 0.1
        if self.fuel_l < 20:
            self.fuel_l = rng.uniform(150, 200)
        self.altitude_m = max(0.0, self.altitude_m + rng.uniform(-0.5, 0.5))

    def _accelerate(self, dt: float) -> float:
        """Speed towards the target at the bounded rates over ``dt``; returns the distance in km/h x s
        (exact for the ramp and the cruise after it, so a long step drives as far as many short ones)."""
        goal = self.m.limit_kmh * OVERSPEED_FACTOR if self.speeding else self.target_kmh
        goal = max(DRIVING_KMH, goal + self.rng.uniform(-2, 2))
        old = self.speed_kmh
        rate = ACCEL_KMH_PER_S if goal > old else BRAKE_KMH_PER_S
        ramp_s = min(dt, abs(goal - old) / rate)
        new = old + math.copysign(rate * ramp_s, goal - old)
        self.speed_kmh = new
        return (old + new) / 2 * ramp_s + new * (dt - ramp_s)

    def _next_mode(self) -> None:
        # the time a mode overran its step is taken from the next one, so modes last as long at every step
        rng = self.rng
        if self.mode == "drive":
            self.mode = "idle" if rng.random() < 0.35 else "park"
            self.mode_left_s += rng.uniform(60, 480) if self.mode == "idle" else rng.uniform(300, 5400)
        else:
            self.mode, self.target_kmh = "drive", rng.uniform(*CRUISE_KMH)
            self.mode_left_s += rng.uniform(600, 3600)
        self.mode_left_s = max(self.mode_left_s, 1.0)


@dataclass(frozen=True)
class SafetyDraw:
    """One active-safety event: ADAS (0x64) or DSM (0x65), its type and level."""

    adas: bool
    type: int
    level: int

    @property
    def key(self) -> str:
        return f"{'adas' if self.adas else 'dsm'}_{self.type}"


@dataclass
class AlarmCounts:
    episodes: int = 0  # terminal-bit episodes started
    safety_events: int = 0


@dataclass
class AlarmMix:
    """Which alarms a vehicle raises (module doc); ``step`` once per fix interval, then ``flags``."""

    rng: random.Random
    model: DrivingModel = field(default_factory=DrivingModel)
    held: int = 0  # bits held until confirmed or released (emergency)
    counts: AlarmCounts = field(default_factory=AlarmCounts)

    def __post_init__(self) -> None:
        self._held_s = 0.0
        self._left_s: dict[str, float] = {}  # running episodes: kind -> seconds left

    @property
    def speeding(self) -> bool:
        return "overspeed" in self._left_s

    def step(self, dt_s: float, acc_on: bool, driving: bool) -> SafetyDraw | None:
        """Age the running episodes by ``dt_s``, maybe start one, maybe draw an active-safety event."""
        self._age(dt_s)
        if acc_on and self._draw(self.model.alarm_rate_per_hour, dt_s):
            self._start_episode(driving)
        if driving and self._draw(self.model.safety_alarm_rate_per_hour, dt_s):
            adas = self.rng.random() < 0.5
            self.counts.safety_events += 1
            return SafetyDraw(adas, self.rng.choice(ADAS_TYPES if adas else DSM_TYPES), self.rng.choice((1, 1, 2)))
        return None

    def flags(self, speed_kmh: float, limit_kmh: float) -> int:
        """The 0x0200 alarm bits now: overspeed only while really faster than the limit."""
        flags = self.held
        if self.speeding and limit_kmh and speed_kmh > limit_kmh:
            flags |= OVERSPEED
        if "fatigue" in self._left_s:
            flags |= FATIGUE
        if "power_low" in self._left_s:
            flags |= POWER_LOW
        return flags

    def confirm(self, bits: int) -> int:
        """Release the held bits among ``bits`` (the platform confirmed them); returns those released."""
        released = self.held & bits
        self.held &= ~released
        return released

    def _draw(self, rate_per_hour: float, dt_s: float) -> bool:
        return rate_per_hour > 0 and self.rng.random() < rate_per_hour * dt_s / 3600.0

    def _age(self, dt_s: float) -> None:
        for kind in list(self._left_s):
            self._left_s[kind] -= dt_s
            if self._left_s[kind] <= 0:
                del self._left_s[kind]
        if self.held:
            self._held_s += dt_s
            if self._held_s >= EMERGENCY_RELEASE_S:
                self.held = 0

    def _start_episode(self, driving: bool) -> None:
        kinds, weights = zip(*TERMINAL_KINDS, strict=True)
        kind = self.rng.choices(kinds, weights=weights)[0]
        if kind in ("overspeed", "fatigue") and not driving:
            return  # only a moving vehicle speeds or tires its driver
        self.counts.episodes += 1
        if kind == "emergency":
            self.held |= EMERGENCY
            self._held_s = 0.0
            return
        self._left_s[kind] = self.rng.uniform(*DURATIONS_S[kind])
