"""The regulator's reconciliation against the real PostgreSQL: the gps rows of the vehicles in the
window are what an inferior forwarding every position must have delivered; a fix that never arrived is
missing, one the regulator got twice a duplicate, rows of other vehicles or outside the window do not
count."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from exchange.regulator import reconcile
from exchange.regulator.tally import Tally
from warehouse.db import connect
from warehouse.seed import seed_demo

# Far from the days other tests write, so no other rows fall in the window.
START = datetime(2032, 7, 14, 1, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def cars(pg_url: str) -> Iterator[list[tuple[str, int, int, int]]]:
    """Two live cars with their master device: (plate, colour, device id, enterprise id)."""
    seed_demo(pg_url, terminals=20)
    with connect(pg_url) as conn:
        rows = conn.execute(
            """SELECT c.plate_number, c.plate_color, d.id, d.enterprise_id FROM car c
                 JOIN device d ON d.id = c.master_device_id WHERE c.record_state = 1 ORDER BY c.id LIMIT 3"""
        ).fetchall()
    assert len(rows) == 3
    yield [(str(p), int(c), int(d), int(e)) for p, c, d, e in rows]
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM gps WHERE fix_at >= %s AND fix_at < %s", (START - timedelta(days=1),
                                                                         START + timedelta(days=1)))
        conn.commit()


def store(conn: Any, device_id: int, enterprise_id: int, seconds: list[int]) -> None:
    for s in seconds:
        conn.execute("INSERT INTO gps (device_id, fix_at, enterprise_id, lng, lat) VALUES (%s, %s, %s, 116.4, 39.9)"
                     " ON CONFLICT DO NOTHING", (device_id, START + timedelta(seconds=s), enterprise_id))
    conn.commit()


def test_reconcile_counts_missing_duplicate_and_unexpected_positions_per_vehicle(
        pg_conn: Any, cars: list[tuple[str, int, int, int]]) -> None:
    (plate_a, colour_a, dev_a, ent_a), (plate_b, colour_b, dev_b, ent_b), (plate_c, _, dev_c, ent_c) = cars
    store(pg_conn, dev_a, ent_a, [0, 10, 20, 30, -60, 4000])  # -60 and 4000: outside the window
    store(pg_conn, dev_b, ent_b, [5, 15])
    store(pg_conn, dev_c, ent_c, [7])  # a vehicle not asked about

    tally = Tally()
    for s in (0, 10, 10, 30):  # 20 never arrived, 10 twice
        tally.real_time(plate_a, colour_a, START + timedelta(seconds=s))
    tally.backfill(plate_b, colour_b, [START + timedelta(seconds=s) for s in (5, 15, 25)])  # 25 is not stored
    tally.real_time(plate_b, colour_b, START + timedelta(seconds=4000))  # arrived, outside the window

    result = reconcile(pg_conn, tally, START, START + timedelta(hours=1), [plate_a, plate_b])

    assert {k: result[k] for k in ("expected", "received", "missing", "unexpected", "duplicates")} == {
        "expected": 6, "received": 6, "missing": 1, "unexpected": 1, "duplicates": 1}
    by_plate = {v["plate"]: v for v in result["vehicles"]}
    assert (by_plate[plate_a]["missing"], by_plate[plate_a]["duplicates"]) == (1, 1)
    assert by_plate[plate_a]["first_missing"] == (START + timedelta(seconds=20)).isoformat()
    assert (by_plate[plate_b]["expected"], by_plate[plate_b]["unexpected"]) == (2, 1)
    assert plate_c not in by_plate


def test_reconcile_refuses_a_naive_or_empty_window(pg_conn: Any) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        reconcile(pg_conn, Tally(), START.replace(tzinfo=None), START + timedelta(hours=1), [])
    with pytest.raises(ValueError, match="until after since"):
        reconcile(pg_conn, Tally(), START, START, [])
