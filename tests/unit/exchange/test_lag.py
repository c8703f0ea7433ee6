"""The lag histogram of real-time positions: what a benchmark reads as "p99 at most"."""

from datetime import UTC, datetime, timedelta

from exchange.regulator.lag import LagHistogram
from exchange.regulator.tally import Tally


def test_percentiles_are_the_bucket_edges_the_share_falls_under() -> None:
    lag = LagHistogram()
    assert lag.at_most(0.99) is None
    for _ in range(98):
        lag.add(0.2)
    lag.add(1.2)
    lag.add(4000.0)
    got = lag.as_json()
    assert (got["positions"], got["p50_at_most_s"], got["p99_at_most_s"], got["max_s"]) == (100, 0.5, 1.5, 4000.0)
    assert got["buckets"]["<=0.5s"] == 98 and got["buckets"][">3600s"] == 1
    lag.add(4000.0)
    assert lag.as_json()["p99_at_most_s"] == "inf"


def test_only_new_real_time_fixes_count_not_duplicates_nor_backfills() -> None:
    tally = Tally()
    fix = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    tally.real_time("京A1", 2, fix, fix + timedelta(seconds=0.7))
    tally.real_time("京A1", 2, fix, fix + timedelta(seconds=9))  # a duplicate: its lag says nothing
    tally.backfill("京A1", 2, [fix - timedelta(minutes=5)])
    assert tally.lag.total == 1 and tally.lag.at_most(1.0) == 1.0
