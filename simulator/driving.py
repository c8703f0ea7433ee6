"""A road-like driving model for one virtual vehicle, deterministic for a given random source.

Streets form a grid (`block_m` apart, every `main_every`th street a main road with a higher limit)
around a centre; the vehicle drives from intersection to intersection, turns, accelerates and brakes
with bounded rates, stops at red lights, and after each trip parks with the ACC off. It never leaves
`radius_km`: at the edge it turns back towards the centre. Units are SI inside (m, m/s, s) and converted
once in `sample()` (km/h, km, degrees). Alarms are `simulator.alarms`' business: it sets `speeding`
for an overspeed episode (the vehicle then drives 30% above the street's limit).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

EARTH_M_PER_DEG_LAT = 110_540.0
EARTH_M_PER_DEG_LNG_EQUATOR = 111_320.0

HEADINGS_DEG = (0, 90, 180, 270)  # north, east, south, west
_UNIT = {0: (0.0, 1.0), 90: (1.0, 0.0), 180: (0.0, -1.0), 270: (-1.0, 0.0)}

STATUS_ACC_ON = 1 << 0
STATUS_POSITIONED = 1 << 1


@dataclass(frozen=True)
class DrivingParams:
    block_m: float = 400.0
    main_every: int = 4
    main_limit_kmh: float = 60.0
    side_limit_kmh: float = 40.0
    accel_mps2: float = 1.5
    brake_mps2: float = 2.5
    turn_speed_kmh: float = 20.0
    red_light_probability: float = 0.35
    red_light_s: tuple[float, float] = (15.0, 60.0)
    trip_s: tuple[float, float] = (600.0, 2400.0)
    parking_s: tuple[float, float] = (120.0, 900.0)
    overspeed_factor: float = 1.3  # how much faster than the limit a speeding vehicle drives


@dataclass(frozen=True)
class Sample:
    """One report's worth of vehicle state, in domain units."""

    lat: float
    lng: float
    altitude_m: int
    speed_kmh: float
    direction_deg: int
    mileage_km: float
    acc_on: bool
    positioned: bool
    alarm_flags: int = 0
    limit_kmh: float = 0.0  # the street's speed limit (what an overspeed alarm compares with)

    @property
    def status_flags(self) -> int:
        return (STATUS_ACC_ON if self.acc_on else 0) | (STATUS_POSITIONED if self.positioned else 0)


