"""Uplinks step "media": each completed terminal upload (0x0801, msg_id 2049, written to the media store
by the gateway: gateway/media.py) becomes one ``device_upload_file`` row, then pushes 9 and 10.

The insert (warehouse/queries/media.py, the table's one writer) is idempotent (unique device, media id, sha256): a record delivered twice, or the same file
uploaded again, is one row and one pair of pushes. Push data (console-spec §3 / §7):

- 9 media uploaded: ``{_id, plateNumber, deviceName, mediaType, objectKey, fileStoreType, bizType,
  deviceId, carId, time}``; ``bizType`` is the JT/T 808 event code (platform-spec §9).
- 10 media upload result: ``{_id, deviceId, carId, plateNumber, mediaId, result, time}``, result 0 stored.
  Result 1 (an upload the gateway gave up on) is defined for the console but not produced yet: the
  gateway drops an incomplete upload after ``subpackage_timeout_s`` and only counts it.

Addressee: a file answering a command (event code 0) is pushed to the sessions of the user who sent
the photo / stored-media command (``user_id`` of the console event); a file the terminal sent on its own
(alarm, timer, ...) to the vehicle's enterprise and its ancestors.

resource_type: 1 image (photo), 2 video, 4 audio (console-spec §3: below 4 previews as image/video).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg

from fleet.enums import PushType
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808.catalogue import (
    CAMERA_SHOOT,
    MEDIA_UPLOAD,
    SINGLE_STORED_MEDIA_UPLOAD,
    STORED_MEDIA_UPLOAD,
)
from streams import console
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send, encode
from streams.directory import Directory
from streams.messages import PayloadError, Uplink
from warehouse.queries import media as media_files

log = logging.getLogger(__name__)

RESOURCE_TYPES = {0: 1, 2: 2, 1: 4}  # media type (0 photo, 1 audio, 2 video) -> resource type
RESULT_STORED = 0
RESULT_GAVE_UP = 1

# Commands whose answer is a 0x0801 upload with event code 0: 0x8801 take a photo now, 0x8803 upload
# stored media, 0x8805 upload one stored item (JT/T 808 §8.55, 8.59, 8.61).
REQUEST_MSG_IDS = [CAMERA_SHOOT, STORED_MEDIA_UPLOAD, SINGLE_STORED_MEDIA_UPLOAD]
REQUEST_WINDOW = timedelta(hours=1)


def stored_file(uplink: Uplink, resource_type: int) -> dict[str, Any]:
    """The columns every device_upload_file row has, from the gateway's record of a file it stored (0x0801
    media, 0x1212 alarm attachment). Raises KeyError / TypeError / ValueError for a record without them."""
    body = uplink.body
    return {
        "object_key": str(body["object_key"]),
        "resource_type": resource_type,
        "file_store_type": int(body.get("file_store_type", 1)),
        "enterprise_id": uplink.enterprise_id,
        "device_id": uplink.device_id,
        "car_id": uplink.car_id,
        "size": int(body["size"]),
        "sha256": str(body["sha256"]),
        "created_at": uplink.received_at,
    }


def upload_row(uplink: Uplink) -> dict[str, Any]:
    """The row of one 0x0801 record. Raises PayloadError for a record without its media fields."""
    body = uplink.body
    try:
        location = body.get("location") or {}
        fix_at = location.get("fix_at")
        media_type = int(body["media_type"])
        return {
            **stored_file(uplink, RESOURCE_TYPES.get(media_type, 4)),
            "media_id": int(body["media_id"]),
            "media_type": media_type,
            "media_format": int(body["media_format"]),
            "event_code": int(body["event_code"]),
            "channel": int(body["channel"]),
            "lng": float(location["lng"]) if location.get("lng") is not None else None,
            "lat": float(location["lat"]) if location.get("lat") is not None else None,
            "fix_time": datetime.fromisoformat(fix_at) if isinstance(fix_at, str) else None,
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise PayloadError(f"0x0801 record: {exc!r}") from None


def media_pushes(row: dict[str, Any], row_id: int, device_name: str | None,
                 plate_number: str | None) -> list[tuple[PushType, dict[str, Any]]]:
    time = console.iso(row["created_at"])
    uploaded = {
        "_id": row_id, "plateNumber": plate_number, "deviceName": device_name, "mediaType": row["media_type"],
        "objectKey": row["object_key"], "fileStoreType": row["file_store_type"], "bizType": row["event_code"],
        "deviceId": row["device_id"], "carId": row["car_id"], "time": time,
    }
    result = {
        "_id": row_id, "deviceId": row["device_id"], "carId": row["car_id"], "plateNumber": plate_number,
        "mediaId": row["media_id"], "result": RESULT_STORED, "time": time,
    }
    return [(PushType.MEDIA_UPLOADED, uploaded), (PushType.MEDIA_RESULT, result)]


async def store_uploads(db: Database, directory: Directory, send: Send,
                        uplinks: Sequence[Uplink | PayloadError]) -> int:
    """Rows and pushes for the batch's 0x0801 records; returns how many rows are new."""
    rows = []
    for uplink in uplinks:
        if isinstance(uplink, PayloadError) or uplink.msg_id != MEDIA_UPLOAD:
            continue
        try:
            rows.append(upload_row(uplink))
        except PayloadError as exc:
            log.warning("media: record of device %s skipped: %s", uplink.device_id, exc)
    new = 0
    for row in rows:
        async def work(conn: psycopg.AsyncConnection[Any], row: dict[str, Any] = row) -> tuple[Any, ...] | None:
            return await media_files.record_upload_async(conn, row, request_msg_ids=REQUEST_MSG_IDS,
                                                         request_window=REQUEST_WINDOW)

        try:
            inserted = await db.transact(work)
        except DATA_ERRORS as exc:  # e.g. a device deleted since: the file stays, the row cannot
            log.warning("media: row of device %s refused: %s", row["device_id"], exc)
            continue
        if inserted is None:
            continue  # already there
        new += 1
        row_id, device_name, plate_number, requested_by = inserted
        path = await directory.enterprise_path(row["enterprise_id"])
        for push_type, data in media_pushes(row, row_id, device_name, plate_number):
            # A file a user asked for is that user's; the terminal's own (alarm, timed) are the enterprise's.
            payload = console.push_event(row["enterprise_id"], path, push_type, data, user_id=requested_by)
            await send(CONSOLE_EVENTS, str(row["enterprise_id"]).encode(), encode(payload))
    return new
