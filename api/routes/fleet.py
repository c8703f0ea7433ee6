"""Vehicle-area routes beyond the generic ones (api/routes/common.py): disable / enable a terminal,
the current driver of a terminal (platform-spec §7), and driver photos.

Driver photos, at most ``MAX_PHOTO_BYTES`` of JPEG, PNG or WebP recognised by their first bytes, are
kept in the one media store (fleet/media_store.py, key ``/driver/{day}/{sha256 prefix}.{ext}``) with a
``media`` row (migration 0008) holding the key; rows written before (bytes in ``media.content``) still read.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import BadRequest, Forbidden, NotFound
from api.http import ok
from api.query.entities import QUERYABLE
from api.query.runner import fetch_by_id
from api.security import current_principal, request_scope, requires
from api.services import media_store
from warehouse.queries import fleet, records

bp = Blueprint("fleet", __name__)

MAX_PHOTO_BYTES = 512 * 1024
_IMAGE_MAGIC = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"))


def image_type(content: bytes) -> str | None:
    """The content type of a JPEG, PNG or WebP image by its signature; None for anything else."""
    for magic, content_type in _IMAGE_MAGIC:
        if content.startswith(magic):
            return content_type
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return "image/webp"
    return None


def _device_state(device_id: int, disable: bool) -> dict[str, Any]:
    who = current_principal()
    with get_db().connection() as conn, conn.transaction():
        changed = fleet.set_device_state(conn, request_scope(), device_id, disable)
        if changed is None:
            raise NotFound(f"device {device_id} 不存在 (does not exist)")
        before, after = changed
        if before != after:
            tenant = fleet.tenant_of(conn, "device", device_id)
            records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=tenant or 0,
                          entity="device", record_id=device_id, action="update",
                          changes={"state": {"before": before, "after": after}})
    return ok({"id": device_id, "state": after})


@bp.post("/api/device/<int:device_id>/disable.json")
@requires("device", "disable")
def disable_device(device_id: int) -> dict[str, Any]:
    """State 5: the gateway refuses the terminal's authentication until it is enabled."""
    return _device_state(device_id, True)


@bp.post("/api/device/<int:device_id>/enable.json")
@requires("device", "enable")
def enable_device(device_id: int) -> dict[str, Any]:
    """Back to 2 (offline) when the terminal holds an auth code, else 0 (unregistered)."""
    return _device_state(device_id, False)


@bp.get("/api/device/driver/<int:device_id>.json")
@requires("device", "get")
def device_driver(device_id: int) -> dict[str, Any]:
    """The driver assigned to the device's car (the driver record), or null; 404 for a device
    outside the caller's scope."""
    scope = request_scope()
    with get_db().connection() as conn:
        found, driver_id = fleet.driver_of_device(conn, scope, device_id)
        if not found:
            raise NotFound(f"device {device_id} 不存在 (does not exist)")
        return ok(None if driver_id is None else fetch_by_id(conn, QUERYABLE["driver"], driver_id, scope))


@bp.post("/api/driver/photo.json")
@requires("driver", "query")
def upload_driver_photo() -> dict[str, Any]:
    """Multipart field ``file``: ``{id}`` to put in a driver's ``photoId``. Needs driver add or update."""
    who = current_principal()
    if not (who.can("driver", "add") or who.can("driver", "update")):
        raise Forbidden.missing("driver", "update", detail=" or driver:add",
                                data={"anyOf": ["driver:add", "driver:update"]})
    upload = request.files.get("file")
    if upload is None:
        raise BadRequest("请选择照片 (field 'file': a multipart image file is required)", data={"field": "file"})
    content = upload.read(MAX_PHOTO_BYTES + 1)
    if len(content) > MAX_PHOTO_BYTES:
        raise BadRequest(f"照片过大 (field 'file': larger than {MAX_PHOTO_BYTES // 1024} KiB)", data={"field": "file"})
    content_type = image_type(content)
    if content_type is None:
        raise BadRequest("照片格式不支持 (field 'file': JPEG, PNG or WebP only)", data={"field": "file"})
    # the bytes go to the one media store (fleet/media_store.py); the row keeps the key
    digest = hashlib.sha256(content).hexdigest()
    key = f"/driver/{datetime.now(UTC):%Y%m%d}/{digest[:32]}.{content_type.split('/')[-1]}"
    store = media_store()
    if not store.exists(key):
        store.put(key, content)
    with get_db().connection() as conn, conn.transaction():
        media_id = fleet.store_media(conn, who.enterprise_id, who.user_id, content_type, key)
    return ok({"id": media_id})


@bp.get("/api/driver/photo/<int:media_id>.json")
@requires("driver", "get")
def driver_photo(media_id: int) -> dict[str, Any]:
    """``{contentType, content}`` (base64) of a photo in the caller's scope, else 404."""
    with get_db().connection() as conn:
        found = fleet.media(conn, request_scope(), media_id)
    if found is None:
        raise NotFound(f"photo {media_id} 不存在 (does not exist)")
    content_type, content, key = found
    if content is None:  # on the media store
        if key is None or not media_store().exists(key):
            raise NotFound(f"photo {media_id} 不存在 (does not exist)")
        with media_store().open(key) as f:
            content = f.read()
    return ok({"contentType": content_type, "content": base64.b64encode(content).decode("ascii")})


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be a 400 (the contract fuzzer knows them):
    a driver photo's bytes must be a JPEG, PNG or WebP image, which no schema of a binary part states."""
    return ["/api/driver/photo.json"]
