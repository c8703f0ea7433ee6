"""Known answers of trips, parks and idling (docs/reports.md §3)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pipelines.motion import trips_and_parks
from pipelines.rules import Window
from pipelines.segments import segments
from tests.unit.pipelines.tracks import DAY, POS, RULES, WINDOW, drive, frame, local, stand


def run(rows: list[dict], window: Window = WINDOW) -> tuple[list[dict], list[dict]]:
    trips, parks = trips_and_parks(segments(frame(rows), window, RULES), window, RULES)
    return trips.to_dicts(), parks.to_dicts()


def test_short_stop_does_not_split_a_trip_and_an_engine_on_park_is_idling() -> None:
    rows = (drive(6, local(8), 10)                       # 08:00-08:10, km 0..10
            + stand(6, local(8, 11), 2, km=10.0)         # 08:11-08:13 at a red light: 3 min < 5 min
            + drive(6, local(8, 14), 10, km0=10.0)       # 08:14-08:24, km 10..20
            + stand(6, local(8, 25), 10, km=20.0))       # 08:25-08:35 standing, ACC on
    trips, parks = run(rows)
    assert len(trips) == 1
    trip = trips[0]
    assert (trip["start_at"], trip["end_at"]) == (local(8), local(8, 25))  # ends at the first standing fix
    assert trip["duration_s"] == 1500
    assert trip["distance_km"] == pytest.approx(20.0)
    assert trip["max_speed_kmh"] == 60.0 and trip["avg_speed_kmh"] == pytest.approx(60.0)
    assert not trip["truncated"]
    assert len(parks) == 1
    park = parks[0]
    assert (park["start_at"], park["end_at"], park["duration_s"]) == (local(8, 25), local(8, 35), 600)
    assert park["acc_on_s"] == 600 and park["idling"]


def test_a_gap_ends_a_trip() -> None:
    rows = drive(3, local(8), 5) + drive(3, local(10, 5), 5, km0=8.0)
    trips, parks = run(rows)
    assert [(t["start_at"], t["end_at"], t["duration_s"]) for t in trips] == [
        (local(8), local(8, 5), 300), (local(10, 5), local(10, 10), 300)]
    assert [t["distance_km"] for t in trips] == pytest.approx([5.0, 5.0])
    assert trips[1]["truncated"]  # still moving at the last fix read
    assert parks == []


def test_trip_across_midnight_is_listed_once_on_its_start_day_whole() -> None:
    tomorrow = DAY + timedelta(days=1)
    rows = drive(4, local(23, 50), 20) + stand(4, local(0, 11, day=tomorrow), 19, km=20.0, status=POS)
    trips, _ = run(rows)
    assert len(trips) == 1
    assert (trips[0]["start_at"], trips[0]["end_at"]) == (local(23, 50), local(0, 11, day=tomorrow))
    assert trips[0]["distance_km"] == pytest.approx(20.0)
    next_trips, next_parks = run(rows, Window.of(tomorrow))
    assert next_trips == []  # began the day before
    assert [(p["start_at"], p["duration_s"], p["acc_on_s"], p["idling"]) for p in next_parks] == [
        (local(0, 11, day=tomorrow), 1140, 0, False)]


def test_short_moves_are_no_trip() -> None:
    rows = stand(8, local(7), 10, km=0.0) + drive(8, local(7, 11), 2, kmh=6.0, km0=0.0) + stand(
        8, local(7, 14), 10, km=0.2)
    trips, parks = run(rows)
    assert trips == []  # 3 minutes and 200 m: under 300 s and 500 m
    assert len(parks) == 2


def test_odometer_distance_when_both_ends_carry_it() -> None:
    rows = drive(9, local(8), 10, odo0=1000.0) + stand(9, local(8, 11), 6, km=10.0, odo=1010.2)
    trips, _ = run(rows)
    assert trips[0]["start_odo_km"] == 1000.0 and trips[0]["end_odo_km"] == pytest.approx(1010.2)
    assert trips[0]["distance_km"] == pytest.approx(10.2)
