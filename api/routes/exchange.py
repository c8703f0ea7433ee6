"""JT/T 809 link operations (platform-spec §2 superiorPlatform, §6 action ``superior``; exchange/link). The
superior platform rows themselves are the declared entity ``superiorPlatform`` (api/query/entities_exchange.py).

- ``GET /api/exchange/superiorPlatform/{id}/linkState.json`` (``superiorPlatform:superior``): the main and sub
  link's state, since, last heartbeat, sent / received / back-filled / thinned counts, 0x9101 mismatches and
  last error, as the link service last saved them (every FLEET_EXCHANGE_POLL_S); ``[]`` before its first run.
  A platform outside the caller's scope is a 404.
- ``POST /api/exchange/inspection/{id}/answer.json`` ``{"answer": text}`` (``superiorPlatform:superior``):
  answers an open 0x9301 inspection. The answer is stored (state ``answered``); the link service, which polls
  the table, sends it as 0x1301 and marks it ``sent``. Not in scope: 404; already answered: 409; past its
  deadline (state ``expired``: the superior no longer waits for it): 409 saying so.

fleetwatch as the superior platform (exchange/superior; the rows are the entity ``inferiorPlatform``,
api/query/entities_inferior.py), each route needing ``inferiorPlatform:superior``; another enterprise's platform
is a 404:
- ``GET /api/exchange/inferiorPlatform/{id}/linkState.json``: its main and sub link as the superior service last
  saved them (every FLEET_EXCHANGE_POLL_S); ``[]`` before it ever logged in.
- ``GET /api/exchange/inferiorPlatform/{id}/authorizeCodes.json``: the time-limited authorisation codes it last
  reported (0x1701).
- ``POST /api/exchange/inferiorPlatform/{id}/inspection.json`` ``{"content", "objectType"?, "objectId"?,
  "answerMinutes"?}``: queue a 0x9301 inspection; ``POST .../message.json`` ``{"content", "objectType"?,
  "objectId"?}``: a 0x9302 message. The superior service sends it while the platform is linked and stores the
  answer with its latency (entity ``inferiorRequest``). data ``{id, state: "queued"}``.

Live video of an inferior platform's vehicle (JT/T 1078-2016 §8.2; exchange/superior/video.py, migration 0066),
``inferiorPlatform:superior``, another enterprise's vehicle or request a 404:
- ``POST /api/exchange/exchangeCar/{id}/video.json`` ``{"channelId"? 1-255 (1), "avItemType"? 0 audio and video,
  1 audio, 2 video (0), "kind"? "live" (default) | "playback"}``: queue a 0x9801; a playback (0x9A01) also needs
  ``startTime`` and ``endTime`` (at most ``MAX_PLAYBACK_HOURS`` apart) and takes ``streamType`` (0 any, 1 main,
  2 sub) and ``memType`` (0 any, 1 main, 2 disaster recovery storage). data ``{id, state: "queued"}``. It waits
  FLEET_EXCHANGE_SUPERIOR_VIDEO_WAIT_S for the platform's 0x1801 / 0x1A01, then expires.
- ``GET /api/exchange/videoPull/{id}.json``: the request (state queued, sent, playing, failed, expired, ended;
  RESULT and why it failed or ended); while playing, the signed ``flvUrl`` / ``wsUrl`` of the stream our media
  server pulls, as a terminal's live video has.
- ``POST /api/exchange/videoPull/{id}/stop.json``: the operator stops watching: the media server closes the
  stream unless another user watches it, and the superior service then sends 0x9802 (0x9A02 end); a request still waiting
  ends at once. data: the request.

GB/T 32960 (``superiorPlatform:superior``, the gb32960 exchange screens): ``GET
/api/exchange/gb32960/unknownLogins.json``, the platform logins with a username no inferior platform has, for a
root enterprise's administrators.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint

from api.db import get_db
from api.errors import BadRequest, Conflict, NotFound, Unavailable
from api.http import json_object, ok
from api.media import NO_SERVER_MESSAGE, media, signed_urls
from api.query.entities_gb32960_exchange import PERMISSION as GB_EXCHANGE_PERMISSION
from api.query.entities_settings import is_root_path
from api.security import current_principal, request_scope, requires
from api.video import time_range
from fleet.media_client import MediaUnavailable
from fleet.settings import ExchangeSettings
from warehouse.queries import exchange as q
from warehouse.queries import exchange_inferior as qi
from warehouse.queries import gb_vehicles
from warehouse.queries.scope import like_prefix

bp = Blueprint("exchange", __name__)
MAX_ANSWER_CHARS = 1000
MAX_REQUEST_CHARS = 1000
MAX_PLAYBACK_HOURS = 24  # a superior's playback request covers at most a day of recording
OBJECT_TYPES = range(1, 6)  # JT/T 809 0x9301 OBJECT_TYPE: 1 platform, 2 operator, 3 enterprise, ... (§5.3)


def _expired(inspection_id: int) -> Conflict:
    return Conflict(f"该查岗已过应答截止时间，不能再应答 (inspection {inspection_id} is past its deadline and can no "
                    "longer be answered)", data={"state": "expired"})


@bp.get("/api/exchange/superiorPlatform/<int:platform_id>/linkState.json")
@requires("superiorPlatform", "superior")
def link_state(platform_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        if not q.platform_in_scope(conn, platform_id, like_prefix(request_scope().enterprise_path)):
            raise NotFound(f"superiorPlatform {platform_id} 不存在 (does not exist)")
        return ok(q.link_states(conn, platform_id))


@bp.post("/api/exchange/inspection/<int:inspection_id>/answer.json")
@requires("superiorPlatform", "superior")
def answer_inspection(inspection_id: int) -> dict[str, Any]:
    body = json_object()
    prefix = like_prefix(request_scope().enterprise_path)
    with get_db().connection() as conn:
        # another enterprise's inspection is a 404 before anything about the request is judged
        state = q.inspection_state(conn, inspection_id, prefix)
        if state is None:
            raise NotFound(f"inspection {inspection_id} 不存在 (does not exist)")
        if state == "expired":
            raise _expired(inspection_id)
        answer = body.get("answer")
        if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER_CHARS:
            raise BadRequest(f"请填写应答内容 (field 'answer': text of 1 to {MAX_ANSWER_CHARS} characters)",
                             data={"field": "answer"})
        if q.answer_inspection(conn, inspection_id, answer.strip(), current_principal().user_id, prefix):
            return ok({"id": inspection_id, "state": "answered"})
        if q.inspection_state(conn, inspection_id, prefix) == "expired":  # the deadline passed meanwhile
            raise _expired(inspection_id)
    raise Conflict(f"该查岗已应答 (inspection {inspection_id} is already answered)")


def _inferior_in_scope(inferior_id: int, conn: Any) -> dict[str, Any]:
    found = qi.platform_in_scope(conn, inferior_id, like_prefix(request_scope().enterprise_path))
    if found is None:
        raise NotFound(f"inferiorPlatform {inferior_id} 不存在 (does not exist)")
    return found


@bp.get("/api/exchange/inferiorPlatform/<int:inferior_id>/linkState.json")
@requires("inferiorPlatform", "superior")
def inferior_link_state(inferior_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        _inferior_in_scope(inferior_id, conn)
        return ok(qi.link_states(conn, inferior_id))


@bp.get("/api/exchange/inferiorPlatform/<int:inferior_id>/authorizeCodes.json")
@requires("inferiorPlatform", "superior")
def inferior_authorize_codes(inferior_id: int) -> dict[str, Any]:
    """The platform's latest time-limited authorisation codes (0x1701, migration 0065): {platformCode, code1
    (its home region's superior), code2 (a cross-region one), reportedAt}, all null before its first report."""
    with get_db().connection() as conn:
        _inferior_in_scope(inferior_id, conn)
        return ok(qi.authorize_codes(conn, inferior_id))


def _queue(inferior_id: int, kind: str) -> dict[str, Any]:
    body = json_object()
    with get_db().connection() as conn:
        platform = _inferior_in_scope(inferior_id, conn)  # another enterprise's platform: 404 before the body
        content = body.get("content")
        if not isinstance(content, str) or not content.strip() or len(content) > MAX_REQUEST_CHARS:
            raise BadRequest(f"请填写内容 (field 'content': text of 1 to {MAX_REQUEST_CHARS} characters)",
                             data={"field": "content"})
        object_type = body.get("objectType", 1)
        if isinstance(object_type, bool) or object_type not in OBJECT_TYPES:
            raise BadRequest("对象类型不合法 (field 'objectType': 1 to 5)", data={"field": "objectType"})
        object_id = body.get("objectId", "")
        if not isinstance(object_id, str) or len(object_id) > 20:
            raise BadRequest("对象编号不合法 (field 'objectId': text of at most 20 characters)",
                             data={"field": "objectId"})
        minutes = body.get("answerMinutes", 10) if kind == "inspection" else None
        if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int)
                                    or not 1 <= minutes <= 255):
            raise BadRequest("应答时限不合法 (field 'answerMinutes': 1 to 255 minutes)",
                             data={"field": "answerMinutes"})
        request_id = qi.queue_request(conn, {
            "platform_id": inferior_id, "enterprise_id": platform["enterprise_id"], "kind": kind,
            "object_type": object_type, "object_id": object_id.strip() or str(platform["centre_id"]),
            "content": content.strip(), "answer_minutes": minutes, "created_by": current_principal().user_id})
    return ok({"id": request_id, "state": "queued"})


