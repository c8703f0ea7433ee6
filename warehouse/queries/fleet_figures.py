"""THE fleet figures: one SQL definition of each figure the console shows in several places (the live
map's counts, the dashboard, the cockpits, the bell, a vehicle's detail), so that at one moment every
screen reads the same number.

- **fleet**: the live cars of the scope (``car.record_state = 1``), exactly the cars the map lists
  (``car_view``); a car without a master device is in the fleet and offline.
- **online**: the car's master device is online (``device.state`` ONLINE) and its business state is
  not offline (the console's ``isVehicleOnline``, dashboards/src/live/vehicleStates.ts).
- **alarming**: online, and the master device's last fix (``device_last``) carries a JT/T 808 alarm bit.
- **today's mileage** of a car: the sum over its master device's positioned fixes since local midnight of
  each segment's km by the reports' rule (``segment_km``; pipelines/mileage.py, docs/reports.md §3): a
  sane odometer delta (``0 <= Δ <= v_max·Δt + 0.5 km``) counts; a negative one (reset, swapped terminal)
  counts nothing; a larger one (a jump), or a segment without odometer, counts the segment's great-circle
  distance when that is plausible (same ceiling), else nothing. An odometer jump never becomes thousands
  of km. ``TodayMileage`` keeps every device's sum in memory and folds in only the new fixes on each read
  (a whole fleet's day is millions of fixes: a window query over them took 12-14 s).
- **today's alarms**: the alarms raised since local midnight (the trigger-kept ``alarm_day_count``).
- **unhandled**: the alarms nobody handled yet (state 0), whatever their day (the bell's number).

Every function takes a ``Scope`` (tenant column: the car's, or the alarm's, enterprise). The API's
routes call these and nothing else for these figures (api/routes/figures.py, console.py, alarms.py,
car_detail.py, tracks.py).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from fleet.enums import BizState, DeviceState
from warehouse.queries.scope import Scope

# The unsigned 32-bit JT/T 808 alarm word of a fix.
ALARM_BITS = 4294967295
POSITIONED = 2  # status bit 1 (JT/T 808 table 24)
EARTH_RADIUS_KM = 6371.0088  # as pipelines/rules.py
ODOMETER_SLACK_KM = 0.5  # the reports' allowance over v_max·Δt (pipelines/mileage.py)

# ``d`` is the master device (LEFT JOINed: NULL for a car without one).
ONLINE_SQL = sql.SQL("COALESCE(d.state = {} AND d.biz_state <> {}, false)").format(
    sql.Literal(int(DeviceState.ONLINE)), sql.Literal(int(BizState.OFFLINE)))

_STATES = sql.SQL(
    """SELECT
         count(*) FILTER (WHERE online AND d.biz_state = {driving}) AS running,
         count(*) FILTER (WHERE online AND d.biz_state = {parked}) AS parking,
         count(*) FILTER (WHERE online AND d.biz_state = {engine_off}) AS flameout,
         count(*) FILTER (WHERE online AND d.biz_state = {no_signal}) AS "noSignal",
         count(*) FILTER (WHERE NOT online) AS offline,
         count(*) FILTER (WHERE online) AS online,
         count(*) FILTER (WHERE online AND (l.alarm_flags & {bits}) <> 0) AS alarming,
         count(*) AS total
       FROM car c
       LEFT JOIN device d ON d.id = c.master_device_id
       LEFT JOIN device_last l ON l.device_id = d.id
       CROSS JOIN LATERAL (SELECT {online} AS online) s
       WHERE c.record_state = 1 AND {where}"""
)


def _cars(scope: Scope, car_type: int | None) -> tuple[sql.Composed, list[Any]]:
    """The scope's clause on car ``c``, and on its energy type (platform-spec §9) when given."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    if car_type is not None:
        where, params = where + sql.SQL(" AND c.car_type = %s"), [*params, car_type]
    return where, params


