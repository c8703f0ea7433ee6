"""Commands to terminals (console-spec §7 command calls; platform-spec §4, §7, §8).

- ``POST /api/command/{carId}/{command}.json``: to the car's master device, or ``deviceId`` of the body
  (one of that car's devices);
- ``POST /api/device/{deviceId}/command/{command}.json``: the device-level send-command service;
- ``POST /api/batch/command/8300.json``: one text to many ``deviceIds``;
- ``GET /api/command/{id}/state.json``; ``GET /api/device/{id}/terminal/params.json``.

A send: target in scope (else 404, as if it did not exist), payload validated (400 naming the field),
a sensitive command (api/commands.py) checked: ``sensitiveCommand:cmd`` (else 403) and ``confirm: true``
(else 400, field ``confirm``), terminal online (else 409 "终端不在线，不能发送指令！", no row, nothing sent), then the ``command`` row
(state created) and its audit row commit, then the downlink goes to ``jt808.downlink.v1`` keyed by the
canonical phone; Kafka not acknowledging within ``FLEET_COMMANDS_KAFKA_SEND_TIMEOUT_S`` -> 503 and the
row is failed. The gateway's sent record, the reply and the timeout move the row on (streams/commands.py).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from api import commands
from api.command_send import TerminalOffline, accepted, device_id_in, epoch_ms, send
from api.db import get_db
from api.errors import BadRequest, NotFound, chinese_text, localise, request_language
from api.http import json_body, ok
from api.security import request_scope, requires
from warehouse.queries import commands as queries

bp = Blueprint("commands", __name__)

BATCH_MAX = 500


def _car_command(car_id: int, command: str) -> dict[str, Any]:
    payload = json_body()
    with get_db().connection() as conn:
        target = queries.device_of_car(conn, request_scope(), car_id, device_id_in(payload))
    if target is None:
        raise NotFound(f"车辆 {car_id} 或其终端不存在 (car {car_id} or that device of it does not exist)")
    return accepted(send(target, command, payload))


def _device_command(device_id: int, command: str) -> dict[str, Any]:
    payload = json_body()
    with get_db().connection() as conn:
        target = queries.device(conn, request_scope(), device_id)
    if target is None:
        raise NotFound(f"终端 {device_id} 不存在 (device {device_id} does not exist)")
    return accepted(send(target, command, payload))


def _register(code: str) -> None:
    """One rule per command and target (each documented with its own body in api/openapi.yaml); an
    unknown command is an unknown path (404)."""

    @bp.post(f"/api/command/<int:car_id>/{code}.json", endpoint=f"car_command_{code}")
    @requires("command", "cmd")
    def car_command(car_id: int) -> dict[str, Any]:
        return _car_command(car_id, code)

    @bp.post(f"/api/device/<int:device_id>/command/{code}.json", endpoint=f"device_command_{code}")
    @requires("command", "cmd")
    def device_command(device_id: int) -> dict[str, Any]:
        return _device_command(device_id, code)


for _code in commands.BUILDERS:
    _register(_code)


@bp.post("/api/batch/command/8300.json")
@requires("command", "cmd")
def batch_text() -> dict[str, Any]:
    payload = json_body()
    if not isinstance(payload, dict):
        raise BadRequest("请求体必须是 JSON 对象 (the body must be a JSON object)")
    raw_ids = payload.get("deviceIds")
    if not isinstance(raw_ids, list) or not raw_ids:
        raise BadRequest("deviceIds 不能为空 (deviceIds must be a non-empty list)", data={"field": "deviceIds"})
    if len(raw_ids) > BATCH_MAX:
        raise BadRequest(f"deviceIds 最多 {BATCH_MAX} 个 (at most {BATCH_MAX} devices)", data={"field": "deviceIds"})
    ids: list[int] = []
    for index, raw in enumerate(raw_ids):
        if isinstance(raw, bool) or not isinstance(raw, int) or not 0 < raw < 2**63:
            raise BadRequest(f"deviceIds[{index}] 必须是正整数 (deviceIds[{index}] must be a positive integer)",
                             data={"field": f"deviceIds[{index}]"})
        if raw not in ids:
            ids.append(raw)
    if "deviceId" in payload:  # the single-car route's target; a batch names its devices in deviceIds
        raise BadRequest("批量下发请使用 deviceIds (a batch names its devices in deviceIds, not deviceId)",
                         data={"field": "deviceId"})
    text = {key: value for key, value in payload.items() if key != "deviceIds"}
    commands.text_payload(text)  # one 400 for a bad text, before anything is sent to anyone
    with get_db().connection() as conn:
        found = {row["deviceId"]: row for row in queries.devices(conn, request_scope(), ids)}
    results = []
    for device_id in ids:
        target = found.get(device_id)
        try:
            if target is None:
                raise NotFound(f"终端 {device_id} 不存在 (device {device_id} does not exist)")
            data = send(target, "8300", text)
            results.append({"deviceId": device_id, "id": data["id"], "message": commands.ACCEPTED_MESSAGE})
        except (TerminalOffline, NotFound, BadRequest) as exc:
            # as the error envelope: the Chinese text, and the text in the caller's language
            results.append({"deviceId": device_id, "id": None, "message": chinese_text(exc.message),
                            "localMessage": localise(exc.message, request_language())})
    return accepted({"commands": results})


@bp.get("/api/command/<int:command_id>/state.json")
@requires("command", "get")
def command_state(command_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        row = queries.state(conn, request_scope(), command_id)
    if row is None:
        raise NotFound(f"指令 {command_id} 不存在 (command {command_id} does not exist)")
    for key in ("createdAt", "sentAt", "answeredAt"):
        row[key] = epoch_ms(row[key])
    return ok(row)


@bp.get("/api/device/<int:device_id>/terminal/params.json")
@requires("command", "get")
def terminal_params(device_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        if queries.device(conn, request_scope(), device_id) is None:
            raise NotFound(f"终端 {device_id} 不存在 (device {device_id} does not exist)")
        return ok(queries.device_params(conn, device_id))


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be refused: an offline terminal (409), an
    alarm parameter out of the console spec's range, blank text, a media server that is down (the contract
    fuzzer knows them)."""
    from api.video import VIDEO_CODES

    codes = [*commands.BUILDERS, *VIDEO_CODES]
    return ([f"/api/command/{{id}}/{code}.json" for code in codes]
            + [f"/api/device/{{id}}/command/{code}.json" for code in codes] + ["/api/batch/command/8300.json"])
