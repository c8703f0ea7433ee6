"""Reads behind the history logs (api/query/entities_logs.py) that are not plain entity queries:
one vehicle's fixes for stop detection (the parking and idling logs).

Scoped like every query here: a vehicle outside the scope answers None, as one that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope


@dataclass(frozen=True)
class Track:
    """Columns of one device's fixes, aligned (epoch ms; ACC from status bit 0)."""

    car_id: int
    plate_number: str
    device_id: int | None
    times_ms: list[int]
    speeds_kmh: list[float | None]
    acc_on: list[bool | None]
    lngs: list[float | None]
    lats: list[float | None]


def master_track(conn: Connection[Any], scope: Scope, car_id: int, start: datetime, end: datetime) -> Track | None:
    """The fixes of the car's master terminal recorded for this car in [start, end], in no particular
    order (``fleet.stops`` sorts by fix time, where late 0x0704 backlogs fall into place); None when
    the car is not in scope."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    car_query = sql.SQL(
        "SELECT id, plate_number, master_device_id FROM car WHERE id = %s AND record_state = 1 AND ") + where
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(car_query, [car_id, *params])
        car = cur.fetchone()
    if car is None:
        return None
    track = Track(car_id, car["plate_number"], car["master_device_id"], [], [], [], [], [])
    if car["master_device_id"] is None:
        return track
    # Five columns as arrays of one row, in binary: a month of 10 s fixes (268k) in about half the time
    # of as many rows. Unordered: the arrays are aggregated together (aligned), and detect_stops sorts.
    fixes = sql.SQL(
        """SELECT array_agg((extract(epoch FROM fix_at) * 1000)::bigint), array_agg(speed_kmh),
                  array_agg((status_flags & 1) = 1), array_agg(lng), array_agg(lat)
           FROM gps WHERE device_id = %s AND car_id = %s AND fix_at >= %s AND fix_at <= %s AND """
    ) + where
    with conn.cursor(binary=True) as cur:
        cur.execute(fixes, [car["master_device_id"], car_id, start, end, *params])
        row = cur.fetchone()
    if row is None or row[0] is None:
        return track
    times, speeds, acc, lngs, lats = row
    return Track(car_id, car["plate_number"], car["master_device_id"], times, speeds, acc, lngs, lats)
