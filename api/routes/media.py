"""Terminal media files (console-spec §3 "Attachment", §7): the bytes of a
``device_upload_file`` row, from the one media store (fleet/media_store.py).

- ``GET /file{objectKey}``: the file inline with its content type (fileStoreType 1 and 2, console-spec
  §3). The console fetches it as a blob with the Authorization header (an <img src> cannot send one).
- ``GET /api/media/download/{id}.json``: the file as an attachment (``Content-Disposition``).
- ``GET /api/media/obs/download/{id}.json``: the file of a row kept in an object store (fileStoreType
  above 2), inline; answered by whichever store holds the row's fileStoreType.

Every file is checked against its row's sha256 as it is served (``open_verified``: read in full, then the
same open file is sent): a file changed on disk since it was stored is NOT served (409, "文件校验失败")
and raises a terminal security notice ``evidence_mismatch`` on ``device.sessions.v1`` (the streams worker
pushes it to the enterprise as type 15, as it does the gateway's takeover notices), logged as an error.

All need ``evidence:get`` and read in the caller's enterprise and its subsidiaries (a file is shown
wherever its row is listed, with or without isParent). Another enterprise's id or object key is a 404,
as is a key that is not one plain relative path (``check_key``): no path traversal, whatever encoding.
The list itself is the entity ``deviceUploadFile`` (api/query/entities_media.py, generic routes).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Blueprint, Response, request, send_file

from api.commands import DownlinkUnavailable
from api.db import get_db
from api.errors import ApiError, NotFound
from api.query.values import MAX_ID
from api.security import current_principal, requires
from api.services import downlinks, media_store
from fleet.media_store import (
    BadObjectKey,
    ChecksumMismatch,
    check_key,
    content_type,
    open_verified,
)
from fleet.phones import canonical_phone
from fleet.topics import DEVICE_SESSIONS
from warehouse.queries import media
from warehouse.queries.scope import Scope

bp = Blueprint("media", __name__)
log = logging.getLogger("fleet.api.media")

NO_FILE = "文件不存在 (file does not exist)"
MISMATCH_REASON = "evidence_mismatch"


class EvidenceMismatch(ApiError):
    """The stored bytes no longer match the row's sha256: they are not served."""

    http_status = 409
    code = 409
    default_message = "文件校验失败，已拒绝下载 (the file does not match its recorded checksum; it is not served)"


def _media_scope() -> Scope:
    principal = current_principal()
    return Scope(enterprise_id=principal.enterprise_id, enterprise_path=principal.enterprise_path, subtree=True)


def _by_id(file_id: int) -> dict[str, Any] | None:
    if file_id > MAX_ID:
        return None
    with get_db().connection() as conn:
        return media.file_by_id(conn, _media_scope(), file_id)


def _send(row: dict[str, Any] | None, *, attachment: bool) -> Response:
    if row is None:
        raise NotFound(NO_FILE)
    store = media_store()
    key = row["object_key"]
    if row["file_store_type"] != store.file_store_type or not store.exists(key):
        raise NotFound(NO_FILE)
    try:
        body = open_verified(store, key, row["sha256"])
    except ChecksumMismatch as mismatch:
        _raise_mismatch_notice(row, mismatch)
        raise EvidenceMismatch() from None
    name = key.rsplit("/", 1)[-1]
    response = send_file(body, mimetype=content_type(key), as_attachment=attachment,
                         download_name=name, conditional=False, etag=False, max_age=0)
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _raise_mismatch_notice(row: dict[str, Any], mismatch: ChecksumMismatch) -> None:
    """Log the mismatch and publish it as a terminal security notice (docs/topics.md ``device.sessions.v1``).
    Kafka unavailable: the log line remains and the file is refused all the same."""
    log.error("evidence file %s (row %s, device %s) does not match its checksum: sha256 %s, recorded %s; not served",
              mismatch.key, row["id"], row["device_id"], mismatch.actual, mismatch.expected)
    phone = canonical_phone(str(row.get("device_phone") or "0"))
    value = orjson.dumps({
        "phone": phone, "device_id": row["device_id"], "car_id": row["car_id"],
        "enterprise_id": row["enterprise_id"], "event": "security", "reason": MISMATCH_REASON,
        "connection_id": f"file-{row['id']}", "gateway_id": "api", "peer": request.remote_addr,
        "replaced_connection_id": None, "replaced_peer": None,
        "at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
    })
    try:
        downlinks().send(DEVICE_SESSIONS, phone, value)
    except DownlinkUnavailable as exc:
        log.error("evidence mismatch notice for %s not published: %s", mismatch.key, exc)


@bp.get("/file/<path:object_key>")
@requires("evidence", "get")
def file_by_key(object_key: str) -> Response:
    try:
        key = check_key("/" + object_key)
    except BadObjectKey:
        raise NotFound(NO_FILE) from None
    with get_db().connection() as conn:
        row = media.file_by_key(conn, _media_scope(), key)
    return _send(row, attachment=False)


@bp.get("/api/media/download/<int:file_id>.json")
@requires("evidence", "get")
def download(file_id: int) -> Response:
    return _send(_by_id(file_id), attachment=True)


@bp.get("/api/media/obs/download/<int:file_id>.json")
@requires("evidence", "get")
def obs_download(file_id: int) -> Response:
    return _send(_by_id(file_id), attachment=False)
