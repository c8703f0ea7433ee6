"""A simulated vehicle that drives a given track (tests that need a crossing at a known place and time).

``ScriptedVehicle(track)`` stands in for ``simulator.driving.Vehicle`` in a ``VirtualTerminal``: each
``advance`` moves it to the next (lng, lat, speed km/h) of ``track`` (then it stays at the last one, or
starts over when ``loop``). ``shuttle`` makes a track back and forth along a parallel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fleet.geofence import LocalFrame
from simulator.driving import Sample, Vehicle

TrackPoint = tuple[float, float, float]  # lng, lat, speed km/h


class ScriptedVehicle(Vehicle):
    def __init__(self, track: Sequence[TrackPoint], *, loop: bool = False) -> None:  # no driving model
        if not track:
            raise ValueError("a scripted vehicle needs at least one track point")
        self.track, self.loop = list(track), loop
        self.at = -1  # before the first advance: the first point
        self.mileage_km = 1000.0
        self._speeding = False

    @property
    def speeding(self) -> bool:
        return self._speeding

    @speeding.setter
    def speeding(self, value: bool) -> None:
        self._speeding = value

    def start_trip(self) -> None:
        pass

    def advance(self, dt_s: float) -> None:
        nxt = self.at + 1
        self.at = nxt % len(self.track) if self.loop else min(nxt, len(self.track) - 1)
        self.mileage_km += self.track[self.at][2] * dt_s / 3600

    def sample(self) -> Sample:
        lng, lat, speed = self.track[max(self.at, 0)]
        return Sample(lat=round(lat, 6), lng=round(lng, 6), altitude_m=50, speed_kmh=speed, direction_deg=90,
                      mileage_km=round(self.mileage_km, 1), acc_on=True, positioned=True, limit_kmh=90.0)


def east_of(lng: float, lat: float, metres: float) -> tuple[float, float]:
    """The point ``metres`` east (negative: west) of (lng, lat)."""
    return LocalFrame.at(lng, lat).to_lnglat(metres, 0.0)


def shuttle(lng: float, lat: float, half_span_m: float, speed_kmh: float, step_s: float) -> list[TrackPoint]:
    """Back and forth from ``half_span_m`` west of (lng, lat) to as far east and back, a point every ``step_s``
    at ``speed_kmh`` (loop it for a vehicle that keeps crossing what lies at the middle)."""
    step_m = speed_kmh / 3.6 * step_s
    count = max(1, math.ceil(2 * half_span_m / step_m))
    leg = [(*east_of(lng, lat, -half_span_m + i * 2 * half_span_m / count), speed_kmh) for i in range(count + 1)]
    return leg + leg[-2:0:-1]
