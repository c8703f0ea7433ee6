"""Reads behind the history logs (api/query/entities_logs.py) that are not plain entity queries:
one vehicle's fixes for stop detection (the parking and idling logs).

Scoped like every query here: a vehicle outside the scope answers None, as one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from fleet.stops import StopThresholds
from warehouse import track_days
from warehouse.queries.scope import Scope


@dataclass(frozen=True)
class Track:
    """Columns of one device's fixes, aligned (epoch ms; ACC from status bit 0)."""

    car_id: int
    plate_number: str
    device_id: int | None
    times_ms: Sequence[int]
    speeds_kmh: Sequence[float | None]
    acc_on: Sequence[bool | None]
    lngs: Sequence[float | None]
    lats: Sequence[float | None]


def master_track(conn: Connection[Any], scope: Scope, car_id: int, start: datetime, end: datetime,
                 thresholds: StopThresholds) -> Track | None:
    """What stop detection needs of the fixes of the car's master terminal recorded for this car in
    [start, end], in fix-time order (``fleet.track_summary``: the detected stops are those of every
    fix); None when the car is not in scope."""
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
    # Closed whole days from their summaries (warehouse.track_days: the fixes stop detection needs,
    # exactly the stops of every fix) when the day's fixes are all this car's and in scope; gps for the
    # rest, filtered as such.
    in_scope: dict[int, bool] = {}

    def allowed(enterprise_id: int) -> bool:
        if enterprise_id not in in_scope:
            clause, clause_params = scope.clause(sql.Identifier("id"))
            found = conn.execute(sql.SQL("SELECT EXISTS (SELECT 1 FROM enterprise WHERE id = %s AND ") + clause
                                 + sql.SQL(")"), [enterprise_id, *clause_params]).fetchone()
            in_scope[enterprise_id] = bool(found and found[0])
        return in_scope[enterprise_id]

    def accept(day: track_days.StoredDay) -> bool:
        return day.summary.points == 0 or (
            day.car_id == car_id and day.enterprise_id is not None and allowed(day.enterprise_id))

    found = track_days.track_columns(
        conn, car["master_device_id"], start, end + timedelta(milliseconds=1), thresholds=thresholds,
        accept=accept, where=sql.SQL("car_id = %s AND ") + where, params=[car_id, *params])
    kept = found.kept
    return Track(car_id, car["plate_number"], car["master_device_id"], kept.times, kept.speeds, kept.acc,
                 kept.lngs, kept.lats)