class Vehicle:
    def __init__(self, rng: random.Random, centre_lat: float, centre_lng: float, radius_km: float,
                 params: DrivingParams | None = None, *, mileage_km: float | None = None) -> None:
        """``mileage_km``: the odometer to go on from (the vehicle's last stored reading), else a random one."""
        self.rng = rng
        self.p = params or DrivingParams()
        self.centre_lat, self.centre_lng = centre_lat, centre_lng
        self.radius_m = radius_km * 1000.0
        self._m_per_deg_lng = EARTH_M_PER_DEG_LNG_EQUATOR * math.cos(math.radians(centre_lat))
        blocks = max(1, int(self.radius_m * 0.7 / self.p.block_m))
        self.x = rng.randint(-blocks, blocks) * self.p.block_m
        self.y = rng.randint(-blocks, blocks) * self.p.block_m
        self.heading = rng.choice(HEADINGS_DEG)
        self.speed_mps = 0.0
        self.to_next_m = self.p.block_m
        self.stop_at_next = False
        self.light_wait_s = 0.0
        self.parked_s = rng.uniform(0, 60.0)  # staggered starts
        self.trip_left_s = rng.uniform(*self.p.trip_s)
        self.mileage_m = rng.uniform(1_000.0, 200_000.0) * 1000.0  # odometer at start
        if mileage_km is not None:  # drawn above all the same, so the rest of the run does not change
            self.mileage_m = mileage_km * 1000.0
        self.altitude_m = rng.randint(30, 80)
        self.speeding = False  # set by simulator.alarms for an overspeed episode

    # ---------------------------------------------------------------- geometry

    def street_limit_kmh(self) -> float:
        street = self.x if self.heading in (0, 180) else self.y  # the coordinate fixed along this street
        index = round(street / self.p.block_m)
        return self.p.main_limit_kmh if index % self.p.main_every == 0 else self.p.side_limit_kmh

    def _limit_mps(self) -> float:
        limit = self.street_limit_kmh()
        return (limit * self.p.overspeed_factor if self.speeding else limit) / 3.6

    def distance_from_centre_m(self) -> float:
        return math.hypot(self.x, self.y)

    def _choose_heading(self) -> int:
        options = [self.heading, (self.heading + 90) % 360, (self.heading + 270) % 360]
        weights = [0.6, 0.2, 0.2]
        limit = self.radius_m * 0.9
        inside = []
        for h in options:
            dx, dy = _UNIT[h]
            if math.hypot(self.x + dx * self.p.block_m, self.y + dy * self.p.block_m) <= limit:
                inside.append(h)
        if not inside:  # at the edge: the way that gets closest to the centre, U-turn included
            return min(HEADINGS_DEG, key=lambda h: math.hypot(self.x + _UNIT[h][0] * self.p.block_m,
                                                               self.y + _UNIT[h][1] * self.p.block_m))
        return self.rng.choices(inside, weights=[weights[options.index(h)] for h in inside])[0]

    # ---------------------------------------------------------------- motion

    def advance(self, dt_s: float) -> None:
        """Move the model forward by `dt_s` seconds (integrated in steps of at most 1 s)."""
        remaining = dt_s
        while remaining > 1e-9:
            step = min(1.0, remaining)
            self._step(step)
            remaining -= step

    def _step(self, dt: float) -> None:
        p = self.p
        if self.parked_s > 0:
            self.parked_s -= dt
            self.speed_mps = 0.0
            if self.parked_s <= 0:
                self.trip_left_s = self.rng.uniform(*p.trip_s)
            return
        if self.light_wait_s > 0:
            self.light_wait_s -= dt
            self.speed_mps = 0.0
            return
        self.trip_left_s -= dt
        target = self._limit_mps()
        if self.stop_at_next or self.trip_left_s <= 0:  # brake so as to stop at the intersection
            target = min(target, math.sqrt(2 * p.brake_mps2 * max(0.0, self.to_next_m - 1.0)))
        if self.speed_mps < target:
            self.speed_mps = min(target, self.speed_mps + p.accel_mps2 * dt)
        else:
            self.speed_mps = max(target, self.speed_mps - p.brake_mps2 * dt)
        if self.speed_mps < 0.5 and (self.stop_at_next or self.trip_left_s <= 0):
            self.speed_mps = 0.5  # creep the last metre
        travel = self.speed_mps * dt
        if travel >= self.to_next_m:
            travel = self.to_next_m
            self._move(travel)
            self._at_intersection()
        else:
            self._move(travel)
            self.to_next_m -= travel

    def _move(self, metres: float) -> None:
        dx, dy = _UNIT[self.heading]
        self.x += dx * metres
        self.y += dy * metres
        self.mileage_m += metres

    def _at_intersection(self) -> None:
        p = self.p
        # snap to the grid so rounding never drifts the vehicle off its streets
        self.x = round(self.x / p.block_m) * p.block_m
        self.y = round(self.y / p.block_m) * p.block_m
        self.to_next_m = p.block_m
        if self.trip_left_s <= 0:
            self.speed_mps = 0.0
            self.parked_s = self.rng.uniform(*p.parking_s)
        elif self.stop_at_next:
            self.speed_mps = 0.0
            self.light_wait_s = self.rng.uniform(*p.red_light_s)
        new_heading = self._choose_heading()
        if new_heading != self.heading:
            self.speed_mps = min(self.speed_mps, p.turn_speed_kmh / 3.6)
            self.heading = new_heading
        self.stop_at_next = self.rng.random() < p.red_light_probability

    # ---------------------------------------------------------------- reports

    def sample(self) -> Sample:
        """The state to report now (no alarm flags: simulator.alarms adds them)."""
        lat = self.centre_lat + self.y / EARTH_M_PER_DEG_LAT
        lng = self.centre_lng + self.x / self._m_per_deg_lng
        acc_on = self.parked_s <= 0
        return Sample(lat=round(lat, 6), lng=round(lng, 6), altitude_m=self.altitude_m,
                      speed_kmh=round(self.speed_mps * 3.6, 1), direction_deg=self.heading,
                      mileage_km=round(self.mileage_m / 1000.0, 1), acc_on=acc_on, positioned=True,
                      limit_kmh=self.street_limit_kmh())
