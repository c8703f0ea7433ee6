"""Terminal media files (issue 8 §3; console-spec §3 "Attachment", §7): the bytes of a
``device_upload_file`` row, from the one media store (fleet/media_store.py).

- ``GET /file{objectKey}``: the file inline with its content type (fileStoreType 1 and 2, console-spec
  §3). The console fetches it as a blob with the Authorization header (an <img src> cannot send one).
- ``GET /api/media/download/{id}.json``: the file as an attachment (``Content-Disposition``).
- ``GET /api/media/obs/download/{id}.json``: the file of a row kept in an object store (fileStoreType
  above 2), inline; answered by whichever store holds the row's fileStoreType.

All need ``evidence:get`` and read in the caller's enterprise and its subsidiaries (a file is shown
wherever its row is listed, with or without isParent). Another enterprise's id or object key is a 404,
as is a key that is not one plain relative path (``check_key``): no path traversal, whatever encoding.
The list itself is the entity ``deviceUploadFile`` (api/query/entities_media.py, generic routes).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, send_file

from api.db import get_db
from api.errors import NotFound
from api.query.values import MAX_ID
from api.security import current_principal, requires
from fleet.media_store import BadObjectKey, MediaStore, build_media_store, check_key, content_type
from warehouse.queries import media
from warehouse.queries.scope import Scope

bp = Blueprint("media", __name__)

STORE_KEY = "fleet.media_store"
NO_FILE = "文件不存在 (file does not exist)"


def media_store() -> MediaStore:
    """The app's store (tests set ``app.extensions[STORE_KEY]``), built from the settings on first use."""
    store = current_app.extensions.get(STORE_KEY)
    if store is None:
        store = current_app.extensions[STORE_KEY] = build_media_store()
    return store


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
    name = key.rsplit("/", 1)[-1]
    response = send_file(store.open(key), mimetype=content_type(key), as_attachment=attachment,
                         download_name=name, conditional=False, etag=False, max_age=0)
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


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