def state_counts(conn: Connection[Any], scope: Scope, *, video: bool = False,
                 car_type: int | None = None) -> dict[str, int]:
    """{running, parking, flameout, noSignal, offline, online, alarming, total} of the scope's fleet.
    ``video``: only the cars whose master device has video; ``car_type``: only the cars of that type."""
    where, params = _cars(scope, car_type)
    if video:
        where = where + sql.SQL(" AND d.has_video > 0")
    query = _STATES.format(
        driving=sql.Literal(int(BizState.DRIVING)), parked=sql.Literal(int(BizState.PARKED)),
        engine_off=sql.Literal(int(BizState.ENGINE_OFF)), no_signal=sql.Literal(int(BizState.NO_SIGNAL)),
        bits=sql.Literal(ALARM_BITS), online=ONLINE_SQL, where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(query, params).fetchone()
    assert row is not None  # an aggregate without GROUP BY always answers one row
    return {key: int(value) for key, value in row.items()}


@dataclass
class _Chain:
    """A device's odometer chain today: its last fix folded in and the km counted so far."""

    t: float
    odo: float | None
    lng: float
    lat: float
    km: float = 0.0


def segment_km(d_odo: float | None, dt_s: float, gps_km: float, v_max_kmh: float) -> float:
    """THE rule of one segment's km (the reports', pipelines/mileage.py): a sane odometer delta
    (``0 <= Δ <= v_max·Δt + 0.5``) counts; a negative one (reset, swapped terminal) counts nothing; a larger
    one (a jump), or none, counts the great-circle distance when that is plausible (same ceiling)."""
    ceiling = v_max_kmh * dt_s / 3600 + ODOMETER_SLACK_KM
    if d_odo is not None and d_odo < 0:
        return 0.0
    if d_odo is not None and d_odo <= ceiling:
        return d_odo
    return gps_km if gps_km <= ceiling else 0.0


def great_circle_km(lng1: float, lat1: float, lng2: float, lat2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lng2 - lng1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def _fold(chains: dict[int, _Chain], rows: Iterable[tuple[Any, ...]], v_max_kmh: float) -> None:
    """Adds (device_id, epoch s, odometer km, lng, lat) rows, in time order per device, to their chains;
    a fix not newer than its device's last one folded (a late one) is skipped."""
    for device, t, odo, lng, lat in rows:
        chain = chains.get(device)
        km_reading = None if odo is None else float(odo)
        if chain is None:
            chains[device] = _Chain(float(t), km_reading, float(lng), float(lat))
            continue
        if t <= chain.t:
            continue
        d_odo = None if km_reading is None or chain.odo is None else km_reading - chain.odo
        chain.km += segment_km(d_odo, float(t) - chain.t,
                               great_circle_km(chain.lng, chain.lat, float(lng), float(lat)), v_max_kmh)
        chain.t, chain.odo, chain.lng, chain.lat = float(t), km_reading, float(lng), float(lat)


_FIXES = sql.SQL(
    """SELECT device_id, date_part('epoch', fix_at), mileage_km, lng, lat FROM gps
       WHERE fix_at >= %s AND fix_at < %s AND (status_flags & {positioned}) <> 0
         AND lng IS NOT NULL AND lat IS NOT NULL AND {devices}
       ORDER BY device_id, fix_at""")


def _fixes(conn: Connection[Any], start: datetime, end: datetime, device_id: int | None) -> Iterator[tuple[Any, ...]]:
    devices = sql.SQL("TRUE") if device_id is None else sql.SQL("device_id = %s")
    params: list[Any] = [start, end] + ([] if device_id is None else [device_id])
    with conn.cursor() as cur:
        cur.execute(_FIXES.format(positioned=sql.Literal(POSITIONED), devices=devices), params)
        while rows := cur.fetchmany(20_000):
            yield from rows


# The day's fold in SQL (the first read of a day: a fleet's day is millions of fixes, which PostgreSQL folds
# several times faster than Python): ``segment_km`` per segment, the great-circle distance only where the
# odometer does not settle it; then each device's km and its last fix, where the incremental reads go on.
_DAY_FOLD = sql.SQL(
    """WITH fixes AS (
           SELECT device_id, date_part('epoch', fix_at) AS t, mileage_km::float8 AS odo, lng, lat,
                  lag(date_part('epoch', fix_at)) OVER w AS prev_t, lag(mileage_km::float8) OVER w AS prev_odo,
                  lag(lng) OVER w AS prev_lng, lag(lat) OVER w AS prev_lat,
                  lead(fix_at) OVER w IS NULL AS is_last
           FROM gps WHERE fix_at >= %s AND fix_at < %s AND (status_flags & {positioned}) <> 0
             AND lng IS NOT NULL AND lat IS NOT NULL
           WINDOW w AS (PARTITION BY device_id ORDER BY fix_at)
       ), segments AS (
           SELECT device_id, t, odo, lng, lat, is_last, odo - prev_odo AS d_odo,
                  %s * (t - prev_t) / 3600.0 + {slack} AS ceiling_km, prev_lng, prev_lat, prev_t
           FROM fixes
       )
       SELECT device_id,
              COALESCE(sum(CASE
                  WHEN prev_t IS NULL THEN 0
                  WHEN d_odo IS NOT NULL AND d_odo < 0 THEN 0
                  WHEN d_odo IS NOT NULL AND d_odo <= ceiling_km THEN d_odo
                  ELSE (SELECT CASE WHEN g <= ceiling_km THEN g ELSE 0 END FROM (SELECT 2 * {radius} * asin(least(1.0,
                        sqrt(power(sin(radians(lat - prev_lat) / 2), 2) + cos(radians(prev_lat)) * cos(radians(lat))
                             * power(sin(radians(lng - prev_lng) / 2), 2)))) AS g) d)
              END), 0) AS km,
              max(t) FILTER (WHERE is_last), max(odo) FILTER (WHERE is_last),
              max(lng) FILTER (WHERE is_last), max(lat) FILTER (WHERE is_last)
       FROM segments GROUP BY device_id""")


def _day_fold(conn: Connection[Any], start: datetime, end: datetime, v_max_kmh: float) -> dict[int, _Chain]:
    query = _DAY_FOLD.format(positioned=sql.Literal(POSITIONED), slack=sql.Literal(ODOMETER_SLACK_KM),
                             radius=sql.Literal(EARTH_RADIUS_KM))
    rows = conn.execute(query, [start, end, float(v_max_kmh)]).fetchall()
    return {int(device): _Chain(float(t), None if odo is None else float(odo), float(lng), float(lat), float(km))
            for device, km, t, odo, lng, lat in rows}


class TodayMileage:
    """Today's km of every device (the module's rule), kept in memory and brought up to date
    incrementally: the first read of a day folds the day's fixes since ``since`` (in SQL), later reads only
    the fixes since the last read (in Python, ``segment_km``) (a minute of overlap for slightly late ones; older late fixes are left to
    the reports). One instance per process (the API keeps it), shared by every caller and scope: at most
    one refresh every ``min_refresh_s``. Thread-safe."""

    OVERLAP_S = 60.0

    def __init__(self, v_max_kmh: float, min_refresh_s: float = 2.0) -> None:
        self.v_max_kmh = v_max_kmh
        self.min_refresh_s = min_refresh_s
        self._lock = threading.Lock()
        self._since: datetime | None = None
        self._cursor: datetime | None = None
        self._refreshed = 0.0
        self._chains: dict[int, _Chain] = {}

    def by_device(self, conn: Connection[Any], since: datetime, now: datetime) -> dict[int, float]:
        """{device id: km} since ``since`` (local midnight) up to ``now``."""
        with self._lock:
            if self._since != since:  # a new day: fold what it has so far in SQL
                self._since, self._cursor, self._refreshed = since, now, time.monotonic()
                self._chains = _day_fold(conn, since, now, self.v_max_kmh)
            elif time.monotonic() - self._refreshed >= self.min_refresh_s:
                assert self._cursor is not None
                start = max(since, self._cursor - timedelta(seconds=self.OVERLAP_S))
                _fold(self._chains, _fixes(conn, start, now, None), self.v_max_kmh)
                self._cursor, self._refreshed = max(self._cursor, now), time.monotonic()
            return {device: round(chain.km, 1) for device, chain in self._chains.items()}


def device_mileage(conn: Connection[Any], device_id: int, since: datetime, now: datetime, v_max_kmh: float) -> float | None:
    """One device's km since ``since`` by the module's rule (None without a positioned fix)."""
    chains: dict[int, _Chain] = {}
    _fold(chains, _fixes(conn, since, now, device_id), v_max_kmh)
    chain = chains.get(device_id)
    return None if chain is None else round(chain.km, 1)


def mileage_by_car(conn: Connection[Any], scope: Scope, km_by_device: dict[int, float], *,
                   car_type: int | None = None) -> dict[int, float]:
    """{car id: km} of the scope's fleet (of ``car_type`` when given) from their master devices' km."""
    where, params = _cars(scope, car_type)
    rows = conn.execute(sql.SQL("SELECT c.id, c.master_device_id FROM car c WHERE c.record_state = 1"
                                " AND c.master_device_id IS NOT NULL AND {}").format(where), params).fetchall()
    return {int(car): km_by_device[int(device)] for car, device in rows if int(device) in km_by_device}


def alarms_on(conn: Connection[Any], scope: Scope, day: date) -> int:
    """Alarms raised on the local ``day`` (UTC+8, the rollup's day) in the scope."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    row = conn.execute(sql.SQL("SELECT COALESCE(sum(total), 0) FROM alarm_day_count WHERE day = %s AND {}")
                       .format(where), [day, *params]).fetchone()
    return int(row[0]) if row else 0


def unhandled(conn: Connection[Any], scope: Scope) -> int:
    """Alarms in ``scope`` nobody handled yet (state 0), backlog ones included: the bell's number."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    row = conn.execute(sql.SQL("SELECT count(*) FROM alarm WHERE state = 0 AND {}").format(where), params).fetchone()
    return int(row[0]) if row else 0


def top_cars(conn: Connection[Any], km: dict[int, float], n: int) -> list[dict[str, Any]]:
    """[{carId, plateNumber, km}] of the ``n`` cars that drove most (ties by car id), none at 0 km."""
    ranked = sorted(((value, car) for car, value in km.items() if value > 0), key=lambda x: (-x[0], x[1]))[:n]
    plates = dict(conn.execute("SELECT id, plate_number FROM car WHERE id = ANY(%s)",
                               ([car for _, car in ranked],)).fetchall()) if ranked else {}
    return [{"carId": car, "plateNumber": plates.get(car), "km": value} for value, car in ranked]


def figures(conn: Connection[Any], scope: Scope, since: datetime, km_by_device: dict[int, float], *,
            alarms: bool = True, car_type: int | None = None, top: int = 10) -> dict[str, Any]:
    """Every figure at one moment: the state counts, ``todayMileageKm`` (and ``topToday``, the ``top`` cars
    that drove most today), ``todayAlarms`` and ``unhandled`` (None without ``alarms``: the caller may not
    read alarms; with ``car_type`` too: alarms are counted per enterprise, not per type).
    ``since``: local midnight as an aware datetime in UTC+8 (its date is the alarms' day);
    ``km_by_device``: today's km per device (``TodayMileage``)."""
    counts = state_counts(conn, scope, car_type=car_type)
    km = mileage_by_car(conn, scope, km_by_device, car_type=car_type)
    alarm_figures: dict[str, int | None] = {"todayAlarms": None, "unhandled": None}
    if alarms and car_type is None:
        alarm_figures = {"todayAlarms": alarms_on(conn, scope, since.date()), "unhandled": unhandled(conn, scope)}
    return {**counts, "todayMileageKm": round(sum(km.values()), 1), "topToday": top_cars(conn, km, top),
            **alarm_figures}
