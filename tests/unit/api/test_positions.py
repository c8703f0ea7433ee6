"""Last-position reply shape."""

from __future__ import annotations

from datetime import UTC, datetime

from api.positions import alarm_flags, position_reply


def test_alarm_bits_become_a0_to_a31() -> None:
    flags = alarm_flags((1 << 0) | (1 << 31))
    assert len(flags) == 32
    assert flags["a0"] == 1 and flags["a31"] == 1 and flags["a1"] == 0


def test_reply_uses_spec_names_and_acc_from_status_bit_0() -> None:
    row = {
        "device_id": 1, "car_id": 2, "enterprise_id": 3, "fix_at": datetime(2026, 1, 1, tzinfo=UTC),
        "lng": 116.4, "lat": 39.9, "direction_deg": 90, "speed_kmh": 42.5, "mileage_km": 1234.5,
        "fuel_l": 30.0, "altitude_m": 50.0, "alarm_flags": -1, "status_flags": 3,
    }
    reply = position_reply(row)
    assert reply["deviceId"] == 1 and reply["carId"] == 2
    assert (reply["lng"], reply["lat"], reply["direction"], reply["speed"]) == (116.4, 39.9, 90, 42.5)
    assert (reply["mileage"], reply["oilmass"], reply["altitude"]) == (1234.5, 30.0, 50.0)
    assert reply["acc"] == 1 and reply["aac"] == 1
    assert reply["alarmType"] == 0xFFFFFFFF and reply["a17"] == 1
