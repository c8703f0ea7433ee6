"""Uplinks step "alarm files": each active-safety attachment the attachment server stored (0x1212 records,
msg_id 4626, written by gateway/attachments.py) becomes one ``device_upload_file`` row tied to its alarm,
and the alarm gets ``atted = true``.

One statement per file (warehouse/queries/media.py, the table's one writer): the alarm is found by ``warn_uuid`` (the uuid of 0x9208), the row inserted with
``alarm_id``, ``warn_uuid``, ``file_name`` (migration 0020), the alarm's place and time as the fix, the
media event code of its kind (64 ADAS, 65 DSM, 66 TPMS, 67 BSD; platform-spec §9) as event code and
``biz_id``, and the alarm marked. Idempotent: the object key is unique, so a record delivered twice is one
row, and marking ``atted`` again changes nothing.

resource_type by attachment file type (0x1211): 0 picture -> 1 image, 2 video -> 2, 1 audio, 3 text,
4 other -> 4 (not previewed).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import psycopg

from fleet.media_store import MEDIA_EXTENSIONS
from protocols.jt808.catalogue import ATTACHMENT_FILE_DONE
from streams.db import DATA_ERRORS, Database
from streams.media import stored_file
from streams.messages import PayloadError, Uplink
from warehouse.queries import media as media_files

log = logging.getLogger(__name__)

RESOURCE_TYPES = {0: 1, 1: 4, 2: 2, 3: 4, 4: 4}
MEDIA_FORMATS = {extension: code for code, extension in MEDIA_EXTENSIONS.items()} | {"jpeg": 0}
OTHER_FORMAT = 255

def _channel(name: str) -> int:
    """The channel of a Jiangsu file name ``<type>_<channel>_<alarm type>_<serial>_<uuid>.<ext>`` (else 0)."""
    parts = name.split("_")
    if len(parts) >= 2 and parts[1].isdigit():
        return min(int(parts[1]), 255)
    return 0


def file_row(uplink: Uplink) -> dict[str, Any]:
    """The row of one 0x1212 record. Raises PayloadError for a record without its fields."""
    body = uplink.body
    try:
        name = str(body["name"])
        file_type = int(body["file_type"])
        extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        return {
            **stored_file(uplink, RESOURCE_TYPES.get(file_type, 4)),
            "media_type": file_type if file_type in RESOURCE_TYPES else 4,
            "media_format": MEDIA_FORMATS.get(extension, OTHER_FORMAT),
            "channel": _channel(name),
            "warn_uuid": str(body["alarm_uuid"]),
            "file_name": name,
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise PayloadError(f"0x1212 record: {exc!r}") from None


async def store_files(db: Database, uplinks: Sequence[Uplink | PayloadError]) -> int:
    """Rows for the batch's 0x1212 records (and ``atted`` on their alarms); returns how many rows are new."""
    new = 0
    for uplink in uplinks:
        if isinstance(uplink, PayloadError) or uplink.msg_id != ATTACHMENT_FILE_DONE:
            continue
        try:
            row = file_row(uplink)
        except PayloadError as exc:
            log.warning("alarm files: record of device %s skipped: %s", uplink.device_id, exc)
            continue

        async def work(conn: psycopg.AsyncConnection[Any], row: dict[str, Any] = row) -> tuple[Any, ...] | None:
            return await media_files.record_attachment_async(conn, row)

        try:
            inserted = await db.transact(work)
        except DATA_ERRORS as exc:  # e.g. a device deleted since: the file stays, the row cannot
            log.warning("alarm files: row of device %s refused: %s", row["device_id"], exc)
            continue
        if inserted is not None and inserted[0] is not None:
            new += 1
            if inserted[1] is None:
                log.warning("alarm files: %s names alarm %s, which is not stored", row["object_key"], row["warn_uuid"])
    return new