@bp.post("/api/exchange/inferiorPlatform/<int:inferior_id>/inspection.json")
@requires("inferiorPlatform", "superior")
def send_inspection(inferior_id: int) -> dict[str, Any]:
    return _queue(inferior_id, "inspection")


@bp.post("/api/exchange/inferiorPlatform/<int:inferior_id>/message.json")
@requires("inferiorPlatform", "superior")
def send_message(inferior_id: int) -> dict[str, Any]:
    return _queue(inferior_id, "message")


UNKNOWN_LOGINS_SHOWN = 100


def _int_in(body: dict[str, Any], name: str, default: int, allowed: range, message: str) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise BadRequest(message, data={"field": name})
    return value


def _playback(body: dict[str, Any]) -> dict[str, Any]:
    """A 0x9A01's period (both ends, UINT64 seconds on the wire), stream type and storage."""
    start, end = time_range(body)
    if start is None or end is None or end <= start:
        raise BadRequest("请选择回放时间段 (fields 'startTime' and 'endTime': the recording's period, end after start)",
                         data={"field": "startTime" if start is None else "endTime"})
    if end - start > timedelta(hours=MAX_PLAYBACK_HOURS):
        raise BadRequest(f"回放时间段最长 {MAX_PLAYBACK_HOURS} 小时 (the period is at most {MAX_PLAYBACK_HOURS} hours)",
                         data={"field": "endTime"})
    return {"start": start, "end": end,
            "stream_type": _int_in(body, "streamType", 0, range(3), "码流类型不合法 (field 'streamType': 0 to 2)"),
            "mem_type": _int_in(body, "memType", 0, range(3), "存储器类型不合法 (field 'memType': 0 to 2)")}


