"""Position reads that stay fast at 10,000 vehicles and months of fixes.

PostgreSQL builds the JSON of the rows (``json_build_array`` or concatenated text): Python never touches
a row of a reply, it passes the text through. Reads of ``gps`` always name the device and a fix-time
range, so the planner prunes to the days' partitions and walks the (device_id, fix_at) primary key
(plans in docs/performance.md). Scoping as everywhere: a ``Scope`` on the car's enterprise; a car
outside it is None, exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection, sql

from fleet.position_wire import POSITION_FIELDS
from warehouse.queries.fleet_figures import ONLINE_SQL
from warehouse.queries.scope import Scope
from warehouse.queries.track_alarms import POINT_FIELDS, alarm_info_sql, has_alarm_sql, point_tail_sql

LAST_FIELDS = POSITION_FIELDS  # fleet.position_wire: the one position shape on the wire
# The eleven of contract B, then the track point's alarm fields (console-spec §3, track_alarms).
TRACK_FIELDS = ("time", "lng", "lat", "speed", "direction", "altitude", "mileage", "oilmass", "acc", "alarmType",
                "status", *POINT_FIELDS)
DEFAULT_LANGUAGE = "zh-CN"

# date_part is float8 arithmetic (extract() is numeric since PostgreSQL 14: several times slower per
# row); a double holds epoch milliseconds exactly.
_EPOCH_MS = "round(date_part('epoch', {t}) * 1000)::bigint"
# alarmType is the unsigned 32-bit JT/T 808 word, as in api.positions.position_reply.
_UNSIGNED_ALARM = "({a} & 4294967295)"


_NO_POSITION = ",".join(["null"] * 10)


def last_positions_json(conn: Connection[Any], scope: Scope, car_ids: Sequence[int] | None) -> str:
    """JSON array text of LAST_FIELDS rows: one per live car in scope with a master device (car id order),
    only ``car_ids`` when given. Position fields are null when the device has no fix yet; ``online`` is
    1 when the car is online by the fleet figures' rule (``fleet_figures.ONLINE_SQL``: device state
    ONLINE and a business state other than offline), whatever its position.

    The position fields come pre-formatted from ``device_last.reply_json`` (a generated column,
    migration 0017): a row is five short strings concatenated, not fifteen values through
    json_build_array (half the time for 10,000 cars, docs/performance.md)."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    if car_ids is not None:
        where = where + sql.SQL(" AND c.id = ANY(%s::bigint[])")
        params = [*params, list(car_ids)]
    query = sql.SQL(
        """SELECT '[' || coalesce(string_agg(
                '[' || c.id || ',' || d.id || ',' || coalesce(to_json(c.plate_number)::text, 'null') || ','
                || coalesce(l.reply_json, %s) || ',' || ({online})::int || ','
                || coalesce(d.biz_state::text, 'null') || ']', ',' ORDER BY c.id), '') || ']'
           FROM car c JOIN device d ON d.id = c.master_device_id
           LEFT JOIN device_last l ON l.device_id = d.id
           WHERE c.record_state = 1 AND """
    )
    if car_ids is None and not conn.autocommit:
        # The planner guesses a few dozen cars under an enterprise path (LIKE) and walks 10,000 cars with
        # nested index probes; hash joins over the three tables are 3x faster for a whole fleet (measured).
        conn.execute("SET LOCAL enable_nestloop = off")
    row = conn.execute(query.format(online=ONLINE_SQL) + where, [_NO_POSITION, *params]).fetchone()
    return "[]" if row is None else str(row[0])


@dataclass(frozen=True)
class TrackCar:
    car_id: int
    device_id: int | None
    plate_number: str


