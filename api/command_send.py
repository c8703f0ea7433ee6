"""The one path of a command to a terminal, shared by the command, video and alarm routes: validate, check a
sensitive command's permission and confirmation, refuse an offline terminal, write the ``command`` row and
its audit row, then produce the downlink to ``jt808.downlink.v1`` keyed by the canonical phone (Kafka not
taking it in time: 503 and the row is failed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from api import commands, gb_commands
from api.command_params import audit_changes
from api.db import get_db
from api.errors import ApiError, BadRequest, Forbidden, Unavailable
from api.security import current_principal
from api.services import downlinks
from fleet.enums import DeviceState
from fleet.gb32960_records import GB_PROTOCOLS
from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK
from warehouse.queries import commands as queries
from warehouse.queries.records import audit

SENSITIVE_PERMISSION = ("sensitiveCommand", "cmd")


class TerminalOffline(ApiError):
    http_status = 409
    code = 409
    default_message = commands.OFFLINE_MESSAGE


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def send(target: dict[str, Any], command: str, payload: Any) -> dict[str, Any]:
    """Validate, check a sensitive command's permission and confirmation, refuse an offline terminal,
    write the row, produce the downlink. Raises ApiError; the order is that of the checks (a bad
    payload is a 400 even for an offline terminal)."""
    if target.get("protocol") in GB_PROTOCOLS:
        built = gb_commands.build(command, payload, target["protocol"])
    else:
        built = commands.build(command, payload, target["protocolVersion"])
    if built.sensitive:
        check_sensitive(built, payload)
    if target["state"] != DeviceState.ONLINE:
        raise TerminalOffline()
    return send_built(target, built)


def check_sensitive(built: commands.Built, payload: Any) -> None:
    """A command that can take a terminal off the platform, re-identify it, track or record it without
    end or delete its media needs the ``sensitiveCommand:cmd`` permission and ``confirm: true``."""
    if not current_principal().can(*SENSITIVE_PERMISSION):
        raise Forbidden.missing(*SENSITIVE_PERMISSION, detail=f"; needed for {', '.join(built.sensitive)}",
                                data={"sensitive": list(built.sensitive)})
    confirmed = payload.get("confirm") if isinstance(payload, dict) else None
    if confirmed is not True:
        raise BadRequest(f"该指令需要确认后才能下发 (this command needs confirm: true in the body: "
                         f"{', '.join(built.sensitive)})", data={"field": "confirm", "sensitive": list(built.sensitive)})


def send_built(target: dict[str, Any], built: commands.Built) -> dict[str, Any]:
    """Write the row of an already built command and produce its downlink (the video routes use it).
    Raises Unavailable when Kafka does not take it."""
    principal = current_principal()
    changes: dict[str, Any] = {"msgId": f"{built.msg_id:04X}", "deviceId": target["deviceId"],
                               "payload": built.payload}
    with get_db().connection() as conn:
        if built.sensitive:  # who, which terminal, why, and the old / new values (credentials masked)
            changes |= {"phone": target["phone"], "sensitive": list(built.sensitive), "confirmed": True,
                        "params": audit_changes(built.params, queries.device_params(conn, target["deviceId"]))}
        row = queries.insert(conn, target, msg_id=built.msg_id, payload=built.payload, body_hex=built.body_hex,
                             user_id=principal.user_id, user_name=principal.user_name)
        audit(conn, user_id=principal.user_id, user_name=principal.user_name, enterprise_id=target["enterpriseId"],
              entity="command", record_id=row["id"], action="create", changes=changes)
    created_at = row["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")
    if target.get("protocol") in GB_PROTOCOLS:  # the GB gateway holding the VIN frames it (gateway/gb/downlinks.py)
        key = target["vin"] or ""
        value = {"vin": key, "protocol": target["protocol"], "msg_id": built.msg_id, "body_hex": built.body_hex,
                 "command_id": str(row["id"]), "created_at": created_at}
    else:
        key = canonical_phone(target["phone"])
        value = {"phone": key, "msg_id": built.msg_id, "body_hex": built.body_hex, "command_id": str(row["id"]),
                 "created_at": created_at}
    try:
        downlinks().send(JT808_DOWNLINK, key, json.dumps(value).encode())
    except commands.DownlinkUnavailable:
        with get_db().connection() as conn:
            queries.mark_failed(conn, row["id"], "kafka_unavailable")
        raise Unavailable("消息队列不可用，指令未下发 (Kafka did not take the command; it was not sent)") from None
    return {"id": row["id"], "carId": target["carId"], "deviceId": target["deviceId"], "msgId": built.msg_id,
            "state": "created"}


def accepted(data: dict[str, Any]) -> dict[str, Any]:
    return {"code": 0, "message": commands.ACCEPTED_MESSAGE, "data": data}


def device_id_in(payload: Any) -> int | None:
    if not isinstance(payload, dict) or payload.get("deviceId") in (None, ""):
        return None
    raw = payload["deviceId"]
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 < raw < 2**63:
        raise BadRequest("deviceId 必须是正整数 (deviceId must be a positive integer)", data={"field": "deviceId"})
    return raw
