"""One virtual vehicle of the simulator, driven by the demo fleet's one driving model
(``fleet.driving_model.Drive``, the model the seeded history runs too), so a live vehicle-day drives the
same kilometres as a seeded one. ``sample()`` turns the model's state into a report's worth of domain
units. Alarms are `simulator.alarms`' business: it sets `speeding` for an overspeed episode (the vehicle
then drives faster than the limit).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from fleet.driving_model import Drive, DrivingModel

STATUS_ACC_ON = 1 << 0
STATUS_POSITIONED = 1 << 1


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
    limit_kmh: float = 0.0  # the speed limit (what an overspeed alarm compares with)

    @property
    def status_flags(self) -> int:
        return (STATUS_ACC_ON if self.acc_on else 0) | (STATUS_POSITIONED if self.positioned else 0)


class Vehicle:
    def __init__(self, rng: random.Random, centre_lat: float, centre_lng: float, radius_km: float,
                 model: DrivingModel | None = None, *, mileage_km: float | None = None) -> None:
        """``mileage_km``: the odometer to go on from (the vehicle's last stored reading), else a random one."""
        model = replace(model or DrivingModel(), centre_lat=centre_lat, centre_lng=centre_lng, radius_km=radius_km)
        self.drive = Drive(rng, model, mileage_km=mileage_km)

    @property
    def speeding(self) -> bool:
        return self.drive.speeding

    @speeding.setter
    def speeding(self, value: bool) -> None:
        self.drive.speeding = value

    def start_trip(self) -> None:
        """Leave the current stop now (tests that need a moving vehicle)."""
        self.drive.start_trip()

    def advance(self, dt_s: float) -> None:
        """Move the model forward by ``dt_s`` seconds."""
        self.drive.advance(dt_s)

    def sample(self) -> Sample:
        """The state to report now (no alarm flags: simulator.alarms adds them)."""
        d = self.drive
        return Sample(lat=round(d.lat, 6), lng=round(d.lng, 6), altitude_m=round(d.altitude_m),
                      speed_kmh=round(d.speed_kmh, 1), direction_deg=int(d.heading) % 360,
                      mileage_km=round(d.mileage_km, 1), acc_on=d.acc_on, positioned=True,
                      limit_kmh=d.m.limit_kmh)