def track_car(conn: Connection[Any], scope: Scope, car_id: int) -> TrackCar | None:
    """The live car in scope and its master device (None: no such car here)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    row = conn.execute(
        sql.SQL("SELECT id, master_device_id, plate_number FROM car WHERE id = %s AND record_state = 1 AND ") + where,
        [car_id, *params],
    ).fetchone()
    return None if row is None else TrackCar(int(row[0]), row[1], str(row[2]))


@dataclass(frozen=True)
class TrackPoints:
    """Columns of a track for stop detection and thinning. Runs of identical parked points (same
    place, stopped, same ACC, no alarm) are collapsed to their first and last point: they change no
    stop, alarm or shape, and a month of a parked night is most of a track. ``alarm``: an alarm point
    (bits, an active-safety item or a video alarm: track_alarms). ``total`` counts every stored point."""

    total: int
    times_ms: list[int]
    lngs: list[float]
    lats: list[float]
    speeds: list[float | None]
    acc: list[bool]
    alarm: list[bool]


# ``still``: a stopped point without alarm, keyed by place (to 1e-6 degree) and ACC; a point whose two
# neighbours have the same key is inside a run of identical parked points and is left out.
# One row of six arrays: psycopg loads arrays about twice as fast as the same values as rows.
# ``OFFSET 0`` keeps the alarm test (it reads extras) where it is evaluated once per fix: flattened into
# the window's projection it ran four times a fix (lag and lead evaluate ``still`` on the neighbours)
# and the sort carried every fix's extras (measured: the day's read 2.5x slower).
_POINTS = """
SELECT array_agg({time}), array_agg(lng), array_agg(lat), array_agg(speed), array_agg(acc), array_agg(alarm) FROM (
 SELECT fix_at, lng, lat, speed, acc, alarm FROM (
  SELECT fix_at, lng, lat, speed, acc, alarm, still,
         lag(still) OVER w AS before, lead(still) OVER w AS after
  FROM (SELECT fix_at, lng, lat, speed, acc, alarm,
               CASE WHEN speed < %(still)s AND NOT alarm
                    THEN ((round(lng * 1e6)::bigint * 1000000000 + round(lat * 1e6)::bigint) * 2 + acc::int)
               END AS still
        FROM (SELECT fix_at, lng, lat, speed_kmh AS speed, (status_flags & 1) = 1 AS acc, {alarm} AS alarm
              FROM gps WHERE device_id = %(device)s AND fix_at >= %(start)s AND fix_at < %(end)s AND quality = 0
              OFFSET 0) f) g
  WINDOW w AS (ORDER BY fix_at)) p
WHERE still IS NULL OR before IS DISTINCT FROM still OR after IS DISTINCT FROM still
ORDER BY fix_at) ordered"""
_COUNT = "SELECT count(*) FROM gps WHERE device_id = %s AND fix_at >= %s AND fix_at < %s AND quality = 0"
# Fixes flagged implausible (gps.quality: a time far from receipt, a teleport) are left out of the track and
# its exports; the reply says how many (the partial index gps_flagged_idx answers without reading the range).
_FLAGGED = "SELECT count(*) FROM gps WHERE device_id = %s AND fix_at >= %s AND fix_at < %s AND quality <> 0"


def without_jit(conn: Connection[Any]) -> None:
    """JIT compiles a month's read for ~200 ms before it runs (measured): never worth it for one device's
    rows. Transaction-local; a connection in autocommit mode keeps the server's setting."""
    if not conn.autocommit:
        conn.execute("SET LOCAL jit = off")


def track_points(conn: Connection[Any], device_id: int, start: datetime, end: datetime, still_kmh: float) -> TrackPoints:
    """The points of [start, end) in time order (see TrackPoints); ``still_kmh`` the stop speed."""
    query = points_sql()
    without_jit(conn)
    with conn.cursor(binary=True) as cur:
        cur.execute(query, {"device": device_id, "start": start, "end": end, "still": still_kmh})
        arrays = cur.fetchone()
        if arrays is None or arrays[0] is None:
            return TrackPoints(0, [], [], [], [], [], [])
        cur.execute(_COUNT, [device_id, start, end])
        counted = cur.fetchone()
    t, lng, lat, speed, acc, alarm = arrays
    return TrackPoints(int(counted[0]) if counted else len(t), t, lng, lat, speed, acc, alarm)


def flagged_count(conn: Connection[Any], device_id: int, start: datetime, end: datetime) -> int:
    """Fixes of [start, end) flagged implausible, which the track leaves out."""
    row = conn.execute(_FLAGGED, [device_id, start, end]).fetchone()
    return int(row[0]) if row else 0


def points_sql() -> sql.Composed:
    """The statement of ``track_points`` (parameters device, start, end, still)."""
    return sql.SQL(_POINTS).format(time=sql.SQL(_EPOCH_MS.format(t="fix_at")),
                                   alarm=sql.SQL(has_alarm_sql("alarm_flags", "extras")))


# A row's JSON text by concatenation (as device_last.reply_json): a fix without alarm appends seven
# constant nulls, an alarm point its alarm fields (track_alarms). Numbers print as json_build_array
# prints them (the same output functions), without its ", " separators: at 17 fields a row (measured before gbAlarm), a third less
# time and a sixth fewer bytes than json_build_array (measured, docs/performance.md).
_ROW = """'[' || {time}::text || ',' || g.lng::text || ',' || g.lat::text || ',' || coalesce(g.speed_kmh::text, 'null')
    || ',' || coalesce(g.direction_deg::text, 'null') || ',' || coalesce(g.altitude_m::text, 'null')
    || ',' || coalesce(g.mileage_km::text, 'null') || ',' || coalesce(g.fuel_l::text, 'null')
    || ',' || (g.status_flags & 1)::text || ',' || {alarm}::text || ',' || g.status_flags::text || {alarms} || ']'"""


