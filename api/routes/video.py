"""Live video, listening, talk and playback (console-spec §7; platform-spec §2, §7).

| route | what |
|---|---|
| ``POST /api/command/{carId}/9101.json``, ``POST /api/command/{deviceId}/9101.json`` (a body naming that device), ``POST /api/device/{deviceId}/command/9101.json`` | start live video / listen / talk: the stream is registered with the media server, then 0x9101 goes through the command path; data ``{id, carId, deviceId, msgId, state, streamId, flvUrl, wsUrl, talkUrl, urlExpiresAt, kind, channelId, dataType, streamType}``. A stream a terminal already feeds is reused (``id`` null, state ``reused``): many viewers, one terminal connection. |
| ``POST .../9102.json`` (``/api/command/{deviceId}/9102.json``: a body whose ``deviceId`` or ``streamId`` names that device) | control; close (0) / close talk (4): the media server closes the stream unless another user watches it (then nothing is sent: state ``kept``), and 0x9102 is sent only to an online terminal (else state ``not_sent``) |
| ``POST .../9205.json`` | the terminal's recordings: the 0x1205 reply lands in the command's ``reply`` (state.json) |
| ``POST .../9201.json``, ``POST .../9202.json`` | playback (a ``playback`` stream, like 9101) and its control (2 end closes the stream) |
| ``GET /api/video/{deviceSn}/{channel}.json`` | stream info (``?kind=live`` default, listen, talk, playback): ``updateTime`` (ms of the last frame) means up, fresh URLs |
| ``PUT /api/video/heartbeat/{streamIds}.json`` | comma-joined stream ids the console still plays (every 5 s); ``{known}``; ids of other enterprises' devices are ignored, none of the caller's: 404 |
| ``GET /api/video/command/{id}/state.json`` | a video command's state (as /api/command/{id}/state.json) with its ``streamId`` |

Refusals: another enterprise's car, device, stream or command is a 404; a device without video, or a
channel it does not have, 400; an offline terminal 409 ("device not online, cannot start live
audio/video"); a second talk on a channel 409 (当前正在进行通话中，只支持一对一进行通话！); a terminal whose
JT/T 808 session address is not known yet (the media server could admit none of its connections) 409
(终端会话尚未就绪，请稍后重试); the media server down 503 ("no available live video server, contact system administrator").
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, request

from api import video
from api.command_send import accepted, device_id_in, epoch_ms, send_built
from api.commands import Built
from api.db import get_db
from api.errors import ApiError, BadRequest, NotFound, Unavailable
from api.http import json_body, ok
from api.media import NO_SERVER_MESSAGE, MediaUnavailable, NoSessionAddress, media, signed_urls
from api.security import current_principal, request_scope, requires
from fleet import video_streams
from fleet.enums import DeviceState
from protocols.jt808.catalogue import AV_TRANSMISSION_CONTROL, REALTIME_AV_REQUEST
from warehouse.queries import commands as command_queries
from warehouse.queries import video as queries
from warehouse.queries.terminal_session import terminal_session_address

bp = Blueprint("video", __name__)
MAX_HEARTBEAT_IDS = 64


class VideoOffline(ApiError):
    http_status = 409
    code = 409
    default_message = video.OFFLINE_MESSAGE


class SessionNotReady(ApiError):
    http_status = 409
    code = 409
    default_message = video.SESSION_NOT_READY_MESSAGE


class TalkBusy(ApiError):
    http_status = 409
    code = 409
    default_message = video.TALK_BUSY_MESSAGE


def _no_server() -> Unavailable:
    return Unavailable(NO_SERVER_MESSAGE)


def _target(scope_id: int, by_car: bool, payload: Any) -> dict[str, Any]:
    with get_db().connection() as conn:
        target = (queries.device_of_car(conn, request_scope(), scope_id, device_id_in(payload)) if by_car
                  else queries.device(conn, request_scope(), scope_id))
    if target is None:
        what = f"车辆 {scope_id} 或其终端" if by_car else f"终端 {scope_id}"
        raise NotFound(f"{what}不存在 ({'car' if by_car else 'device'} {scope_id} does not exist)")
    return target


def _registration(target: dict[str, Any], sid: str, kind: str, channel: int, data_type: int,
                  stream_type: int) -> dict[str, Any]:
    """What the media server needs to admit the terminal's connection: the stream, and the source address
    of the terminal's authenticated JT/T 808 session (the media server's `address` policy)."""
    with get_db().connection() as conn:
        address = terminal_session_address(conn, int(target["deviceId"]))
    return video_streams.registration(target, sid, kind, channel, data_type, stream_type, address,
                                      current_principal().user_id or None)


def _start(target: dict[str, Any], payload: Any) -> dict[str, Any]:
    req = video.realtime_request(payload)
    video.check_channel(target, req)
    if target["state"] != DeviceState.ONLINE:
        raise VideoOffline()
    sid = video.stream_id(target["deviceId"], req.channel, req.kind)
    client = media()
    try:
        if req.kind == "talk":
            current = client.status(sid)
            if current is not None and current.get("online"):
                raise TalkBusy()
        registered = client.register(_registration(target, sid, req.kind, req.channel, req.data_type, req.stream_type))
    except NoSessionAddress:
        raise SessionNotReady() from None
    except MediaUnavailable:
        raise _no_server() from None
    answer = {"streamId": sid, "kind": req.kind, "channelId": req.channel, "dataType": req.data_type,
              "streamType": req.stream_type, "stopGraceS": client.settings.idle_stop_s,
              **signed_urls(sid, target, talk=req.kind == "talk")}
    if registered.get("live"):  # a terminal already feeds it: one more viewer, no new 0x9101
        return {"id": None, "carId": target["carId"], "deviceId": target["deviceId"], "msgId": REALTIME_AV_REQUEST,
                "state": "reused", **answer}
    settings = client.settings
    # the port the media server named: its own, or this request's one-time port (policy `port`)
    built = video.build_9101(req, settings.public_host, int(registered.get("tcpPort") or settings.port))
    built = Built(built.msg_id, built.body_hex, {**built.payload, "streamId": sid})
    return {**send_built(target, built), **answer}


def _control(target: dict[str, Any], payload: Any) -> dict[str, Any]:
    control = video.control_request(payload)
    sid = control["streamId"] or video.stream_id(target["deviceId"], control["channelId"],
                                                 "talk" if control["command"] == 4 else "live")
    device_id, channel, _kind = video.parse_stream_id(sid)
    if device_id != target["deviceId"]:
        raise BadRequest("streamId 不属于该终端 (the streamId is another device's)", data={"field": "streamId"})
    control["streamId"], control["channelId"] = sid, channel
    base = {"id": None, "carId": target["carId"], "deviceId": target["deviceId"], "msgId": AV_TRANSMISSION_CONTROL,
            "streamId": sid}
    if control["command"] in (0, 4):
        try:
            released = media().release(sid, current_principal().user_id)
        except MediaUnavailable:
            released = {"closed": True, "viewers": 0}
        if not released.get("closed"):
            return {**base, "state": "kept", "viewers": released.get("viewers", 0)}
        if target["state"] != DeviceState.ONLINE:  # the talk stop rule: only to an online terminal
            return {**base, "state": "not_sent"}
    elif target["state"] != DeviceState.ONLINE:
        raise VideoOffline()
    return {**send_built(target, video.build_9102(control)), "streamId": sid}


def _resources(target: dict[str, Any], payload: Any) -> dict[str, Any]:
    built = video.build_9205(payload)
    if target["state"] != DeviceState.ONLINE:
        raise VideoOffline()
    return send_built(target, built)


def _playback(target: dict[str, Any], payload: Any) -> dict[str, Any]:
    shown, start, end = video.playback_request(payload)
    if not target.get("hasVideo"):
        raise BadRequest(video.NO_ABILITY_MESSAGE, data={"field": "deviceId"})
    if target["state"] != DeviceState.ONLINE:
        raise VideoOffline()
    sid = video.stream_id(target["deviceId"], shown["channelId"], "playback")
    client = media()
    try:
        client.release(sid, None)  # a new playback of the channel replaces the previous one
        registered = client.register(_registration(target, sid, "playback", shown["channelId"], shown["mediaType"],
                                                   shown["streamType"]))
    except NoSessionAddress:
        raise SessionNotReady() from None
    except MediaUnavailable:
        raise _no_server() from None
    built: Built = video.build_9201(shown, start, end, client.settings.public_host,
                                    int(registered.get("tcpPort") or client.settings.port))
    built = Built(built.msg_id, built.body_hex, {**built.payload, "streamId": sid})
    return {**send_built(target, built), "streamId": sid, "kind": "playback", "channelId": shown["channelId"],
            "stopGraceS": client.settings.idle_stop_s, **signed_urls(sid, target)}


def _playback_control(target: dict[str, Any], payload: Any) -> dict[str, Any]:
    built = video.build_9202(payload)
    if target["state"] != DeviceState.ONLINE:
        raise VideoOffline()
    sid = video.stream_id(target["deviceId"], built.payload["channelId"], "playback")
    if built.payload["control"] == 2:
        try:
            media().release(sid, None)
        except MediaUnavailable:
            pass
    return {**send_built(target, built), "streamId": sid}


_HANDLERS = {"9101": _start, "9102": _control, "9205": _resources, "9201": _playback, "9202": _playback_control}
# console-spec §7 posts 9101 and 9102 to /api/command/{deviceId}/...; platform-spec §7 posts every command to
# /api/command/{carId}/...: one path shape, read by what the body names (_path_names_device).
DEVICE_PATH_CODES = ("9101", "9102")


def _path_names_device(code: str, path_id: int, payload: Any) -> bool:
    """Whether ``POST /api/command/{path_id}/{code}.json`` is console-spec §7's device form: a 9101 or 9102
    whose body names the path's id as its device (``deviceId``; a 9102 without one: the device of its
    ``streamId``). Otherwise the id is a car's (platform-spec §7), ``deviceId`` one of that car's devices.
    The car reading of a body naming device ``path_id`` succeeds only when car ``path_id`` owns device
    ``path_id``, the same terminal: so the device id of one vehicle and the car id of another never meet.
    A malformed ``deviceId`` or ``streamId`` is a 400 naming it."""
    if code not in DEVICE_PATH_CODES or not isinstance(payload, dict):
        return False
    named = device_id_in(payload)
    if named is None and code == "9102" and isinstance(payload.get("streamId"), str):
        named = video.parse_stream_id(payload["streamId"])[0]
    return named == path_id


def _register(code: str) -> None:
    handler = _HANDLERS[code]

    @bp.post(f"/api/command/<int:path_id>/{code}.json", endpoint=f"car_video_{code}")
    @requires("command", "cmd")
    def car_command(path_id: int) -> dict[str, Any]:
        payload = json_body()
        by_car = not _path_names_device(code, path_id, payload)
        return accepted(handler(_target(path_id, by_car, payload), payload))

    @bp.post(f"/api/device/<int:device_id>/command/{code}.json", endpoint=f"device_video_{code}")
    @requires("command", "cmd")
    def device_command(device_id: int) -> dict[str, Any]:
        payload = json_body()
        return accepted(handler(_target(device_id, False, payload), payload))


for _code in video.VIDEO_CODES:
    _register(_code)


@bp.get("/api/video/<device_sn>/<int:channel>.json")
@requires("command", "get")
def stream_info(device_sn: str, channel: int) -> dict[str, Any]:
    kind = request.args.get("kind", "live")
    if kind not in ("live", "listen", "talk", "playback"):
        raise BadRequest("kind 必须是 live、listen、talk 或 playback (kind must be live, listen, talk or playback)",
                         data={"field": "kind"})
    if not 0 < channel < 256:
        raise BadRequest("channel 必须是 1~255 (channel must be 1 to 255)", data={"field": "channel"})
    with get_db().connection() as conn:
        target = queries.device_by_sn(conn, request_scope(), device_sn[:64])
    if target is None:
        raise NotFound(f"终端 {device_sn[:64]} 不存在 (device {device_sn[:64]} does not exist)")
    sid = video.stream_id(target["deviceId"], channel, kind)
    data: dict[str, Any] = {"streamId": sid, "deviceId": target["deviceId"], "deviceSn": target["deviceSn"],
                            "channelId": channel, "kind": kind, "updateTime": None,
                            "currentTime": int(time.time() * 1000), "serverAvailable": True}
    try:
        status = media().status(sid)
    except MediaUnavailable:
        return ok(data | {"serverAvailable": False})
    if status is None:
        return ok(data | {"streamId": None})
    return ok(data | {key: status[key] for key in (
        "updateTime", "startTime", "online", "viewers", "hasVideo", "hasAudio", "videoCodec", "browserPlayable",
        "audioCodec", "audioUnsupported", "dataType", "streamType")} | signed_urls(sid, target, talk=kind == "talk"))


@bp.put("/api/video/heartbeat/<stream_ids>.json")
@requires("command", "get")
def heartbeat(stream_ids: str) -> dict[str, Any]:
    ids = [part for part in stream_ids.split(",") if part][:MAX_HEARTBEAT_IDS + 1]
    if len(ids) > MAX_HEARTBEAT_IDS:
        raise BadRequest(f"最多 {MAX_HEARTBEAT_IDS} 个流 (at most {MAX_HEARTBEAT_IDS} stream ids)",
                         data={"field": "streamIds"})
    parsed = {sid: video.parse_stream_id(sid) for sid in ids}  # 400 for an id that is no stream id
    with get_db().connection() as conn:
        allowed = queries.devices_in_scope(conn, request_scope(), sorted({p[0] for p in parsed.values()})) \
            if parsed else set()
    mine = [sid for sid, (device_id, _, _) in parsed.items() if device_id in allowed]
    if not mine:  # nothing of the caller's (another enterprise's streams are ignored, as if absent)
        raise NotFound("没有这些视频流 (no such streams)")
    try:
        return ok({"known": media().heartbeat(mine)})
    except MediaUnavailable:
        return ok({"known": [], "serverAvailable": False})


@bp.get("/api/video/command/<int:command_id>/state.json")
@requires("command", "get")
def video_command_state(command_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        row = command_queries.state(conn, request_scope(), command_id)
        payload = command_queries.payload_of(conn, command_id) if row else None
    if row is None:
        raise NotFound(f"指令 {command_id} 不存在 (command {command_id} does not exist)")
    for key in ("createdAt", "sentAt", "answeredAt"):
        row[key] = epoch_ms(row[key])
    row["streamId"] = (payload or {}).get("streamId")
    return ok(row)
