"""Video command payloads (console-spec §7; platform-spec §9): validated server-side and
encoded with the bodies of fleet/video_streams.py (shared with a superior platform's requests over JT/T 809),
like api/commands.py does for the other commands. Pure.

| command | payload (console field names) | body |
|---|---|---|
| 9101 | ``{channelId (1-255, default 2), dataType (0 audio+video, 1 video, 2 talk, 3 listen; default 0), streamType (0 main, 1 sub; default 1), deviceId, desc, messageId, name}`` | RealtimeAvRequest to the media server |
| 9102 | ``{streamId, channelId, command (0 close, 1 switch stream, 2 pause, 3 resume, 4 close talk), commadType (0 audio+video, 1 audio, 2 video), streamType}`` | AvTransmissionControl |
| 9205 | ``{channelId (0 all), startTime, endTime, alarmFlags, mediaType (0-3), streamType (0-2), storageType (0-2)}`` | QueryAvResources; answered by 0x1205 |
| 9201 | ``{channelId, startTime, endTime, mediaType (0-3), streamType (0-2), storageType (0-2), playbackMode (0-4), speed (0-5)}`` | PlaybackRequest to the media server |
| 9202 | ``{channelId, control (0 play, 1 pause, 2 end, 3 fast forward, 4 key frames back, 5 seek, 6 key frames forward), speed (0-5; 1-5 for controls 3 and 4), seekTime}`` | PlaybackControl |

``commadType`` is the spec's spelling (sic); ``commandType`` is accepted too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.commands import Built, _obj, _time_field, int_field
from api.errors import BadRequest
from fleet import video_streams
from fleet.video_streams import stream_id as stream_id  # re-exported: the routes name streams by it
from protocols.jt808.catalogue import (
    AV_TRANSMISSION_CONTROL,
    PLAYBACK_CONTROL,
    PLAYBACK_REQUEST,
    QUERY_AV_RESOURCES,
    REALTIME_AV_REQUEST,
)
from protocols.jt808.messages.t9205_query_av_resources import QueryAvResources

VIDEO_CODES = ("9101", "9102", "9201", "9202", "9205")
DEFAULT_CHANNEL = 2  # platform-spec §9
KIND_OF_DATA_TYPE = {0: "live", 1: "live", 2: "talk", 3: "listen"}
STREAM_ID = re.compile(r"^(\d{1,18})-(\d{1,3})-(live|listen|talk|playback)$")

OFFLINE_MESSAGE = "设备不在线，无法开启实时音视频 (device not online, cannot start live audio/video)"
NO_ABILITY_MESSAGE = "该车辆没有安装具备该功能的设备 (the vehicle has no device with this ability)"
SESSION_NOT_READY_MESSAGE = ("终端会话尚未就绪，请稍后重试 (the terminal's session is not ready for video yet: its "
                             "JT/T 808 session address is not known; try again once it has reconnected)")
TALK_BUSY_MESSAGE = "当前正在进行通话中，只支持一对一进行通话！ (a talk is going on; only one talk at a time)"


@dataclass(frozen=True)
class VideoRequest:
    channel: int
    data_type: int
    stream_type: int
    kind: str


def parse_stream_id(text: str) -> tuple[int, int, str]:
    """(device id, channel, kind). Raises BadRequest for anything else."""
    match = STREAM_ID.match(text)
    if not match:
        raise BadRequest(f"streamId 不合法 (streamId must look like <deviceId>-<channel>-<live|listen|talk|playback>, "
                         f"got {text[:40]!r})", data={"field": "streamId"})
    return int(match.group(1)), int(match.group(2)), match.group(3)


def channels_of(text: str | None) -> set[int]:
    return {int(part) for part in (text or "").replace("，", ",").split(",") if part.strip().isdigit()}


def realtime_request(payload: Any) -> VideoRequest:
    p = _obj(payload)
    data_type = int_field(p, "dataType", 0, 3, default=0)
    return VideoRequest(int_field(p, "channelId", 1, 255, default=DEFAULT_CHANNEL), data_type,
                        int_field(p, "streamType", 0, 1, default=1), KIND_OF_DATA_TYPE[data_type])


def check_channel(target: dict[str, Any], request: VideoRequest) -> None:
    """Refuse a device without the ability or a channel it does not have (when its channels are set)."""
    if request.kind == "live" and not target.get("hasVideo"):
        raise BadRequest(NO_ABILITY_MESSAGE, data={"field": "deviceId"})
    video, talk = channels_of(target.get("videoChannel")), channels_of(target.get("talkChannel"))
    allowed = video if request.kind == "live" else video | talk
    if allowed and request.channel not in allowed:
        raise BadRequest(f"该终端没有通道 {request.channel} (the device has no channel {request.channel}; "
                         f"it has {sorted(allowed)})", data={"field": "channelId"})


def build_9101(request: VideoRequest, server_ip: str, tcp_port: int) -> Built:
    body = video_streams.realtime_body(server_ip, tcp_port, request.channel, request.data_type, request.stream_type)
    return Built(REALTIME_AV_REQUEST, body.encode("2013").hex(), {
        "channelId": request.channel, "dataType": request.data_type, "streamType": request.stream_type,
        "serverIp": server_ip, "tcpPort": tcp_port})


def control_request(payload: Any) -> dict[str, Any]:
    p = _obj(payload)
    close_type = int_field(p, "commadType", 0, 2, default=int_field(p, "commandType", 0, 2, default=0))
    out: dict[str, Any] = {"channelId": int_field(p, "channelId", 1, 255, default=DEFAULT_CHANNEL),
           "command": int_field(p, "command", 0, 4), "commadType": close_type,
           "streamType": int_field(p, "streamType", 0, 1, default=0), "streamId": None}
    if p.get("streamId") is not None:
        if not isinstance(p["streamId"], str):
            raise BadRequest("streamId 必须是文本 (streamId must be text)", data={"field": "streamId"})
        parse_stream_id(p["streamId"])
        out["streamId"] = p["streamId"]
    return out


def build_9102(control: dict[str, Any]) -> Built:
    body = video_streams.close_body(control["channelId"], control["command"], control["commadType"], control["streamType"])
    return Built(AV_TRANSMISSION_CONTROL, body.encode("2013").hex(), dict(control))


def time_range(p: dict[str, Any]) -> tuple[datetime | None, datetime | None]:
    start, end = _time_field(p, "startTime"), _time_field(p, "endTime")
    if start and end and end < start:
        raise BadRequest("结束时间不能早于开始时间 (endTime must not be before startTime)", data={"field": "endTime"})
    return start, end


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def build_9205(payload: Any) -> Built:
    p = _obj(payload)
    start, end = time_range(p)
    shown: dict[str, Any] = {"channelId": int_field(p, "channelId", 0, 255, default=0), "startTime": _iso(start),
             "endTime": _iso(end),
             "alarmFlags": int_field(p, "alarmFlags", 0, 2**63 - 1, default=0),
             "mediaType": int_field(p, "mediaType", 0, 3, default=0),
             "streamType": int_field(p, "streamType", 0, 2, default=0),
             "storageType": int_field(p, "storageType", 0, 2, default=0)}
    body = QueryAvResources(shown["channelId"], start, end, shown["alarmFlags"], shown["mediaType"], shown["streamType"],
                            shown["storageType"])
    return Built(QUERY_AV_RESOURCES, body.encode("2013").hex(), shown)


def playback_request(payload: Any) -> tuple[dict[str, Any], datetime | None, datetime | None]:
    p = _obj(payload)
    start, end = time_range(p)
    if start is None:
        raise BadRequest("startTime 不能为空 (startTime is required)", data={"field": "startTime"})
    shown: dict[str, Any] = {"channelId": int_field(p, "channelId", 1, 255, default=DEFAULT_CHANNEL), "startTime": _iso(start),
             "endTime": _iso(end), "mediaType": int_field(p, "mediaType", 0, 3, default=0),
             "streamType": int_field(p, "streamType", 0, 2, default=0),
             "storageType": int_field(p, "storageType", 0, 2, default=0),
             "playbackMode": int_field(p, "playbackMode", 0, 4, default=0), "speed": int_field(p, "speed", 0, 5, default=0)}
    return shown, start, end


def build_9201(shown: dict[str, Any], start: datetime | None, end: datetime | None, server_ip: str,
               tcp_port: int) -> Built:
    body = video_streams.playback_body(server_ip, tcp_port, shown["channelId"], shown["mediaType"],
                                       shown["streamType"], shown["storageType"], shown["playbackMode"],
                                       shown["speed"], start, end)
    return Built(PLAYBACK_REQUEST, body.encode("2013").hex(), {**shown, "serverIp": server_ip, "tcpPort": tcp_port})


def build_9202(payload: Any) -> Built:
    p = _obj(payload)
    control = int_field(p, "control", 0, 6)
    seek = _time_field(p, "seekTime")
    if control == 5 and seek is None:
        raise BadRequest("拖动回放需要 seekTime (seek needs seekTime)", data={"field": "seekTime"})
    speed = int_field(p, "speed", 0, 5, default=0)
    if control in (3, 4) and speed == 0:  # JT/T 1078 table 25: the speed is what controls 3 and 4 are about
        raise BadRequest("快进或关键帧快退需要倍速 1~5 (fast forward / key frames back need speed 1 (x1), 2 (x2), "
                         "3 (x4), 4 (x8) or 5 (x16))", data={"field": "speed"})
    shown: dict[str, Any] = {"channelId": int_field(p, "channelId", 1, 255, default=DEFAULT_CHANNEL), "control": control,
             "speed": speed, "seekTime": _iso(seek)}
    body = video_streams.playback_control_body(shown["channelId"], control, shown["speed"], seek)
    return Built(PLAYBACK_CONTROL, body.encode("2013").hex(), shown)