def _row_sql(lang: str = DEFAULT_LANGUAGE) -> sql.Composable:
    return sql.SQL(_ROW).format(time=sql.SQL(_EPOCH_MS.format(t="g.fix_at")),
                                alarm=sql.SQL(_UNSIGNED_ALARM.format(a="g.alarm_flags")),
                                alarms=sql.SQL(point_tail_sql(lang)))


def track_rows_json(conn: Connection[Any], device_id: int, start: datetime, end: datetime,
                    only_ms: Sequence[int] | None = None, lang: str = DEFAULT_LANGUAGE) -> str:
    """JSON array text of TRACK_FIELDS rows in time order: every point of [start, end), or only those
    whose fix time (epoch ms) is in ``only_ms`` (one primary-key probe each); alarm names in ``lang``."""
    if only_ms is None:
        query = sql.SQL(
            "SELECT coalesce('[' || string_agg({row}, ',' ORDER BY g.fix_at) || ']', '[]') FROM gps g"
            " WHERE g.device_id = %s AND g.fix_at >= %s AND g.fix_at < %s AND g.quality = 0").format(row=_row_sql(lang))
        params: list[Any] = [device_id, start, end]
    else:
        query = sql.SQL(
            "SELECT coalesce('[' || string_agg({row}, ',' ORDER BY g.fix_at) || ']', '[]')"
            " FROM unnest(%s::bigint[]) AS k(ms)"
            " JOIN gps g ON g.device_id = %s AND g.fix_at = timestamptz 'epoch' + k.ms * interval '1 millisecond'"
            " WHERE g.fix_at >= %s AND g.fix_at < %s AND g.quality = 0").format(row=_row_sql(lang))
        params = [list(only_ms), device_id, start, end]
    without_jit(conn)
    row = conn.execute(query, params).fetchone()
    return "[]" if row is None else str(row[0])


def track_rows(conn: Connection[Any], device_id: int, start: datetime, end: datetime,
               lang: str = DEFAULT_LANGUAGE) -> Any:
    """A server-side cursor over every point of [start, end) in time order, for the exports: rows of
    (fix_at, lng, lat, speed_kmh, direction_deg, altitude_m, mileage_km, fuel_l, alarm (unsigned), status,
    alarm text in ``lang`` or None: track_alarms' alarmInfo). The caller iterates it inside the
    connection's transaction and closes it."""
    without_jit(conn)
    cur = conn.cursor(name="track_export")
    cur.itersize = 5000
    cur.execute(
        sql.SQL("SELECT fix_at, lng, lat, speed_kmh, direction_deg, altitude_m, mileage_km, fuel_l, {alarm}, status_flags,"
                " {info} FROM gps WHERE device_id = %s AND fix_at >= %s AND fix_at < %s AND quality = 0"
                " ORDER BY fix_at").format(
            alarm=sql.SQL(_UNSIGNED_ALARM.format(a="alarm_flags")), info=sql.SQL(alarm_info_sql(lang))),
        [device_id, start, end],
    )
    return cur


def fix_seconds_by_plate(conn: Connection[Any], plates: Sequence[str], since: datetime,
                         until: datetime) -> dict[tuple[str, int], set[int]]:
    """{(plate, plate colour): fix times as whole UTC epoch seconds} of the stored ``gps`` rows of the
    live cars with those plates (their master device), ``since`` <= fix_at < ``until``. A platform
    exchanging positions over JT/T 809 names vehicles by plate and colour and carries whole seconds, so
    this is what such a peer must have received (exchange/regulator/reconcile.py)."""
    rows = conn.execute(
        """SELECT c.plate_number, c.plate_color, floor(date_part('epoch', g.fix_at))::bigint
             FROM car c JOIN gps g ON g.device_id = c.master_device_id
            WHERE c.record_state = 1 AND c.plate_number = ANY(%s) AND g.fix_at >= %s AND g.fix_at < %s""",
        (list(plates), since, until),
    ).fetchall()
    out: dict[tuple[str, int], set[int]] = {}
    for plate, colour, second in rows:
        out.setdefault((plate, int(colour)), set()).add(int(second))
    return out
