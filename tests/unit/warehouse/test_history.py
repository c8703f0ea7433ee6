"""The history loader's driving model (warehouse.history.generate_track): rows a sink could have written."""

from __future__ import annotations

import json
import random
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


def test_a_demo_vehicle_with_tyre_sensors_carries_0x66_items_as_copy_text() -> None:
    from fleet.demo_fleet import terminal_phone
    from protocols.jt808.extras import decode_items, encode_items
    from warehouse.history import NO_EXTRAS, TyreSensors, _copy_lines, _tyre_extras

    vehicle = HistoryVehicle(device_id=7, car_id=3, enterprise_id=2, phone=terminal_phone(7))
    start = datetime(2026, 4, 1, tzinfo=UTC)
    tyres = TyreSensors(random.Random(1), vehicle.phone)
    points = list(generate_track(vehicle, start, start + timedelta(hours=12), 30.0))
    extras = [_tyre_extras(tyres, p, 30.0) for p in points]
    reports = [json.loads(e)["tpms_alarm"] for e in extras if e != NO_EXTRAS]
    driving = sum(1 for p in points if p[9] & ACC_ON) * 30.0
    assert reports and abs(len(reports) - driving / 300) <= len(reports) * 0.2 + 2  # one per 5 min of ACC on
    assert all(p[9] & ACC_ON for p, e in zip(points, extras, strict=True) if e != NO_EXTRAS)
    decoded, unknown = decode_items(encode_items({"tpms_alarm": reports[0]}, ()))
    assert unknown == () and decoded["tpms_alarm"] == reports[0]  # what the codec would have stored
    line = next(_copy_lines(vehicle, points[:1], extras[0]))
    assert line.count("\t") == 14 and line.endswith("\t" + extras[0] + "\n")
    assert _tyre_extras(None, points[0], 30.0) == NO_EXTRAS
