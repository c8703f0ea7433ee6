"""THE fleet figures: one SQL definition of each figure the console shows in several places (the live
map's counts, the dashboard, the cockpits, the bell, a vehicle's detail), so that at one moment every
screen reads the same number.

- **fleet**: the live cars of the scope (``car.record_state = 1``), exactly the cars the map lists
  (``car_view``); a car without a master device is in the fleet and offline.
- **online**: the car's master device is online (``device.state`` ONLINE) and its business state is
  not offline (the console's ``isVehicleOnline``, dashboards/src/live/vehicleStates.ts).
- **alarming**: online, and the master device's last fix (``device_last``) carries a JT/T 808 alarm bit.
- **today's mileage** of a car: the sum over its master device's fixes since local midnight of each
  segment's sane odometer delta, the reports' rule (pipelines/mileage.py, docs/reports.md §3): a delta
  counts when ``0 <= Δ <= v_max·Δt + 0.5 km``; a negative one (reset, swapped terminal) counts nothing;
  a larger one (a jump) or a segment without odometer counts the segment's great-circle distance, when
  that is plausible (same ceiling), else nothing. An odometer jump never becomes thousands of km.
- **today's alarms**: the alarms raised since local midnight (the trigger-kept ``alarm_day_count``).
- **unhandled**: the alarms nobody handled yet (state 0), whatever their day (the bell's number).

Every function takes a ``Scope`` (tenant column: the car's, or the alarm's, enterprise). The API's
routes call these and nothing else for these figures (api/routes/figures.py, console.py, alarms.py,
car_detail.py, tracks.py).
"""

from __future__ import annotations

from datetime import date, datetime
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


# Each segment between two consecutive positioned fixes of a car's master device in [since, until).
_SEGMENT_KM = """
    WITH fixes AS (
        SELECT c.id AS car_id, g.mileage_km::float8 AS odo, g.lng, g.lat,
               date_part('epoch', g.fix_at) AS t,
               lag(g.mileage_km::float8) OVER w AS prev_odo, lag(g.lng) OVER w AS prev_lng,
               lag(g.lat) OVER w AS prev_lat, lag(date_part('epoch', g.fix_at)) OVER w AS prev_t
        FROM car c
        JOIN gps g ON g.device_id = c.master_device_id AND g.fix_at >= %s AND g.fix_at < %s
        WHERE c.record_state = 1 AND (g.status_flags & {positioned}) <> 0 AND g.lng IS NOT NULL
          AND g.lat IS NOT NULL AND {where}
        WINDOW w AS (PARTITION BY g.device_id ORDER BY g.fix_at)
    ), segments AS (
        SELECT car_id, odo - prev_odo AS d_odo,
               %s * (t - prev_t) / 3600.0 + {slack} AS ceiling_km,
               2 * {radius} * asin(least(1.0, sqrt(
                   power(sin(radians(lat - prev_lat) / 2), 2)
                   + cos(radians(prev_lat)) * cos(radians(lat)) * power(sin(radians(lng - prev_lng) / 2), 2)
               ))) AS gps_km
        FROM fixes WHERE prev_t IS NOT NULL
    )
    SELECT car_id, round(sum(CASE
               WHEN d_odo IS NOT NULL AND d_odo < 0 THEN 0
               WHEN d_odo IS NOT NULL AND d_odo <= ceiling_km THEN d_odo
               WHEN gps_km <= ceiling_km THEN gps_km
               ELSE 0 END)::numeric, 1)::float8 AS km
    FROM segments GROUP BY car_id
"""


def mileage_by_car(conn: Connection[Any], scope: Scope, since: datetime, until: datetime, v_max_kmh: float,
                   *, car_id: int | None = None, car_type: int | None = None) -> dict[int, float]:
    """{car id: km} over [since, until) by the module's rule, for the scope's cars with two fixes or more
    (only ``car_id`` / the cars of ``car_type`` when given). ``v_max_kmh``: the reports' setting
    (``ReportSettings.v_max_kmh``)."""
    where, params = _cars(scope, car_type)
    if car_id is not None:
        where = where + sql.SQL(" AND c.id = %s")
        params = [*params, car_id]
    query = sql.SQL(_SEGMENT_KM).format(positioned=sql.Literal(POSITIONED), slack=sql.Literal(ODOMETER_SLACK_KM),
                                        radius=sql.Literal(EARTH_RADIUS_KM), where=where)
    rows = conn.execute(query, [since, until, *params, float(v_max_kmh)]).fetchall()
    return {int(r[0]): float(r[1]) for r in rows}


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


def figures(conn: Connection[Any], scope: Scope, since: datetime, now: datetime, v_max_kmh: float, *,
            alarms: bool = True, car_type: int | None = None, top: int = 10) -> dict[str, Any]:
    """Every figure at one moment: the state counts, ``todayMileageKm`` (and ``topToday``, the ``top`` cars
    that drove most today), ``todayAlarms`` and ``unhandled`` (None without ``alarms``: the caller may not
    read alarms; with ``car_type`` too: alarms are counted per enterprise, not per type).
    ``since``: local midnight of ``now`` as an aware datetime in UTC+8 (its date is the alarms' day)."""
    counts = state_counts(conn, scope, car_type=car_type)
    km = mileage_by_car(conn, scope, since, now, v_max_kmh, car_type=car_type)
    alarm_figures: dict[str, int | None] = {"todayAlarms": None, "unhandled": None}
    if alarms and car_type is None:
        alarm_figures = {"todayAlarms": alarms_on(conn, scope, since.date()), "unhandled": unhandled(conn, scope)}
    return {**counts, "todayMileageKm": round(sum(km.values()), 1), "topToday": top_cars(conn, km, top),
            **alarm_figures}
