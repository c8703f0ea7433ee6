"""Terminal media files (``device_upload_file``, migrations 0014 and 0020): the table's one writer and its reads.

Writes (async, the streams worker's uplink steps): a terminal's 0x0801 upload (``record_upload_async``) and
an active-safety alarm attachment (``record_attachment_async``), both idempotent. Reads for the media routes
and car detail take a ``Scope``: a file outside it is None, exactly as a missing one (the API answers 404).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

_FILE = sql.SQL(
    """SELECT f.id, f.object_key, f.file_store_type, f.media_type, f.media_format, f.media_id, f.device_id,
              f.car_id, f.enterprise_id, f.created_at, f.sha256,
              (SELECT d.phone FROM device d WHERE d.id = f.device_id) AS device_phone
       FROM device_upload_file f WHERE {} = %s AND """
)


def _one(conn: Connection[Any], scope: Scope, column: str, value: Any) -> dict[str, Any] | None:
    where, params = scope.clause(sql.Identifier("f", "enterprise_id"))
    query = _FILE.format(sql.Identifier("f", column)) + where
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [value, *params])
        return cur.fetchone()


def file_by_id(conn: Connection[Any], scope: Scope, file_id: int) -> dict[str, Any] | None:
    return _one(conn, scope, "id", file_id)


def file_by_key(conn: Connection[Any], scope: Scope, object_key: str) -> dict[str, Any] | None:
    return _one(conn, scope, "object_key", object_key)


def latest_photos(conn: Connection[Any], car_id: int, limit: int) -> list[dict[str, Any]]:
    """The car's newest terminal photos (media type 0), camelCase for the API; the car is already
    proven in the caller's scope."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id, object_key AS "objectKey", file_store_type AS "fileStoreType", device_id AS "deviceId",
                      channel, event_code AS "bizType", created_at AS "createTime"
               FROM device_upload_file WHERE car_id = %s AND media_type = 0
               ORDER BY created_at DESC, id DESC LIMIT %s""",
            (car_id, limit),
        )
        return cur.fetchall()


# One 0x0801 upload, idempotent (unique device, media id, sha256): a record delivered twice, or the same
# file uploaded again, is one row, and answers no row the second time.
_RECORD_UPLOAD = """
WITH ins AS (
    INSERT INTO device_upload_file (object_key, resource_type, file_store_type, enterprise_id, biz_id,
        device_id, car_id, media_id, media_type, media_format, event_code, channel, lng, lat, fix_time, size,
        sha256, created_at)
    VALUES (%(object_key)s, %(resource_type)s, %(file_store_type)s, %(enterprise_id)s, %(event_code)s,
        %(device_id)s, %(car_id)s, %(media_id)s, %(media_type)s, %(media_format)s, %(event_code)s,
        %(channel)s, %(lng)s, %(lat)s, %(fix_time)s, %(size)s, %(sha256)s, %(created_at)s)
    ON CONFLICT DO NOTHING
    RETURNING id
)
SELECT ins.id, d.device_name, c.plate_number,
       -- the sender of the command this file answers (event code 0 "platform command"): the latest
       -- request command to this terminal within the request window before the upload
       (SELECT cmd.created_by FROM command cmd
        WHERE %(event_code)s = 0 AND cmd.device_id = %(device_id)s AND cmd.msg_id = ANY(%(request_msg_ids)s)
          AND cmd.created_at <= %(created_at)s AND cmd.created_at > %(created_at)s - %(request_window)s
        ORDER BY cmd.created_at DESC LIMIT 1) AS requested_by
FROM ins JOIN device d ON d.id = %(device_id)s LEFT JOIN car c ON c.id = %(car_id)s
"""

# One alarm attachment: the alarm found by ``warn_uuid`` (the uuid of 0x9208) is marked ``atted``; the row
# takes its place and time as the fix and the media event code of its kind (64 ADAS, 65 DSM, 66 TPMS,
# 67 BSD; platform-spec §9) as event code and biz_id. Idempotent: the object key is unique.
_RECORD_ATTACHMENT = """
WITH a AS (
    SELECT id, type, lat, lng, start_time FROM alarm WHERE warn_uuid = %(warn_uuid)s ORDER BY id LIMIT 1
), marked AS (
    UPDATE alarm SET atted = true, updated_at = now() WHERE id = (SELECT id FROM a) AND NOT atted RETURNING id
), ins AS (
    INSERT INTO device_upload_file (object_key, resource_type, file_store_type, enterprise_id, biz_id, device_id,
        car_id, media_id, media_type, media_format, event_code, channel, lng, lat, fix_time, size, sha256,
        created_at, alarm_id, warn_uuid, file_name)
    SELECT %(object_key)s, %(resource_type)s, %(file_store_type)s, %(enterprise_id)s, ev.code, %(device_id)s,
        %(car_id)s, COALESCE(a.id, 0), %(media_type)s, %(media_format)s, ev.code, %(channel)s, a.lng, a.lat,
        a.start_time, %(size)s, %(sha256)s, %(created_at)s, a.id, %(warn_uuid)s, %(file_name)s
    FROM (SELECT 1) one
    LEFT JOIN a ON true
    CROSS JOIN LATERAL (SELECT CASE WHEN a.type BETWEEN 5 AND 8 THEN a.type + 59 ELSE 64 END AS code) ev
    ON CONFLICT DO NOTHING
    RETURNING id
)
SELECT (SELECT id FROM ins), (SELECT id FROM a)
"""


async def record_upload_async(conn: AsyncConnection[Any], row: dict[str, Any], *, request_msg_ids: list[int],
                              request_window: timedelta) -> tuple[int, str | None, str | None, int | None] | None:
    """Store one 0x0801 upload (``row``: the columns of streams/media.py ``upload_row``): (id, device name,
    plate number, the user whose ``request_msg_ids`` command within ``request_window`` it answers), or None
    when it is stored already. Raises psycopg's data errors (e.g. a device deleted since)."""
    cur = await conn.execute(_RECORD_UPLOAD, {**row, "request_msg_ids": request_msg_ids,
                                              "request_window": request_window})
    found = await cur.fetchone()
    return None if found is None else (int(found[0]), found[1], found[2], found[3])


async def record_attachment_async(conn: AsyncConnection[Any], row: dict[str, Any]) -> tuple[int | None, int | None]:
    """Store one alarm attachment (``row``: the columns of streams/alarm_files.py ``file_row``) and mark its
    alarm: (new file id or None when stored already, the alarm's id or None when no alarm has that uuid)."""
    cur = await conn.execute(_RECORD_ATTACHMENT, row)
    found = await cur.fetchone()
    return (None, None) if found is None else (found[0], found[1])