@bp.post("/api/exchange/exchangeCar/<int:vehicle_id>/video.json")
@requires("inferiorPlatform", "superior")
def request_video(vehicle_id: int) -> dict[str, Any]:
    body = json_object()
    with get_db().connection() as conn:
        vehicle = qi.vehicle_in_scope(conn, vehicle_id, like_prefix(request_scope().enterprise_path))
        if vehicle is None:
            raise NotFound(f"交换车辆 {vehicle_id} 不存在 (exchange vehicle {vehicle_id} does not exist)")
        channel = _int_in(body, "channelId", 1, range(1, 256), "通道号不合法 (field 'channelId': 1 to 255)")
        av_type = _int_in(body, "avItemType", 0, range(3),
                          "音视频类型不合法 (field 'avItemType': 0 audio and video, 1 audio, 2 video)")
        kind = body.get("kind", "live")
        if kind not in ("live", "playback"):
            raise BadRequest("类型不合法 (field 'kind': live or playback)", data={"field": "kind"})
        playback = _playback(body) if kind == "playback" else {}
        request_id = qi.queue_video(conn, {
            "platform_id": vehicle["inferior_platform_id"], "enterprise_id": vehicle["enterprise_id"],
            "vehicle_id": vehicle_id, "kind": kind, "channel": channel, "av_type": av_type, **playback,
            "created_by": current_principal().user_id, "wait_s": ExchangeSettings().superior_video_wait_s})
    return ok({"id": request_id, "state": "queued"})


def _video_pull(request_id: int, conn: Any) -> dict[str, Any]:
    found = qi.video_in_scope(conn, request_id, like_prefix(request_scope().enterprise_path))
    if found is None:
        raise NotFound(f"视频请求 {request_id} 不存在 (video request {request_id} does not exist)")
    return found


@bp.get("/api/exchange/videoPull/<int:request_id>.json")
@requires("inferiorPlatform", "superior")
def video_pull(request_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        found = _video_pull(request_id, conn)
    if found["state"] == "playing" and found["streamId"]:
        found |= signed_urls(found["streamId"], found)
    return ok(found)


@bp.post("/api/exchange/videoPull/<int:request_id>/stop.json")
@requires("inferiorPlatform", "superior")
def stop_video_pull(request_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        found = _video_pull(request_id, conn)
        if found["state"] in ("queued", "sent"):
            qi.video_closed(conn, request_id, "ended", qi.STOPPED, datetime.now(UTC))
    if found["state"] == "playing" and found["streamId"]:
        try:
            media().release(found["streamId"], current_principal().user_id)
        except MediaUnavailable:
            raise Unavailable(NO_SERVER_MESSAGE) from None
    with get_db().connection() as conn:
        return ok(_video_pull(request_id, conn))


@bp.get("/api/exchange/gb32960/unknownLogins.json")
@requires(GB_EXCHANGE_PERMISSION, "superior")
def gb32960_unknown_logins() -> dict[str, Any]:
    """GB/T 32960 platform logins 0x05 with a username no inferior platform has (migration 0064), the latest
    ``UNKNOWN_LOGINS_SHOWN`` first: {username, address, gatewayId, firstAt, lastAt, attempts}. No enterprise owns
    them, so only an administrator of a root enterprise reads them (as the system monitor's platform-wide
    figures): ``visible`` false and no rows for anyone else."""
    if not is_root_path(current_principal().enterprise_path):
        return ok({"visible": False, "list": []})
    with get_db().connection() as conn:
        return ok({"visible": True, "list": gb_vehicles.unknown_logins(conn, UNKNOWN_LOGINS_SHOWN)})
