"""Terminal media files (``device_upload_file``, migration 0014) for the media routes and car detail.

Every read takes a ``Scope``: a file outside it is None, exactly as a missing one (the API answers 404).
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
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
