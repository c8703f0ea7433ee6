"""What a report day reads from the warehouse (orchestration/build.py): positions with ADBC, the rest with
psycopg. Every read is bounded by the day's window; time bounds are rendered as literals for the ADBC read
(binary COPY takes no bind parameters; the values come from partition keys, never from users:
docs/reports.md §10).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import polars as pl
from psycopg import Connection, sql

from warehouse.db import libpq_url

GPS_COLUMNS = ("device_id", "fix_at", "lng", "lat", "speed_kmh", "mileage_km", "status_flags", "alarm_flags",
               "received_at", "car_id", "enterprise_id", "quality")


def read_points(url: str, start: datetime, end: datetime) -> pl.DataFrame:
    """gps rows with ``start <= fix_at < end`` (ADBC: PostgreSQL's binary COPY into Arrow)."""
    query = sql.SQL("SELECT {} FROM gps WHERE fix_at >= {} AND fix_at < {}").format(
        sql.SQL(", ").join(map(sql.Identifier, GPS_COLUMNS)), sql.Literal(start), sql.Literal(end))
    text = query.as_string(None)
    return pl.read_database_uri(text, libpq_url(url), engine="adbc")


def _frame(conn: Connection[Any], query: str, params: Any, schema: dict[str, Any]) -> pl.DataFrame:
    rows = conn.execute(query, params).fetchall()
    return pl.DataFrame(rows, schema=schema, orient="row")


def read_cars(conn: Connection[Any]) -> pl.DataFrame:
    """Every live vehicle with its master terminal, enterprise (path, name), group, plate and driver."""
    return _frame(conn, """
        SELECT c.id, c.master_device_id, c.enterprise_id, e.path, e.name, c.group_id, c.plate_number, c.driver_id,
               dr.name
          FROM car c JOIN enterprise e ON e.id = c.enterprise_id LEFT JOIN driver dr ON dr.id = c.driver_id
         WHERE c.record_state = 1 ORDER BY c.id""", None, {
        "car_id": pl.Int64, "device_id": pl.Int64, "enterprise_id": pl.Int64, "enterprise_path": pl.String,
        "enterprise_name": pl.String, "group_id": pl.Int64, "plate_number": pl.String, "driver_id": pl.Int64,
        "driver_name": pl.String})


def read_devices(conn: Connection[Any]) -> pl.DataFrame:
    """Every terminal with its car (if fitted), enterprise path and plate."""
    return _frame(conn, """
        SELECT d.id, d.car_id, d.enterprise_id, e.path, c.plate_number
          FROM device d JOIN enterprise e ON e.id = d.enterprise_id LEFT JOIN car c ON c.id = d.car_id
         ORDER BY d.id""", None, {"device_id": pl.Int64, "car_id": pl.Int64, "enterprise_id": pl.Int64,
                                  "enterprise_path": pl.String, "plate_number": pl.String})


def read_drivers(conn: Connection[Any]) -> pl.DataFrame:
    return _frame(conn, """SELECT dr.id, dr.enterprise_id, e.path, dr.name FROM driver dr
                           JOIN enterprise e ON e.id = dr.enterprise_id""", None,
                  {"driver_id": pl.Int64, "enterprise_id": pl.Int64, "enterprise_path": pl.String,
                   "driver_name": pl.String})


_LOGS = {  # table -> (time column, state column)
    "acc_state_log": ("create_time", "state"),
    "biz_state_log": ("create_time", "state"),
    "device_online_log": ("at", "state"),
    "driver_event": ("at", "status"),
}


def read_transitions(conn: Connection[Any], table: str, start: datetime, end: datetime) -> pl.DataFrame:
    """(device_id, at, state) of ``table`` in ``[start, end)`` plus each device's last one before ``start``
    (its state at the start). For ``driver_event`` also ``driver_id``."""
    time_col, state_col = _LOGS[table]
    extra = ", driver_id" if table == "driver_event" else ""
    query = sql.SQL("""
        SELECT device_id, {t} AS at, {s} AS state{extra} FROM {table} WHERE {t} >= %(start)s AND {t} < %(end)s
        UNION ALL
        SELECT d.id, l.at, l.state{lextra} FROM device d CROSS JOIN LATERAL (
            SELECT {t} AS at, {s} AS state{extra} FROM {table}
             WHERE device_id = d.id AND {t} < %(start)s ORDER BY {t} DESC LIMIT 1) l""").format(
        t=sql.Identifier(time_col), s=sql.Identifier(state_col), table=sql.Identifier(table),
        extra=sql.SQL(extra), lextra=sql.SQL(", l.driver_id" if extra else ""))
    schema: dict[str, Any] = {"device_id": pl.Int64, "at": pl.Datetime("us", "UTC"), "state": pl.Int64}
    if extra:
        schema["driver_id"] = pl.Int64
    frame = _frame(conn, query.as_string(conn), {"start": start, "end": end}, schema)
    return frame.rename({"state": "status"}) if extra else frame


def read_alarms(conn: Connection[Any], start: datetime, end: datetime) -> pl.DataFrame:
    """Alarm episodes starting in ``[start, end)`` (the lake's ``alarm`` dataset keeps these columns but
    ``driver_id``, the driver the alarm is attributed to, which grading reads)."""
    return _frame(conn, """
        SELECT id, device_id, car_id, enterprise_id, key, type, level, start_time, end_time, state, lng, lat, speed,
               backlog, driver_id
          FROM alarm WHERE start_time >= %s AND start_time < %s ORDER BY device_id, start_time""", (start, end), {
        "id": pl.Int64, "device_id": pl.Int64, "car_id": pl.Int64, "enterprise_id": pl.Int64, "key": pl.String,
        "type": pl.Int64, "level": pl.Int64, "start_time": pl.Datetime("us", "UTC"),
        "end_time": pl.Datetime("us", "UTC"), "state": pl.Int64, "lng": pl.Float64, "lat": pl.Float64,
        "speed": pl.Float64, "backlog": pl.Boolean, "driver_id": pl.Int64})


def read_rejects(conn: Connection[Any], day: date) -> pl.DataFrame:
    """Refused (and time-flagged: ``past``, ``future``) fixes per device of the day they arrived. A second fix
    in a second the track already holds (``same_second``) is no refused data for the qualification KPI: it
    is counted for operators, not against the terminal; a ``teleport`` is stored on its own day, where the
    day's points count it as unqualified (pipelines.mileage.point_counts), so not twice."""
    return _frame(conn, "SELECT device_id, sum(n) FROM gps_reject_day WHERE day = %s AND reason_class NOT IN "
                  "('same_second', 'teleport') GROUP BY device_id", (day,),
                  {"device_id": pl.Int64, "n": pl.Int64})


def read_joined_cars(conn: Connection[Any], end: datetime) -> pl.Series:
    """Vehicles that ever sent a qualified fix (入网), as far as the warehouse knows: their master terminal
    has a last position, or a position before ``end`` in the report tables."""
    rows = conn.execute("""
        SELECT c.id FROM car c JOIN device_last l ON l.device_id = c.master_device_id WHERE c.record_state = 1
        UNION SELECT car_id FROM car_day_report WHERE online AND day < %s::date""", (end,)).fetchall()
    return pl.Series("car_id", [r[0] for r in rows], dtype=pl.Int64)


def read_grade_rules(conn: Connection[Any]) -> pl.DataFrame:
    """The newest live ``driving_grade_rule`` row of each enterprise and alarm key (pipelines/grading.py
    inherits them down the enterprise tree)."""
    return _frame(conn, """
        SELECT DISTINCT ON (enterprise_id, alarm_key) enterprise_id, alarm_key, per_occurrence, per_minute, cap,
               normalisation
          FROM driving_grade_rule WHERE record_state = 1
         ORDER BY enterprise_id, alarm_key, updated_at DESC, id DESC""", None, {
        "enterprise_id": pl.Int64, "alarm_key": pl.String, "per_occurrence": pl.Float64, "per_minute": pl.Float64,
        "cap": pl.Float64, "normalisation": pl.Int64})


def read_enterprise_paths(conn: Connection[Any]) -> pl.DataFrame:
    return _frame(conn, "SELECT id, path FROM enterprise", None,
                  {"enterprise_id": pl.Int64, "enterprise_path": pl.String})
