import math
import random
from typing import Any

from simulator.driving import DrivingParams, Sample, Vehicle


def _vehicle(seed: int = 1, **params: Any) -> Vehicle:
    return Vehicle(random.Random(seed), 39.91, 116.39, 5.0, DrivingParams(**params))


def _drive(vehicle: Vehicle, reports: int, step_s: float = 5.0) -> list[Sample]:
    samples = []
    for _ in range(reports):
        vehicle.advance(step_s)
        samples.append(vehicle.sample())
    return samples


def test_same_seed_gives_the_same_track() -> None:
    assert _drive(_vehicle(7), 300) == _drive(_vehicle(7), 300)
    assert _drive(_vehicle(7), 50) != _drive(_vehicle(8), 50)


def test_stays_within_radius_and_on_the_street_grid() -> None:
    vehicle = _vehicle(3, trip_s=(1e9, 1e9), red_light_probability=0.0)
    vehicle.parked_s = 0
    for _ in range(5000):
        vehicle.advance(5.0)
        assert vehicle.distance_from_centre_m() <= 5000.0
        on_x_street = abs(vehicle.x / 400.0 - round(vehicle.x / 400.0)) < 1e-6
        on_y_street = abs(vehicle.y / 400.0 - round(vehicle.y / 400.0)) < 1e-6
        assert on_x_street or on_y_street


def test_speed_changes_within_acceleration_and_braking_limits() -> None:
    vehicle = _vehicle(5)
    previous = 0.0
    for _ in range(3000):
        vehicle.advance(1.0)
        speed = vehicle.speed_mps
        assert speed - previous <= 1.5 + 1e-6
        assert speed <= 60 / 3.6 + 1e-6
        previous = speed


def test_mileage_increases_consistently_with_distance_travelled() -> None:
    samples = _drive(_vehicle(11), 2000)
    mileages = [s.mileage_km for s in samples]
    assert all(b >= a for a, b in zip(mileages, mileages[1:], strict=False))
    assert mileages[-1] > mileages[0]
    # no jump larger than the top speed allows in one 5 s step (plus rounding)
    assert max(b - a for a, b in zip(mileages, mileages[1:], strict=False)) <= 60 / 3.6 * 5 / 1000 + 0.1


def test_parks_with_acc_off_and_stops_at_lights() -> None:
    samples = _drive(_vehicle(2, trip_s=(300.0, 400.0), parking_s=(100.0, 120.0)), 800)
    assert any(not s.acc_on and s.speed_kmh == 0 for s in samples)
    assert any(s.acc_on and s.speed_kmh == 0 for s in samples)  # red light
    assert any(s.speed_kmh > 30 for s in samples)
    assert all(s.positioned for s in samples)
    assert all(s.status_flags & 0b10 for s in samples)


def test_a_speeding_vehicle_drives_faster_than_the_street_limit() -> None:
    normal, speeding = _vehicle(4, trip_s=(1e9, 1e9)), _vehicle(4, trip_s=(1e9, 1e9))
    speeding.speeding = True
    assert not any(s.speed_kmh > s.limit_kmh + 0.1 for s in _drive(normal, 1000, step_s=2.0))
    assert any(s.speed_kmh > s.limit_kmh * 1.2 for s in _drive(speeding, 1000, step_s=2.0))


def test_coordinates_are_near_the_centre() -> None:
    for s in _drive(_vehicle(9), 500):
        assert math.isclose(s.lat, 39.91, abs_tol=0.05)
        assert math.isclose(s.lng, 116.39, abs_tol=0.07)
        assert s.direction_deg in (0, 90, 180, 270)
