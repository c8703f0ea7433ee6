"""Device administration: the administrator's "reset registration", the approval of a re-registration
held by the enterprise's policy, and that registration policy (gateway/README.md)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import BadRequest, NotFound
from api.http import json_body, ok
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


@bp.get("/api/device/registrationRequests.json")
@requires("device", "query")
def pending_registration_requests() -> dict[str, Any]:
    """Re-registrations waiting for an administrator (the enterprise's policy approve_reregistration),
    of devices in the caller's enterprise and its subsidiaries, newest first (at most 100)."""
    with get_db().connection() as conn:
        return ok(registration.pending_requests(conn, request_scope()))


@bp.post("/api/device/<int:device_id>/approveRegistration.json")
@requires("device", "update")
def approve_registration(device_id: int) -> dict[str, Any]:
    """Approve the pending re-registration request ``requestId`` (body) of the device: the terminal's
    next matching registration passes and the gateway closes the old session; audited."""
    return _decide(device_id, approve=True)


@bp.post("/api/device/<int:device_id>/refuseRegistration.json")
@requires("device", "update")
def refuse_registration(device_id: int) -> dict[str, Any]:
    """Refuse the pending re-registration request ``requestId`` (body) of the device: re-registration
    stays refused for the policy's window; audited."""
    return _decide(device_id, approve=False)


def _decide(device_id: int, *, approve: bool) -> dict[str, Any]:
    """404 for a request that is missing, another tenant's, another device's or already decided."""
    principal = current_principal()
    body = json_body()
    request_id = body.get("requestId") if isinstance(body, dict) else None
    if isinstance(request_id, float) and request_id.is_integer():  # JSON 42.0 is the integer 42
        request_id = int(request_id)
    with get_db().connection() as conn:
        if not registration.device_in_scope(conn, request_scope(), device_id):  # another tenant's: 404 first
            raise NotFound(f"device {device_id} 不存在 (does not exist)")
        if isinstance(request_id, bool) or not isinstance(request_id, int) or not 0 < request_id < 2**63:
            raise BadRequest("需要 requestId (requestId, the request's id from the notice, is required)")
        row = registration.decide_request(conn, request_scope(), device_id, request_id, approve=approve,
                                          user_id=principal.user_id, user_name=principal.user_name)
    if row is None:
        raise NotFound(f"注册申请 {request_id} 不存在或已处理 (no pending registration request {request_id})")
    audit.warning("re-registration %s: request %s of device %s (phone %s, enterprise %s) by user %s (id %s) from %s",
                  row["state"], row["id"], row["deviceId"], row["phone"], row["enterpriseId"], principal.user_name,
                  principal.user_id, request.remote_addr)
    return ok({"requestId": row["id"], "deviceId": row["deviceId"], "state": row["state"]})


@bp.get("/api/enterprise/registrationPolicy.json")
@requires("enterprise", "query")
def get_registration_policy() -> dict[str, Any]:
    """The caller's enterprise's terminal registration policy (its own, else its nearest ancestor's,
    else the default: nothing required, no approval; ``inherited`` true unless its own)."""
    with get_db().connection() as conn:
        return ok(registration.registration_policy(conn, current_principal().enterprise_id))


_POLICY_FIELDS = {"requireImei", "approveReregistration", "approvalWindowMin"}


@bp.put("/api/enterprise/registrationPolicy.json")
@requires("enterprise", "update")
def put_registration_policy() -> dict[str, Any]:
    """Set the caller's enterprise's policy (applies to its subsidiaries that have none of their own);
    all three fields: requireImei, approveReregistration (booleans), approvalWindowMin (0-10080); audited."""
    principal = current_principal()
    body = json_body()
    if not isinstance(body, dict) or set(body) != _POLICY_FIELDS:
        raise BadRequest("需要 requireImei, approveReregistration, approvalWindowMin "
                         "(requireImei, approveReregistration and approvalWindowMin are required, nothing else)")
    if not isinstance(body["requireImei"], bool) or not isinstance(body["approveReregistration"], bool):
        raise BadRequest("requireImei, approveReregistration 必须是布尔值 (must be true or false)")
    window = body["approvalWindowMin"]
    if isinstance(window, float) and window.is_integer():
        window = int(window)
    if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window <= 10080:
        raise BadRequest("approvalWindowMin 必须是 0-10080 的整数 (must be an integer of minutes, 0 to 10080)")
    with get_db().connection() as conn:
        registration.save_registration_policy(conn, principal.enterprise_id, require_imei=body["requireImei"],
                                              approve_reregistration=body["approveReregistration"],
                                              approval_window_min=window)
        policy = registration.registration_policy(conn, principal.enterprise_id)
    audit.warning("registration policy of enterprise %s set to %s by user %s (id %s) from %s", principal.enterprise_id,
                  {k: body[k] for k in sorted(_POLICY_FIELDS)}, principal.user_name, principal.user_id,
                  request.remote_addr)
    return ok(policy)
