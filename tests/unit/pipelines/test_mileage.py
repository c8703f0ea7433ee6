"""Known answers of the mileage rules (docs/reports.md §3), on tracks measured by hand (tracks.py)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from pipelines.mileage import MILEAGE_GPS, MILEAGE_ODOMETER, point_counts, vehicle_mileage
from pipelines.rules import Window
from pipelines.segments import drift_spikes, segments
from tests.unit.pipelines.tracks import DAY, POS, RULES, WINDOW, drive, frame, local, point, stand


def facts(rows: list[dict], window: Window = WINDOW) -> dict:
    out = vehicle_mileage(segments(frame(rows), window, RULES), window, RULES)
    assert out.height == 1
    return out.row(0, named=True)


def test_odometer_reset_mid_day_counts_sane_deltas_not_last_minus_first() -> None:
    # 10 km at 60 km/h; the odometer reads 1000..1005, then the terminal resets it to 0..4
    rows = drive(1, local(8), 10)
    for k, row in enumerate(rows):
        row["mileage_km"] = 1000.0 + k if k <= 5 else float(k - 6)
    got = facts(rows)
    assert got["gps_km"] == pytest.approx(10.0)
    assert got["odo_km"] == pytest.approx(9.0)  # 5 deltas of 1, the reset counts 0, then 4 of 1
    assert got["mileage_source"] == MILEAGE_ODOMETER and got["mileage_km"] == pytest.approx(9.0)
    assert (got["odo_start_km"], got["odo_end_km"]) == (1000.0, 4.0)


def test_odometer_too_far_from_gps_falls_back_to_gps() -> None:
    rows = drive(1, local(8), 10, odo0=500.0)
    for row in rows[5:]:
        row["mileage_km"] += 4.0  # a jump of 4 km in one minute: over v_max, counted as the GPS 1 km
    got = facts(rows)
    assert got["odo_km"] == pytest.approx(10.0)
    assert got["mileage_source"] == MILEAGE_ODOMETER
    sparse = drive(1, local(8), 10, odo0=500.0)
    for row in sparse[:4]:
        row["mileage_km"] = None  # 7 of 11 points carry it: under 80 %
    assert facts(sparse)["mileage_source"] == MILEAGE_GPS


def test_drift_spike_is_removed_from_gps_mileage_and_counted() -> None:
    rows = drive(2, local(9), 5)  # 0..5 km
    rows[3]["lat"] += 45 * (rows[1]["lat"] - rows[0]["lat"])  # point 3 jumps 45 km away and back
    got = facts(rows)
    assert got["gps_km"] == pytest.approx(5.0)  # 1 + 1 + 2 + 1 once point 3 is gone
    spikes = drift_spikes(frame(rows), WINDOW, RULES)
    assert spikes.to_dicts() == [{"device_id": 2, "spikes": 1}]


def test_a_jump_that_does_not_return_is_dropped_as_drift() -> None:
    rows = drive(2, local(9), 3) + [point(2, local(9, 4), 40.0, 0.0), point(2, local(9, 5), 40.0, 0.0)]
    got = facts(rows)
    assert got["gps_km"] == pytest.approx(3.0)
    assert got["drift_points"] == 1


def test_two_hour_gap_is_incomplete_mileage_and_splits_trips() -> None:
    rows = drive(3, local(8), 5) + drive(3, local(10, 5), 5, km0=8.0)
    got = facts(rows)
    assert got["gps_km"] == pytest.approx(13.0)  # 5 + the 3 km gap (plausible: 1.5 km/h) + 5
    assert got["incomplete_km"] == pytest.approx(3.0)
    assert got["gap_count"] == 1


def test_stationary_jitter_with_acc_off_is_not_mileage() -> None:
    rows = stand(5, local(3), 10, km=1.0, status=POS)
    for k, row in enumerate(rows):
        row["lat"] += (k % 2) * 0.0001  # 11 m back and forth
    assert facts(rows)["gps_km"] == 0.0


def test_late_backlog_in_any_order_and_repeated_gives_the_same_figures() -> None:
    rows = drive(3, local(8), 5) + drive(3, local(10, 5), 5, km0=8.0)
    shuffled = rows + rows[:3]
    random.Random(7).shuffle(shuffled)
    assert facts(shuffled) == facts(rows)


def test_segment_across_midnight_counts_for_the_day_of_its_end() -> None:
    rows = drive(4, local(23, 50), 20)  # 23:50 .. 00:10 the next day, 1 km a minute
    assert facts(rows)["gps_km"] == pytest.approx(9.0)  # segments ending 23:51 .. 23:59
    tomorrow = Window.of(DAY + timedelta(days=1))
    assert facts(rows, tomorrow)["gps_km"] == pytest.approx(11.0)  # ending 00:00 .. 00:10


def test_overspeed_episodes_and_seconds() -> None:
    rows = drive(6, local(8), 10, kmh=100.0)
    for k, row in enumerate(rows):
        row["alarm_flags"] = 2 if 2 <= k <= 4 or k == 8 else 0  # bit 1 on 08:02-08:04 and 08:08
    got = facts(rows)
    assert got["overspeed_count"] == 2
    # held while a segment starts on a set bit: 08:02-03, 03-04, 04-05 and 08:08-09
    assert got["overspeed_s"] == pytest.approx(240.0)


def test_point_counts_include_unpositioned_fixes() -> None:
    rows = drive(7, local(8), 2) + [point(7, local(8, 5), 2.0, 0.0, status=0)]
    counts = point_counts(frame(rows), WINDOW).to_dicts()[0]
    assert (counts["points"], counts["positioned_points"], counts["odo_points"]) == (4, 3, 0)
    assert counts["max_received_at"] == local(8, 5) + timedelta(seconds=1)
