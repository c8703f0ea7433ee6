"""Stop and idling detection (fleet.stops): crafted tracks, one point per tuple."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from fleet.settings import StopSettings
from fleet.stops import Stop, StopThresholds, detect_stops

TH = StopThresholds(park_speed_kmh=5.0, park_min_s=180.0, idle_min_s=60.0, radius_m=50.0)
T0 = int(datetime(2026, 11, 24, 8, 0, tzinfo=UTC).timestamp() * 1000)
LNG, LAT = 116.39, 39.91
# about 1.1 m per 1e-5 degree of latitude
METRE = 1e-5 / 1.11

Point = tuple[int, float | None, bool | None, float | None, float | None]  # (t_ms, speed, acc, lng, lat)


def run(points: list[Point], th: StopThresholds = TH) -> list[Stop]:
    return detect_stops([p[0] for p in points], [p[1] for p in points], [p[2] for p in points],
                        [p[3] for p in points], [p[4] for p in points], thresholds=th)


def drive(t_s: float, speed: float = 40.0, north_m: float = 0.0) -> Point:
    return (T0 + int(t_s * 1000), speed, True, LNG, LAT + north_m * METRE)


def still(t_s: float, acc: bool = False, speed: float = 0.0, north_m: float = 0.0) -> Point:
    return (T0 + int(t_s * 1000), speed, acc, LNG, LAT + north_m * METRE)


def kinds(stops: list[Stop]) -> list[tuple[str, int, int]]:
    return [(s.kind, (s.start_ms - T0) // 1000, (s.end_ms - T0) // 1000) for s in stops]


def test_park_is_a_stop_of_at_least_park_min_s_from_first_to_last_stopped_fix() -> None:
    track = [drive(0, north_m=-2000), drive(30, north_m=-1000)]
    track += [still(60 + 30 * k) for k in range(8)]          # 60 .. 270 s: 210 s stopped, ACC off
    track += [drive(300, north_m=1000), drive(330, north_m=2000)]
    stops = run(track)
    assert kinds(stops) == [("park", 60, 270)]
    assert stops[0].duration_s == 210.0
    assert stops[0].lng == pytest.approx(LNG) and stops[0].lat == pytest.approx(LAT)
    assert stops[0].ongoing is False


def test_a_red_light_shorter_than_park_min_s_is_no_stop() -> None:
    track = [drive(0, north_m=-1000)] + [still(30 + 10 * k) for k in range(10)] + [drive(150, north_m=1000)]
    assert run(track) == []


def test_idle_is_stopped_with_acc_on_and_overlaps_the_park() -> None:
    track = [drive(0, north_m=-1000)]
    track += [still(30 + 30 * k, acc=True) for k in range(4)]      # 30 .. 120 s ACC on
    track += [still(150 + 30 * k, acc=False) for k in range(6)]    # 150 .. 300 s ACC off
    track += [drive(330, north_m=1000)]
    assert kinds(run(track)) == [("park", 30, 300), ("idle", 30, 120)]


def test_idle_shorter_than_idle_min_s_is_not_reported_but_a_short_stop_can_idle() -> None:
    short_idle = [drive(0, north_m=-1000), still(10, acc=True), still(40, acc=True), still(50, acc=False),
                  still(260, acc=False), drive(290, north_m=1000)]
    assert kinds(run(short_idle)) == [("park", 10, 260)]
    # stopped 90 s with the engine running: too short to park, long enough to idle
    traffic = [drive(0, north_m=-1000)] + [still(10 + 15 * k, acc=True) for k in range(7)] + [drive(120, north_m=1000)]
    assert kinds(run(traffic)) == [("idle", 10, 100)]


def test_a_stop_crossing_midnight_is_one_stop() -> None:
    evening = int(datetime(2026, 11, 24, 23, 50, tzinfo=UTC).timestamp() * 1000)
    times = [evening - 60_000] + [evening + k * 300_000 for k in range(7)] + [evening + 7 * 300_000]
    speeds = [40.0] + [0.0] * 7 + [40.0]
    lats = [LAT - 0.01] + [LAT] * 7 + [LAT + 0.01]
    stops = detect_stops(times, speeds, [False] * 9, [LNG] * 9, lats, thresholds=TH)
    assert len(stops) == 1
    assert stops[0].start_ms == evening and stops[0].end_ms == evening + 6 * 300_000
    assert datetime.fromtimestamp(stops[0].end_ms / 1000, UTC).day == 25


def test_a_silent_night_parked_is_one_stop_and_the_first_report_nearby_ends_it() -> None:
    # the terminal reports nothing while parked, then its first fix is already moving a few metres away
    track = [drive(0, north_m=-1000), still(60), still(50_000, speed=12.0, north_m=20), drive(50_030, north_m=500)]
    assert kinds(run(track)) == [("park", 60, 50_000)]


def test_a_stopped_fix_far_from_the_stop_begins_another_stop() -> None:
    # no fix while driving between two car parks: the speeds alone do not show the move
    track = [still(0), still(300), still(600, north_m=3000), still(900, north_m=3000), drive(930, north_m=4000)]
    stops = run(track)
    assert kinds(stops) == [("park", 0, 300), ("park", 600, 900)]
    assert stops[1].lat == pytest.approx(LAT + 3000 * METRE)


def test_gps_jitter_speeds_within_the_radius_do_not_split_a_stop() -> None:
    rng = random.Random(7)
    track = [drive(0, north_m=-1000)]
    for k in range(60):  # 30 minutes parked, fixes every 30 s, a jumpy receiver
        speed = rng.choice([0.0, 0.0, 1.8, 3.6, 7.2, 11.0])
        track.append(still(30 + 30 * k, speed=speed, north_m=rng.uniform(-20, 20)))
    track.append(drive(1830, north_m=1000))
    assert kinds(run(track)) == [("park", 30, 1800)]


def test_moving_slowly_beyond_the_radius_ends_the_stop() -> None:
    track = [still(30 * k) for k in range(8)]
    track += [still(240 + 30 * k, speed=8.0, north_m=60 * (k + 1)) for k in range(5)]
    assert kinds(run(track)) == [("park", 0, 210)]


def test_late_backlog_points_give_the_same_stops_once_sorted_by_fix_time() -> None:
    track = [drive(0, north_m=-2000)] + [still(30 + 30 * k, acc=k < 4) for k in range(10)]
    track += [drive(330, north_m=1000), drive(360, north_m=2000)]
    track += [still(1000 + 30 * k, acc=True) for k in range(8)] + [drive(1300, north_m=3000)]
    in_time_order = run(track)
    # a 0x0704 backlog of the first stop arrives after the live points of the second stop
    arrival_order = track[6:] + track[:6]
    assert run(arrival_order) == in_time_order
    assert kinds(in_time_order) == [("park", 30, 300), ("idle", 30, 120), ("park", 1000, 1210),
                                    ("idle", 1000, 1210)]


def test_a_stop_still_going_at_the_last_point_is_closed_there_and_marked_ongoing() -> None:
    track = [drive(0, north_m=-1000)] + [still(30 + 30 * k, acc=True) for k in range(10)]
    stops = run(track)
    assert kinds(stops) == [("park", 30, 300), ("idle", 30, 300)]
    assert all(s.ongoing for s in stops)


def test_a_stop_already_going_at_the_first_point_starts_there() -> None:
    track = [still(30 * k) for k in range(10)] + [drive(300, north_m=1000)]
    assert kinds(run(track)) == [("park", 0, 270)]


def test_a_single_fix_is_never_a_stop_even_with_zero_minimums() -> None:
    zero = StopThresholds(park_speed_kmh=5.0, park_min_s=0.0, idle_min_s=0.0, radius_m=50.0)
    assert run([drive(0, north_m=-1000), still(30, acc=True), drive(60, north_m=1000)], zero) == []
    assert run([], zero) == []


def test_points_without_position_or_speed() -> None:
    track = [drive(0, north_m=-1000), still(30), (T0 + 60_000, 0.0, False, None, None), still(240),
             (T0 + 270_000, None, False, LNG, LAT + 1000 * METRE)]
    assert kinds(run(track)) == [("park", 30, 240)]


def test_sequences_of_different_lengths_are_rejected() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        detect_stops([T0, T0 + 1], [0.0], [False, False], [LNG, LNG], [LAT, LAT], thresholds=TH)


def test_thresholds_come_from_settings_and_serialise_as_the_track_reply() -> None:
    th = StopThresholds.from_settings(StopSettings(park_min_s=600, idle_min_s=30))
    assert (th.park_speed_kmh, th.park_min_s, th.idle_min_s, th.radius_m) == (5.0, 600.0, 30.0, 50.0)
    track = [still(30 * k, acc=True) for k in range(11)]   # 300 s: a park by default, not with 600 s
    assert kinds(run(track, th)) == [("idle", 0, 300)]
    assert run(track, StopThresholds.from_settings())[0].to_json() == {
        "kind": "park", "start": T0, "end": T0 + 300_000, "durationS": 300.0,
        "lng": pytest.approx(LNG), "lat": pytest.approx(LAT), "ongoing": True}


def test_long_track_is_linear(benchmark_points: int = 100_000) -> None:
    # a day of 1 s fixes alternating driving and parking: must finish (no quadratic blow-up)
    points = []
    for k in range(benchmark_points):
        moving = (k // 600) % 2 == 0
        points.append(drive(k, north_m=k * 10.0) if moving else still(k, north_m=(k // 1200) * 12_000.0 + 6000))
    stops = run(points)
    assert [s.kind for s in stops].count("park") == benchmark_points // 1200
