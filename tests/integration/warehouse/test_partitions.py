"""Daily gps partitions on the real PostgreSQL (native partitioning; no TimescaleDB here)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from warehouse.db import connect
from warehouse.partitions import (
    ensure_gps_partitions,
    existing_partitions,
    gps_is_native_partitioned,
    partition_name,
)
from warehouse.seed import device_phone, seed_demo

# Far from the days other tests write, so their rows never land in these partitions.
DAY = date(2031, 5, 10)


@pytest.fixture(scope="module")
def device(pg_url: str) -> tuple[int, int]:
    seed_demo(pg_url, terminals=20)
    with connect(pg_url) as conn:
        row = conn.execute("SELECT id, enterprise_id FROM device WHERE phone = %s", (device_phone(3),)).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])


def insert_points(conn: Any, device: tuple[int, int], times: list[datetime]) -> None:
    for at in times:
        conn.execute(
            "INSERT INTO gps (device_id, fix_at, enterprise_id, lng, lat) VALUES (%s, %s, %s, 116.4, 39.9)",
            (device[0], at, device[1]),
        )


def count(conn: Any, table: str, day: date) -> int:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    row = conn.execute(
        f"SELECT count(*) FROM {table} WHERE fix_at >= %s AND fix_at < %s",  # noqa: S608 - test-owned names
        (start, start + timedelta(days=1)),
    ).fetchone()
    return int(row[0])


def test_gps_is_natively_partitioned_without_timescaledb(pg_conn: Any) -> None:
    assert gps_is_native_partitioned(pg_conn)
    assert "gps_default" in existing_partitions(pg_conn)


def test_creates_one_partition_per_day_ahead_and_is_idempotent(pg_url: str) -> None:
    start = DAY + timedelta(days=30)
    with connect(pg_url) as conn:
        created = ensure_gps_partitions(conn, start, days_ahead=2)
        assert created == [partition_name(start + timedelta(days=i)) for i in range(3)]
        assert ensure_gps_partitions(conn, start, days_ahead=2) == []
        assert {"gps_20310609", "gps_20310610", "gps_20310611"} <= existing_partitions(conn)


def test_moves_rows_waiting_in_the_default_partition_into_the_new_one(pg_url: str, device: tuple[int, int]) -> None:
    noon = datetime(DAY.year, DAY.month, DAY.day, 12, tzinfo=UTC)
    next_day = noon + timedelta(days=1)
    with connect(pg_url) as conn:
        insert_points(conn, device, [noon, noon + timedelta(minutes=1), next_day])
        conn.commit()
        assert count(conn, "gps_default", DAY) == 2
        created = ensure_gps_partitions(conn, DAY, days_ahead=1)
        assert created == [partition_name(DAY), partition_name(DAY + timedelta(days=1))]
        assert count(conn, "gps_default", DAY) == 0
        assert count(conn, partition_name(DAY), DAY) == 2
        assert count(conn, partition_name(DAY + timedelta(days=1)), DAY + timedelta(days=1)) == 1
        assert count(conn, "gps", DAY) == 2  # nothing lost, nothing duplicated
        # The default is attached again: rows of days without a partition still land there.
        insert_points(conn, device, [noon - timedelta(days=3)])
        conn.commit()
        assert count(conn, "gps_default", DAY - timedelta(days=3)) == 1
        # Upserts keep working through the new partition's primary key.
        conn.execute(
            "INSERT INTO gps (device_id, fix_at, enterprise_id, lng, lat) VALUES (%s, %s, %s, 1, 1)"
            " ON CONFLICT (device_id, fix_at) DO UPDATE SET lng = EXCLUDED.lng",
            (device[0], noon, device[1]),
        )
        conn.commit()
        assert count(conn, "gps", DAY) == 2


def test_partition_bounds_are_utc_days(pg_url: str, device: tuple[int, int]) -> None:
    day = DAY + timedelta(days=60)
    midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, day, days_ahead=0)
        insert_points(conn, device, [midnight, midnight - timedelta(microseconds=1)])
        conn.commit()
        assert count(conn, partition_name(day), day) == 1
        assert count(conn, "gps_default", day - timedelta(days=1)) == 1


def test_refuses_an_autocommit_connection(pg_url: str) -> None:
    with connect(pg_url, autocommit=True) as conn, pytest.raises(ValueError, match="autocommit"):
        ensure_gps_partitions(conn, DAY)
