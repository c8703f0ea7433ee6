"""The history loader's driving model (warehouse.history.generate_track): rows a sink could have written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fleet.stops import StopThresholds, detect_stops
from warehouse.history import ACC_ON, POSITIONED, HistoryVehicle, generate_track

VEHICLE = HistoryVehicle(device_id=7, car_id=70, enterprise_id=2)
START = datetime(2026, 5, 1, tzinfo=UTC)


def test_one_fix_per_interval_with_increasing_mileage_and_consistent_bits() -> None:
    rows = list(generate_track(VEHICLE, START, START + timedelta(days=1), 10))
    assert len(rows) == 8640
    assert [r[0] for r in rows[:2]] == [START, START + timedelta(seconds=10)]
    mileage = [r[6] for r in rows]
    assert mileage == sorted(mileage) and mileage[-1] > mileage[0]
    for _at, lng, lat, _alt, speed, direction, _km, fuel, _alarm, status in rows:
        assert status & POSITIONED and 0 <= direction < 360 and fuel > 0
        assert 115 < lng < 118 and 39 < lat < 41  # around the demo's centre (Beijing)
        if not status & ACC_ON:
            assert speed == 0  # parked: engine off, not moving


def test_a_day_has_trips_parks_idles_and_some_alarms() -> None:
    rows = list(generate_track(VEHICLE, START, START + timedelta(days=1), 10))
    assert any(r[4] > 30 for r in rows)  # driving
    assert any(r[8] for r in rows)  # alarm bits set on some fixes
    stops = detect_stops([int(r[0].timestamp() * 1000) for r in rows], [r[4] for r in rows],
                         [bool(r[9] & ACC_ON) for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                         thresholds=StopThresholds())
    kinds = {s.kind for s in stops}
    assert kinds == {"park", "idle"}
    assert max(s.duration_s for s in stops if s.kind == "park") > 1800  # parks between shifts


def test_the_same_seed_gives_the_same_track_and_another_device_another() -> None:
    day = (START, START + timedelta(hours=6))
    first = list(generate_track(VEHICLE, *day, 30))
    assert first == list(generate_track(VEHICLE, *day, 30))
    other = list(generate_track(HistoryVehicle(8, 80, 2), *day, 30))
    assert [r[1:3] for r in other] != [r[1:3] for r in first]
