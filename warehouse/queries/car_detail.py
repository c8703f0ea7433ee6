"""One vehicle's detail page: the car, its devices and SIM cards, driver, last position,
today's fixes and alarm points, photos. Rows are camelCase (they go to the API as they are).

``car`` takes a ``Scope`` and answers None for a car outside it, exactly as for a missing one; the
other functions take a car or device id the caller already proved in scope through ``car``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

_CAR = sql.SQL(
    """SELECT c.id, c.plate_number AS "plateNumber", c.plate_color AS "plateColor", c.vin, c.car_type AS "type",
              c.grade, c.icon_id AS "iconId", c.state, c.created_at AS "createTime",
              c.enterprise_id AS "enterpriseId", e.name AS "enterpriseName",
              c.group_id AS "groupId", g.name AS "groupName",
              cm.name AS "carModelName", ct.name AS "carTypeName",
              c.master_device_id AS "masterDeviceId",
              c.driver_id AS "driverId", dr.name AS "driverName", dr.phone AS "driverPhone",
              dr.license_no AS "driverLicenseNo", dr.license_class AS "driverLicenseClass",
              dr.photo_id AS "driverPhotoId"
       FROM car c
       JOIN enterprise e ON e.id = c.enterprise_id
       LEFT JOIN car_group g ON g.id = c.group_id AND g.record_state = 1
       LEFT JOIN car_model cm ON cm.id = c.car_model_id
       LEFT JOIN car_type ct ON ct.id = c.car_type_id
       LEFT JOIN driver dr ON dr.id = c.driver_id AND dr.record_state = 1
       WHERE c.id = %s AND c.record_state = 1 AND """
)


def car(conn: Connection[Any], scope: Scope, car_id: int) -> dict[str, Any] | None:
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_CAR + where, [car_id, *params])
        return cur.fetchone()


def devices(conn: Connection[Any], car_id: int, master_device_id: int | None) -> list[dict[str, Any]]:
    """The car's live devices, master first, each with its SIM card (None when it has none)."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT d.id, d.device_sn AS "deviceSn", d.phone, d.device_name AS "deviceName", d.protocol,
                      d.protocol_version AS "protocolVersion", d.terminal_model AS "terminalModel",
                      d.state, d.biz_state AS "bizState", d.acc, d.online_time AS "onlineTime",
                      d.offline_time AS "offlineTime", d.has_video AS "hasVideo", d.has_photo AS "hasPhoto",
                      d.has_microphone AS "hasMicrophone", (d.id = %s) AS "master",
                      s.id AS "simId", s.iccid AS "simIccid", s.msisdn AS "simMsisdn",
                      s.operator AS "simOperator", s.expire_date AS "simExpireDate"
               FROM device d LEFT JOIN sim s ON s.device_id = d.id AND s.record_state = 1
               WHERE d.car_id = %s AND d.record_state = 1
               ORDER BY (d.id = %s) DESC, d.id""",
            (master_device_id, car_id, master_device_id),
        )
        return cur.fetchall()


def last_position(conn: Connection[Any], device_id: int) -> dict[str, Any] | None:
    """The device's ``device_last`` row (snake_case, as ``api.positions.position_reply`` takes)."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT device_id, car_id, enterprise_id, fix_at, lng, lat, altitude_m, speed_kmh, direction_deg,
                      mileage_km, fuel_l, alarm_flags, status_flags
               FROM device_last WHERE device_id = %s""",
            (device_id,),
        )
        return cur.fetchone()


def day_points(conn: Connection[Any], device_id: int, since: datetime) -> dict[str, Any]:
    """``{points}``: the device's fixes since ``since`` (today's mileage is a fleet figure:
    ``fleet_figures.mileage_by_car``, never the odometer's max - min, which a jump turns into thousands)."""
    row = conn.execute("SELECT count(*) FROM gps WHERE device_id = %s AND fix_at >= %s", (device_id, since)).fetchone()
    return {"points": int(row[0]) if row else 0}


def alarm_points(conn: Connection[Any], device_id: int, since: datetime, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """(how many points since ``since`` carry alarm bits, the latest ``limit`` of them, newest first)."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "SELECT count(*) AS n FROM gps WHERE device_id = %s AND fix_at >= %s AND alarm_flags & 4294967295 <> 0",
            (device_id, since),
        )
        found = cur.fetchone()
        cur.execute(
            """SELECT fix_at AS "time", lng, lat, speed_kmh AS speed, alarm_flags & 4294967295 AS "alarmType"
               FROM gps WHERE device_id = %s AND fix_at >= %s AND alarm_flags & 4294967295 <> 0
               ORDER BY fix_at DESC LIMIT %s""",
            (device_id, since, limit),
        )
        return (int(found["n"]) if found else 0), cur.fetchall()


def photos(conn: Connection[Any], media_ids: list[int], limit: int) -> list[dict[str, Any]]:
    """Metadata of the car's photos, newest first. Until terminal uploads arrive the
    ``media`` table holds only driver photos, so the car's photo is its driver's."""
    if not media_ids:
        return []
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id, content_type AS "contentType", created_at AS "createTime" FROM media
               WHERE id = ANY(%s) ORDER BY created_at DESC, id DESC LIMIT %s""",
            (media_ids, limit),
        )
        return cur.fetchall()
