"""A live simulated vehicle-day and a seeded one (warehouse.history, the month at 300 s and the recent days
at 60 s) drive the same kilometres and raise the same alarms: one driving model for both
(fleet.driving_model), so the dashboard's trends do not jump where seeded days meet live ones."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from fleet.settings import SimulatorSettings
from simulator.alarms import AlarmSchedule
from simulator.driving import Vehicle
from warehouse.history import HistoryVehicle, demo_model, generate_track
from warehouse.history_events import Events, EventTracker

VEHICLES = 12
T0 = datetime(2026, 11, 20, 16, 0, tzinfo=UTC)  # midnight in Beijing
KM_TOLERANCE, ALARM_TOLERANCE = 0.10, 0.25  # relative, on the fleet's mean per vehicle-day


def _live_day() -> tuple[float, float, float]:
    """(km, terminal-bit alarms, ADAS/DSM alarms) per vehicle-day as the simulator reports them every 5 s
    (a rising bit is one alarm row in the streams, an 0x64/0x65 item another)."""
    settings = SimulatorSettings()
    km = bits = safety = 0.0
    for index in range(1, VEHICLES + 1):  # built as simulator.fleet.build_terminals builds them
        vehicle = Vehicle(random.Random(f"{settings.seed}:{index}"), settings.centre_lat, settings.centre_lng,
                          settings.radius_km, demo_model())
        schedule = AlarmSchedule(random.Random(f"{settings.seed}:{index}:alarms"), f"SIM{index:07d}",
                                 rate_per_hour=settings.alarm_rate_per_hour,
                                 safety_rate_per_hour=settings.safety_alarm_rate_per_hour)
        first, previous = vehicle.sample().mileage_km, 0
        for n in range(86_400 // 5):
            vehicle.advance(5.0)
            flags, items = schedule.step(5.0, vehicle.sample(), T0 + timedelta(seconds=5 * n), vehicle)
            bits += bin(flags & ~previous).count("1")
            safety += len(items)
            previous = flags
        km += vehicle.sample().mileage_km - first
    return km / VEHICLES, bits / VEHICLES, safety / VEHICLES


def _seeded_day(interval_s: float) -> tuple[float, float, float]:
    km = bits = safety = 0.0
    for device in range(1, VEHICLES + 1):
        events = Events()
        tracker = EventTracker(device, device, 1, f"0138{device:08d}", None, events)
        rows = list(generate_track(HistoryVehicle(device, device, 1), T0, T0 + timedelta(days=1), interval_s,
                                   model=demo_model(), on_safety=tracker.safety_event))
        for r in rows:
            tracker.add(r[0], r[1], r[2], r[4], r[8], r[9])
        tracker.close()
        km += rows[-1][6] - rows[0][6]
        bits += sum(1 for a in events.alarms if a[5] == 1)
        safety += sum(1 for a in events.alarms if a[5] in (5, 6))
    return km / VEHICLES, bits / VEHICLES, safety / VEHICLES


@pytest.fixture(scope="module")
def live() -> tuple[float, float, float]:
    return _live_day()


@pytest.mark.parametrize("interval_s", [300.0, 60.0])
def test_a_seeded_vehicle_day_drives_and_alarms_like_a_live_one(live: tuple[float, float, float],
                                                                 interval_s: float) -> None:
    live_km, live_bits, live_safety = live
    km, bits, safety = _seeded_day(interval_s)
    assert abs(km / live_km - 1) <= KM_TOLERANCE, (km, live_km)
    assert live_safety > 50 and abs(safety / live_safety - 1) <= ALARM_TOLERANCE, (safety, live_safety)
    assert live_bits > 10 and abs(bits / live_bits - 1) <= ALARM_TOLERANCE, (bits, live_bits)
