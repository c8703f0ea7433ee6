"""How a range is cut for the day summaries (closed whole UTC days vs the rest) and when the daily run is due."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from warehouse.track_days import plan_parts, seconds_until_next_run

D = datetime(2026, 3, 1, tzinfo=UTC)


def test_whole_closed_days_are_summary_parts_and_the_rest_is_merged() -> None:
    start, end = D + timedelta(hours=15), D + timedelta(days=4, hours=9)
    parts = plan_parts(start, end, now_day=date(2026, 3, 4))
    assert parts == [
        (start, D + timedelta(days=1), None),
        (D + timedelta(days=1), D + timedelta(days=2), date(2026, 3, 2)),
        (D + timedelta(days=2), D + timedelta(days=3), date(2026, 3, 3)),
        (D + timedelta(days=3), end, None),  # today (not closed) and the partial last day: one gps read
    ]


def test_a_range_inside_one_day_is_one_gps_part() -> None:
    start, end = D + timedelta(hours=1), D + timedelta(hours=2)
    assert plan_parts(start, end, now_day=date(2030, 1, 1)) == [(start, end, None)]
    assert plan_parts(D, D + timedelta(days=1), now_day=date(2030, 1, 1)) == [(D, D + timedelta(days=1), D.date())]


def test_the_daily_run_is_after_the_next_midnight() -> None:
    assert seconds_until_next_run(D + timedelta(minutes=5), 600) == 300
    assert seconds_until_next_run(D + timedelta(minutes=20), 600) == 86_400 - 600
