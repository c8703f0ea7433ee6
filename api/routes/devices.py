"""Device administration: the administrator's "reset registration" (issue 13 §1)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import NotFound
from api.http import ok
from api.security import current_principal, request_scope, requires
from warehouse.queries import registration

bp = Blueprint("devices", __name__)
audit = logging.getLogger("fleet.api.audit")


@bp.post("/api/device/<int:device_id>/resetRegistration.json")
@requires("device", "update")
def reset_registration(device_id: int) -> dict[str, Any]:
    """Clears the device's auth code and recorded terminal identity: its next 0x0100 is a first
    registration. A live session is not closed (the terminal keeps it until it reconnects, when its
    old code fails). 404 for a device outside the caller's scope, exactly like a missing one."""
    principal = current_principal()
    with get_db().connection() as conn:
        row = registration.reset_registration(conn, request_scope(), device_id)
    if row is None:
        raise NotFound(f"device {device_id} 不存在 (does not exist)")
    at = datetime.now(UTC)
    audit.warning("registration reset: device %s (phone %s, enterprise %s) by user %s (id %s) from %s at %s%s",
                  row["id"], row["phone"], row["enterpriseId"], principal.user_name, principal.user_id,
                  request.remote_addr, at.isoformat(), "" if row["hadCode"] else " (it had no code)")
    return ok({"deviceId": row["id"], "resetAt": at})
