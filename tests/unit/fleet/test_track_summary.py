"""Day summaries (fleet.track_summary): stop detection over the kept fixes of consecutive days gives
exactly the stops of every fix (a stop across midnight included), every alarm fix is kept, and the
drawing keeps one fix per resolution bucket."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fleet.stops import StopThresholds, detect_stops
from fleet.track_summary import TrackColumns, collapse_parked, keep_indices, summarise
from warehouse.history import HistoryVehicle, generate_track

TH = StopThresholds(park_speed_kmh=5.0, park_min_s=180.0, idle_min_s=60.0, radius_m=50.0)
DAY_MS = 86_400_000
T0 = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp() * 1000)


def columns(points: list[tuple[int, float, float, float, int, int]]) -> TrackColumns:
    """(time ms, lng, lat, speed, alarm, status) -> columns (the other columns filled)."""
    cols = TrackColumns()
    for t, lng, lat, speed, alarm, status in points:
        for column, value in zip(cols.columns(), (t, lng, lat, speed, 90, 50.0, 1000.0, 60.0, alarm, status, None), strict=True):
            column.append(value)
    return cols


def split_days(cols: TrackColumns) -> list[TrackColumns]:
    days: dict[int, list[int]] = {}
    for i, t in enumerate(cols.times):
        days.setdefault(t // DAY_MS, []).append(i)
    return [cols.take(days[d]) for d in sorted(days)]


def stops_of(cols: TrackColumns) -> list[tuple[str, int, int, bool]]:
    return [(s.kind, s.start_ms, s.end_ms, s.ongoing)
            for s in detect_stops(cols.times, cols.speeds, cols.acc, cols.lngs, cols.lats, thresholds=TH)]


def summarised_union(cols: TrackColumns, resolution_s: int = 60, lookback_ms: int = 6 * 3_600_000) -> TrackColumns:
    """Each UTC day summarised with the lookback before it as context (as warehouse.track_days does)."""
    out = TrackColumns()
    for day in split_days(cols):
        first = day.times[0] - day.times[0] % DAY_MS
        context = cols.take(i for i, t in enumerate(cols.times) if first - lookback_ms <= t < first)
        out.extend(summarise(day, TH, resolution_s, context).kept)
    return out


def test_a_stop_across_midnight_is_one_stop_from_the_summaries() -> None:
    # Drive until 23:00, park (ACC on the first 10 minutes) until 01:30 the next day, then drive off.
    points = []
    t = T0 + 20 * 3_600_000
    lng = 116.30
    while t < T0 + 23 * 3_600_000:
        points.append((t, lng, 39.9, 40.0, 0, 3))
        lng += 0.001
        t += 10_000
    while t < T0 + DAY_MS + 90 * 60_000:
        acc = 1 if t < T0 + 23 * 3_600_000 + 600_000 else 0
        points.append((t, lng, 39.9, 0.0, 0, 2 | acc))
        t += 10_000
    while t < T0 + DAY_MS + 3 * 3_600_000:
        lng += 0.001
        points.append((t, lng, 39.9, 40.0, 0, 3))
        t += 10_000
    cols = columns(points)
    direct = stops_of(cols)
    assert ("park", T0 + 23 * 3_600_000, T0 + DAY_MS + 90 * 60_000 - 10_000, False) in direct
    union = summarised_union(cols)
    assert stops_of(union) == direct
    assert len(union) < len(cols) / 4  # parked runs collapsed, the drive kept once a minute


def test_a_day_starting_with_driving_ends_the_stop_of_the_night_where_every_fix_does() -> None:
    # Parked at midnight; the next day starts moving slowly inside the stop radius, then drives off:
    # the leading fixes of the day decide where the stop ends (the lookback gives the stop's anchor).
    points = [(T0 + DAY_MS - 600_000 + k * 10_000, 116.3, 39.9, 0.0, 0, 2) for k in range(60)]
    points += [(T0 + DAY_MS + k * 10_000, 116.3 + k * 0.00005, 39.9, 8.0, 0, 3) for k in range(1, 200)]
    cols = columns(points)
    union = summarised_union(cols)
    assert stops_of(union) == stops_of(cols)
    assert stops_of(cols)[0][2] > T0 + DAY_MS  # the stop ends in the second day
    assert len(summarised_union(cols, lookback_ms=0)) < len(union)  # without the context less is kept


@pytest.mark.parametrize("seed", [1, 2, 3, 808])
def test_generated_days_give_the_stops_of_every_fix(seed: int) -> None:
    vehicle = HistoryVehicle(device_id=seed, car_id=None, enterprise_id=1)
    start = datetime(2026, 3, 1, 15, tzinfo=UTC)  # crosses two UTC midnights
    points = [(int(at.timestamp() * 1000), lng, lat, speed, alarm, status)
              for at, lng, lat, _alt, speed, _dir, _mil, _fuel, alarm, status
              in generate_track(vehicle, start, start + timedelta(days=2), 10.0, seed=seed)]
    cols = columns(points)
    union = summarised_union(cols)
    assert stops_of(union) == stops_of(cols)
    assert union.times == sorted(union.times) and set(union.times) <= set(cols.times)


def test_every_alarm_fix_and_one_fix_per_bucket_are_kept() -> None:
    points = [(T0 + k * 10_000, 116.3 + k * 1e-4, 39.9, 60.0, 2 if k in (7, 8, 333) else 0, 3) for k in range(1000)]
    cols = columns(points)
    kept = keep_indices(cols, TH, 60)
    assert {7, 8, 333} <= set(kept)
    minutes = {cols.times[i] // 60_000 for i in kept}
    assert minutes == {t // 60_000 for t in cols.times}
    assert 0 in kept and 999 in kept
    assert len(kept) == len(minutes) + 3 + 1  # each minute's first fix, the three alarm fixes and the last


def test_summary_counts_every_fix_and_the_day_mileage() -> None:
    points = [(T0 + k * 10_000, 116.3, 39.9, 0.0, 0, 2) for k in range(100)]
    cols = columns(points)
    cols.mileages[:] = [1000.0 + k * 0.1 for k in range(100)]
    summary = summarise(cols, TH, 60)
    assert summary.points == 100 and summary.first_ms == T0 and summary.last_ms == T0 + 99 * 10_000
    assert summary.mileage_km == pytest.approx(9.9)
    assert len(summary.kept) < 10  # one parked run: its ends and the minute marks that are not inside it
    empty = summarise(TrackColumns(), TH, 60)
    assert empty.points == 0 and len(empty.kept) == 0


def test_rows_json_matches_the_track_fields() -> None:
    cols = columns([(T0, 116.3, 39.9, 45.3, 2**32 + 4, 3)])
    assert cols.rows_json([0]) == f"[[{T0},116.3,39.9,45.3,90,50.0,1000.0,60.0,1,4,3]]"


def test_rows_json_appends_the_alarm_fields_postgresql_made() -> None:
    cols = columns([(T0, 116.3, 39.9, 45.3, 0, 3), (T0 + 10_000, 116.3, 39.9, 45.3, 0, 3)])
    text = cols.rows_json([0, 1], {1: ["前向碰撞报警", {"type": 1}, None]}, (None, None, None))
    assert text.endswith(',1,0,3,null,null,null],[' + f'{T0 + 10_000},116.3,39.9,45.3,90,50.0,1000.0,60.0,1,0,3,'
                         '"前向碰撞报警",{"type":1},null]]')


def test_a_fix_with_an_alarm_item_is_kept_even_inside_a_parked_run() -> None:
    # An hour parked in one place (a run of identical fixes, collapsed to its ends) with a tyre report at
    # 10 s past a minute: kept, and it splits the run as a bit alarm would.
    points = [(T0 + k * 10_000, 116.3, 39.9, 0.0, 0, 2) for k in range(360)]
    cols = columns(points)
    cols.items[181] = {"tpms_alarm": {"flag": 0, "events": [{"type": 4}]}}
    assert cols.alarm_points[181] and not cols.alarm_points[180]
    kept = keep_indices(cols, TH, 60)
    assert 181 in kept and 180 in kept and 182 in kept  # the item and the run's new ends around it
    summary = summarise(cols, TH, 60)
    assert summary.kept.items[summary.kept.times.index(T0 + 181 * 10_000)] == cols.items[181]
    assert stops_of(summary.kept) == stops_of(cols)


def test_columns_left_without_items_have_none_for_every_fix() -> None:
    cols = TrackColumns.of([[T0, T0 + 1], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [1, 1], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0],
                            [0, 2], [3, 3]])
    assert cols.items == [None, None] and cols.alarm_points == [False, True]


def stop_places(cols: TrackColumns) -> list[tuple[str, int, int, float | None, float | None]]:
    return [(s.kind, s.start_ms, s.end_ms, s.lng, s.lat)
            for s in detect_stops(cols.times, cols.speeds, cols.acc, cols.lngs, cols.lats, thresholds=TH)]


def test_a_park_across_midnight_has_the_median_place_of_every_fix_read() -> None:
    # Parked 22:58:20-01:30, the fix wandering between two places 9 m apart every 20 fixes, midnight inside
    # a run of identical fixes: the day summaries keep the run's fixes at midnight (each day's last and
    # first), which a read of every fix collapses (positions.track_points), and the median moves with them.
    start = T0 + 23 * 3_600_000 - 100_000
    points = [(start - 600_000 + k * 10_000, 116.29 + k * 0.0002, 39.9, 40.0, 0, 3) for k in range(60)]
    points += [(start + k * 10_000, 116.3001 if (k // 20) % 2 == 0 else 116.3, 39.9, 0.0, 0, 2)
               for k in range((DAY_MS + 90 * 60_000 - 23 * 3_600_000 + 100_000) // 10_000)]
    points += [(points[-1][0] + k * 10_000, 116.3 + k * 0.001, 39.9, 40.0, 0, 3) for k in range(1, 60)]
    cols = columns(points)
    every = collapse_parked(cols, TH, range(len(cols)))  # as track_points reads every fix
    assert len(every) < len(cols) / 4
    union = summarised_union(cols)
    seams = [i for i in range(1, len(union)) if union.times[i] // DAY_MS != union.times[i - 1] // DAY_MS]
    assert stop_places(union) != stop_places(every)  # the seam's fixes count twice more than they should
    assert stop_places(collapse_parked(union, TH, [s - 1 for s in seams] + seams)) == stop_places(every)
