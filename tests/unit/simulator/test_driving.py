"""The simulator's vehicle runs the demo fleet's one driving model (fleet.driving_model.Drive)."""

import math
import random

from fleet.driving_model import ACCEL_KMH_PER_S, Drive, DrivingModel
from simulator.driving import Sample, Vehicle


def _vehicle(seed: int = 1) -> Vehicle:
    return Vehicle(random.Random(seed), 39.91, 116.39, 5.0)


def _drive(vehicle: Vehicle, reports: int, step_s: float = 5.0) -> list[Sample]:
    samples = []
    for _ in range(reports):
        vehicle.advance(step_s)
        samples.append(vehicle.sample())
    return samples


def test_same_seed_gives_the_same_track() -> None:
    assert _drive(_vehicle(7), 300) == _drive(_vehicle(7), 300)
    assert _drive(_vehicle(7), 50) != _drive(_vehicle(8), 50)


def test_stays_near_its_radius() -> None:
    vehicle = _vehicle(3)
    vehicle.start_trip()
    m_per_deg_lng = 111_320.0 * math.cos(math.radians(39.91))
    for s in _drive(vehicle, 20_000):
        dx, dy = (s.lng - 116.39) * m_per_deg_lng, (s.lat - 39.91) * 111_320.0
        assert math.hypot(dx, dy) <= 5000.0 + 110 / 3.6 * 5  # turns back within one step of the edge


def test_speed_rises_within_the_acceleration_limit() -> None:
    vehicle = _vehicle(5)
    previous = 0.0
    for s in _drive(vehicle, 20_000, step_s=1.0):
        assert s.speed_kmh - previous <= ACCEL_KMH_PER_S + 0.1
        previous = s.speed_kmh


def test_mileage_increases_consistently_with_the_speeds() -> None:
    samples = _drive(_vehicle(11), 2000)
    mileages = [s.mileage_km for s in samples]
    assert all(b >= a for a, b in zip(mileages, mileages[1:], strict=False))
    assert mileages[-1] > mileages[0]
    top = max(s.speed_kmh for s in samples)
    assert max(b - a for a, b in zip(mileages, mileages[1:], strict=False)) <= top / 3.6 * 5 / 1000 + 0.1


def test_parks_with_acc_off_and_idles_with_acc_on() -> None:
    samples = _drive(_vehicle(2), 17_280)  # a day at 5 s
    assert any(not s.acc_on and s.speed_kmh == 0 for s in samples)
    assert any(s.acc_on and s.speed_kmh == 0 for s in samples)  # idling
    assert any(s.speed_kmh > 30 for s in samples)
    assert all(s.positioned and s.status_flags & 0b10 for s in samples)


def test_a_speeding_vehicle_drives_faster_than_the_limit() -> None:
    normal, speeding = _vehicle(4), _vehicle(4)
    for v in (normal, speeding):
        v.start_trip()
    speeding.speeding = True
    assert not any(s.speed_kmh > s.limit_kmh for s in _drive(normal, 1000, step_s=2.0))
    assert any(s.speed_kmh > s.limit_kmh * 1.1 for s in _drive(speeding, 1000, step_s=2.0))


def test_coordinates_are_near_the_centre() -> None:
    for s in _drive(_vehicle(9), 500):
        assert math.isclose(s.lat, 39.91, abs_tol=0.06)
        assert math.isclose(s.lng, 116.39, abs_tol=0.08)
        assert 0 <= s.direction_deg < 360


def test_a_day_drives_as_far_at_every_step() -> None:
    """Every rate is per second and ramps are integrated exactly: sampled every 5 s (the simulator), 60 s
    (the recent days) or 300 s (the month), the same vehicles drive the same kilometres a day (within 8 %)."""
    def km(step_s: float) -> float:
        total = 0.0
        for seed in range(24):
            drive = Drive(random.Random(seed), DrivingModel())
            start = drive.mileage_km
            for _ in range(int(86_400 / step_s)):
                drive.advance(step_s)
            total += drive.mileage_km - start
        return total

    fine = km(5.0)
    for step_s in (60.0, 300.0):
        assert abs(km(step_s) / fine - 1) <= 0.08, (step_s, fine)
