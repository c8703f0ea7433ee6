"""One driver's detail page (platform-spec §2 detail pages: driver): the record with its enterprise and
licence days, the latest IC card read (0x0702: the qualification certificate and its validity), the
vehicles driven recently, the alarms attributed to the driver and the driver's recent driving-behaviour
scores (the daily report build's, driver_day_report). Rows are camelCase (they go to the API
as they are).

``driver`` takes a ``Scope`` and answers None for a driver outside it, exactly as for a missing or deleted
one; the other functions take a driver id the caller already proved in scope through ``driver``.
Days are counted in UTC+8 (``notice_date`` of migration 0053, as the bell's expiry notices count them).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

_DRIVER = sql.SQL(
    """SELECT d.id, d.name, d.phone, d.id_card AS "nationalId", d.license_no AS "licenceNo",
              d.license_class AS "licenceClass", d.license_expire AS "licenceExpire",
              notice_date(d.license_expire) - (now() AT TIME ZONE 'Asia/Shanghai')::date AS "licenceDaysLeft",
              d.qualification_no AS "qualificationNo", d.photo_id AS "photoId", d.state,
              d.created_at AS "createTime", d.enterprise_id AS "enterpriseId", e.name AS "enterpriseName"
       FROM driver d JOIN enterprise e ON e.id = d.enterprise_id
       WHERE d.id = %s AND d.record_state = 1 AND """
)


def driver(conn: Connection[Any], scope: Scope, driver_id: int) -> dict[str, Any] | None:
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_DRIVER + where, [driver_id, *params])
        return cur.fetchone()


def latest_card(conn: Connection[Any], driver_id: int) -> dict[str, Any] | None:
    """The newest IC card read matched to the driver: the qualification certificate as the card carries it
    (number, issuing authority, validity and its days left), or None when no card was ever read."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT at AS "time", qualification_no AS "qualificationNo", issuing_authority AS "issuingAuthority",
                       valid_until::text AS "validUntil", valid_until - (now() AT TIME ZONE 'Asia/Shanghai')::date AS "validDaysLeft"
                FROM driver_event WHERE driver_id = %s AND status = 1
                ORDER BY at DESC LIMIT 1""",
            (driver_id,),
        )
        return cur.fetchone()


def recent_vehicles(conn: Connection[Any], driver_id: int, limit: int) -> list[dict[str, Any]]:
    """The vehicles the driver drove: each car's latest IC card sign-in (``source`` 1) and the live car the
    driver is bound to (``source`` 2, ``time`` null unless also signed in), newest sign-in first."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT c.id AS "carId", c.plate_number AS "plateNumber", max(x.at) AS "time",
                      min(x.source) AS "source"
               FROM (SELECT car_id, at, 1 AS source FROM driver_event
                     WHERE driver_id = %s AND status = 1 AND car_id IS NOT NULL
                     UNION ALL
                     SELECT id, NULL, 2 FROM car WHERE driver_id = %s AND record_state = 1) x
               JOIN car c ON c.id = x.car_id
               GROUP BY c.id, c.plate_number
               ORDER BY max(x.at) DESC NULLS LAST, c.id
               LIMIT %s""",
            (driver_id, driver_id, limit),
        )
        return cur.fetchall()


def alarm_counts(conn: Connection[Any], driver_id: int, today: datetime, month: datetime) -> dict[str, int]:
    """``{today, month}``: alarms attributed to the driver that started since ``today`` / ``month``."""
    row = conn.execute(
        """SELECT count(*) FILTER (WHERE start_time >= %s), count(*) FILTER (WHERE start_time >= %s)
           FROM alarm WHERE driver_id = %s AND start_time >= least(%s, %s)""",
        (today, month, driver_id, today, month),
    ).fetchone()
    return {"today": int(row[0]), "month": int(row[1])} if row else {"today": 0, "month": 0}


def recent_alarms(conn: Connection[Any], driver_id: int, limit: int) -> list[dict[str, Any]]:
    """The latest ``limit`` alarms attributed to the driver, newest first."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id, type, level, start_time AS "startTime", end_time AS "endTime", car_id AS "carId",
                      plate_number AS "plateNumber", address, state
               FROM alarm WHERE driver_id = %s ORDER BY start_time DESC, id DESC LIMIT %s""",
            (driver_id, limit),
        )
        return cur.fetchall()


def recent_grades(conn: Connection[Any], driver_id: int, limit: int) -> list[dict[str, Any]]:
    """The driver's latest ``limit`` scored report days, newest first: ``date`` (yyyymmdd), ``gradeScore``,
    ``grade``, ``gradeDeductions`` ([{key, count, minutes, points}]), ``mileageKm``, ``driveS`` (a day the
    driver drove; days before grading existed have no score and are left out)."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT date, grade_score AS "gradeScore", grade, grade_deductions AS "gradeDeductions",
                      mileage_km AS "mileageKm", drive_s AS "driveS"
               FROM driver_day_report WHERE driver_id = %s AND grade_score IS NOT NULL
               ORDER BY date DESC LIMIT %s""",
            (driver_id, limit),
        )
        return cur.fetchall()
