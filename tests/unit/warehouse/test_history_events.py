"""Generated history records what the streams would have: alarm episodes, ACC / business transitions, online."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fleet.enums import BizState
from warehouse.history import HistoryVehicle, generate_track
from warehouse.history_events import Events, EventTracker

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def test_transitions_and_episodes_of_a_hand_made_track() -> None:
    events = Events()
    tracker = EventTracker(7, 70, 2, "13800000007", "京A·00007", events)
    # (minute, speed, alarm flags, status): parked off, engine on, driving with overspeed (bit 1) twice, parked
    for minute, speed, alarm, status in ((0, 0, 0, 2), (1, 0, 0, 3), (2, 40, 0, 3), (3, 95, 2, 3), (4, 96, 2, 3),
                                         (5, 60, 0, 3), (6, 97, 2 | 1, 3), (7, 0, 1, 3)):
        tracker.add(T0 + timedelta(minutes=minute), 116.4, 39.9, speed, alarm, status)
    tracker.close()
    assert [(r[1] - T0, r[2]) for r in events.acc] == [(timedelta(0), 0), (timedelta(minutes=1), 1)]
    assert [r[2] for r in events.biz] == [BizState.ENGINE_OFF, BizState.PARKED, BizState.DRIVING, BizState.PARKED]
    episodes = sorted((r[6], r[8] - T0, r[9] - T0) for r in events.alarms)
    assert episodes == [("a0", timedelta(minutes=6), timedelta(minutes=7)),  # still set at the end: closed there
                        ("a1", timedelta(minutes=3), timedelta(minutes=5)),
                        ("a1", timedelta(minutes=6), timedelta(minutes=7))]
    assert [(r[1], r[2]) for r in events.online] == [(T0, 1)]


def test_a_generated_day_has_one_overspeed_episode_per_run_of_the_bit() -> None:
    vehicle = HistoryVehicle(9, 90, 2, "13800000009")
    rows = list(generate_track(vehicle, T0, T0 + timedelta(days=1), 30))
    runs = sum(1 for prev, cur in zip([0, *[r[8] for r in rows]], [r[8] for r in rows], strict=False)
               if cur & 2 and not prev & 2)
    acc_changes = 1 + sum(1 for a, b in zip(rows, rows[1:], strict=False) if (a[9] ^ b[9]) & 1)
    events = Events()
    tracker = EventTracker(9, 90, 2, "13800000009", None, events)
    for r in rows:
        tracker.add(r[0], r[1], r[2], r[4], r[8], r[9])
    tracker.close()
    assert runs > 0 and sum(1 for a in events.alarms if a[6] == "a1") == runs
    assert len(events.acc) == acc_changes


def test_a_generated_day_records_its_adas_and_dsm_events_as_instant_alarms() -> None:
    """The seeded history carries the live stream's active-safety mix: ADAS (type 5) and DSM (type 6) rows."""
    vehicle = HistoryVehicle(9, 90, 2, "13800000009")
    events = Events()
    tracker = EventTracker(9, 90, 2, "13800000009", None, events)
    for r in generate_track(vehicle, T0, T0 + timedelta(days=1), 60, on_safety=tracker.safety_event):
        tracker.add(r[0], r[1], r[2], r[4], r[8], r[9])
    tracker.close()
    safety = [a for a in events.alarms if a[5] in (5, 6)]
    assert {a[6].split("_")[0] for a in safety} == {"adas", "dsm"}
    assert all(a[5] == (5 if a[6].startswith("adas_") else 6) and a[7] in (1, 2) and a[8] == a[9] for a in safety)
    assert len({(a[6], a[8]) for a in safety}) == len(safety)  # (device, key, start) is the alarm's natural key
