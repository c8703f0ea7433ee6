"""Terminal fence sync actions for the fence screen (its list is the read-only entity ``fenceSync``,
api/query/entities_fence_sync.py): resend failed rows. Sending itself is the streams' reconciler
(streams/fence_sync.py) through the one command path; this route only marks rows pending."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from api.db import get_db
from api.errors import BadRequest, NotFound
from api.http import json_body, ok
from api.security import current_principal, request_scope, requires
from warehouse.queries import fence_sync
from warehouse.queries.records import audit

bp = Blueprint("fence_sync", __name__)
MAX_DEVICES = 1000


def _positive(value: Any, field: str) -> int:
    if isinstance(value, float) and value.is_integer():  # JSON 42.0 is the integer 42
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise BadRequest(f"{field} 必须是正整数 ({field} must be a positive integer)", data={"field": field})
    return value


@bp.post("/api/fenceSync/resend.json")
@requires("fence", "update")
def resend() -> dict[str, Any]:
    """Body ``{fenceId, deviceIds?}``: the fence's failed rows (of those terminals only, when given) go back
    to pending and are sent when their terminal is online. data ``{fenceId, deviceIds}`` (the rows resent;
    a row not failed is left alone). 404 when the fence has no sync row in the caller's scope."""
    body = json_body()
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (the body must be a JSON object)", data={"field": "body"})
    unknown = sorted(set(body) - {"fenceId", "deviceIds"})
    if unknown:
        raise BadRequest(f"未知字段 (unknown field: {', '.join(unknown)})", data={"field": unknown[0]})
    fence_id = _positive(body.get("fenceId"), "fenceId")
    device_ids = body.get("deviceIds")
    if device_ids is not None:
        if not isinstance(device_ids, list) or not 0 < len(device_ids) <= MAX_DEVICES:
            raise BadRequest(f"deviceIds 必须是 1-{MAX_DEVICES} 个终端编号 (deviceIds must list 1-{MAX_DEVICES} "
                             "device ids)", data={"field": "deviceIds"})
        device_ids = [_positive(item, "deviceIds") for item in device_ids]
    principal = current_principal()
    with get_db().connection() as conn:
        resent = fence_sync.resend(conn, request_scope(), fence_id, device_ids)
        if resent is None:
            raise NotFound(f"围栏 {fence_id} 没有下发记录 (fence {fence_id} has no sync rows)")
        if resent:
            audit(conn, user_id=principal.user_id, user_name=principal.user_name,
                  enterprise_id=principal.enterprise_id, entity="fenceSync", record_id=fence_id, action="update",
                  changes={"resend": resent, "state": "pending"})
    return ok({"fenceId": fence_id, "deviceIds": resent})
