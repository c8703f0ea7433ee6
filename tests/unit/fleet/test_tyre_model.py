"""Simulated tyre sensors (fleet.tyre_model): a fitted terminal sends 0x66 timed reports of every tyre while
the ACC is on, the codec encodes and decodes them unchanged, and a slow leak shows as pressure too low."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from fleet.demo_fleet import device_phone, phone_has_tpms, terminal_has_tpms, terminal_phone
from fleet.tyre_model import LOW_KPA, REPORT_EVERY_S, TYRES, TyreSensors
from protocols.jt808.extras import decode_items, encode_items
from protocols.jt808.extras.x66_tpms_alarm import alarm_bits
from simulator.driving import Sample

T0 = datetime(2026, 12, 3, 1, 0, tzinfo=UTC)


def _sample(acc_on: bool = True) -> Sample:
    return Sample(lat=39.91, lng=116.39, altitude_m=50, speed_kmh=60.0, direction_deg=90, mileage_km=1000.0,
                  acc_on=acc_on, positioned=True)


def _reports(sensors: TyreSensors, seconds: float, step_s: float = 10.0, acc_on: bool = True) -> list[dict]:
    out = []
    for k in range(int(seconds / step_s)):
        sample = _sample(acc_on)
        items = sensors.step(step_s, T0 + timedelta(seconds=k * step_s), acc_on=sample.acc_on, speed_kmh=sample.speed_kmh,
                             altitude_m=sample.altitude_m, lat=sample.lat, lng=sample.lng, status_flags=sample.status_flags)
        if items:
            out.append(items["tpms_alarm"])
    return out


def test_reports_every_tyre_on_schedule_only_while_the_acc_is_on() -> None:
    sensors = TyreSensors(random.Random(1), "SIM0000002")
    assert _reports(sensors, 3600, acc_on=False) == []
    reports = _reports(sensors, 3600)
    assert len(reports) in (int(3600 // REPORT_EVERY_S), int(3600 // REPORT_EVERY_S) + 1)
    for report in reports:
        assert [e["tyre"] for e in report["events"]] == list(range(TYRES))
        assert all(e["type"] & 1 for e in report["events"])  # bit 0: the timed report
        assert all(0 < e["pressure_kpa"] < 1000 and 0 < e["battery_pct"] <= 100 for e in report["events"])


def test_a_report_goes_through_the_codec_unchanged() -> None:
    report = _reports(TyreSensors(random.Random(2), "SIM0000002"), 900)[0]
    decoded, unknown = decode_items(encode_items({"tpms_alarm": report}, ()))
    assert unknown == () and decoded["tpms_alarm"] == report


def test_a_slow_leak_raises_pressure_too_low() -> None:
    lows = [e for seed in range(20)
            for report in _reports(TyreSensors(random.Random(seed), "SIM0000002"), 86_400, step_s=30.0)
            for e in report["events"] if 2 in alarm_bits(e["type"])]
    assert lows and all(e["pressure_kpa"] < LOW_KPA for e in lows)


def test_some_demo_terminals_have_tyre_sensors() -> None:
    assert [i for i in range(1, 11) if terminal_has_tpms(i)] == [2, 7]
    assert phone_has_tpms(terminal_phone(7)) and not phone_has_tpms(terminal_phone(8))
    assert phone_has_tpms(device_phone(7)) and not phone_has_tpms("13900000007") and not phone_has_tpms("")


def test_sensors_without_alarms_send_only_timed_reports() -> None:
    # The shared end-to-end stack runs its simulated fleet with the safety alarms off: a tyre alarm would open
    # the safety alarm dialog over the screens the tests drive. The same seeds raise alarms with them on.
    def bits(alarms: bool) -> set[int]:
        return {bit for seed in range(20)
                for report in _reports(TyreSensors(random.Random(seed), "SIM0000002", alarms=alarms), 86_400, step_s=30.0)
                for e in report["events"] for bit in alarm_bits(e["type"])}
    assert bits(True) and bits(False) == set()  # alarm_bits leaves out bit 0, the timed report
