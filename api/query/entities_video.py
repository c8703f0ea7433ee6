"""The video logs (platform-spec §2 logs), read-only on the list framework. Tenant: the device's enterprise;
permission ``videoLog`` for both.

- ``videoLog``: who watched which stream, from when to when: one row per viewer connection of the media
  server (``video_log_view``, migration 0025); ``sessionKey`` is the live session watched.
- ``liveLog`` (platform-spec §2 logs "live (with detail)"): one row per live video, listening or talk session
  (``live_session_view``, migration 0056): who opened which vehicle's channel, when it was asked for, its first
  frame, its end and why, the terminal's media bytes (the SIM card's data) and the viewers; its detail page
  reads ``GET /api/log/live/{id}.json`` (api/routes/live_log.py)."""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec

F = FieldSpec
KINDS = ("live", "listen", "talk", "playback")


def _stream_fields(kinds: tuple[str, ...]) -> dict[str, FieldSpec]:
    """The fields a viewer's row and a live session share: the stream, its vehicle, terminal and user."""
    return {
        "durationS": F("duration_s", "int", label="时长(秒)", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "deviceSn": F("device_sn", label="终端序列号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "userId": F("user_id", "int", label="用户"),
        "userName": F("user_name", label="用户名", exportable=True),
        "streamId": F("stream_id", label="流编号", exportable=True),
        "kind": F("kind", enum=kinds, label="类型", exportable=True),
        "channel": F("channel", "int", label="通道", exportable=True),
        "dataType": F("data_type", "int", label="数据类型", exportable=True),
        "streamType": F("stream_type", "int", label="码流类型", exportable=True),
    }


VIDEO_LOG = EntitySpec(
    name="videoLog",
    relation="video_log_view",
    tenant_column="enterprise_id",
    permission="videoLog",
    id_field="id",
    tiebreak=("startTime", "id"),
    default_order="startTime",
    default_desc=True,
    label="视频日志",
    fields={
        "id": F("id", "int", label="编号"),
        "startTime": F("start_time", "time", label="开始时间", exportable=True),
        "endTime": F("end_time", "time", label="结束时间", exportable=True),
        **_stream_fields(KINDS),
        "transport": F("transport", label="传输方式", exportable=True),
        "client": F("client", label="客户端地址", exportable=True),
        "bytesSent": F("bytes_sent", "int", label="发送字节", exportable=True),
        "endReason": F("end_reason", label="结束原因", exportable=True),
        "sessionKey": F("session_key", expression="session_key::text", sortable=False, label="会话"),
    },
)

LIVE_KINDS = ("live", "listen", "talk")
# why a session ended (warehouse/queries/live_sessions.py END_REASONS, gateway/video/platform.py)
LIVE_END_REASONS = ("user", "idle", "terminal_left", "never_connected", "replaced", "server_stopping")

LIVE_LOG = EntitySpec(
    name="liveLog",
    relation="live_session_view",
    tenant_column="enterprise_id",
    permission="videoLog",
    id_field="id",
    tiebreak=("requestTime", "id"),
    default_order="requestTime",
    default_desc=True,
    label="实时视频日志",
    fields={
        "id": F("id", "int", label="编号"),
        "requestTime": F("request_time", "time", label="请求时间", exportable=True),
        "firstFrameTime": F("first_frame_time", "time", label="首帧时间", exportable=True),
        "endTime": F("end_time", "time", label="结束时间", exportable=True),
        **_stream_fields(LIVE_KINDS),
        "bytesIn": F("bytes_in", "int", label="终端流量(字节)", exportable=True),
        "bytesSent": F("bytes_sent", "int", label="发送字节", exportable=True),
        "frames": F("frames", "int", label="帧数", exportable=True),
        "heartbeats": F("heartbeats", "int", label="心跳次数", exportable=True),
        "lastHeartbeatTime": F("last_heartbeat_time", "time", label="最后心跳", exportable=True),
        "viewers": F("viewers", "int", label="观看次数", exportable=True),
        "peakViewers": F("peak_viewers", "int", label="最多同时观看", exportable=True),
        "endReason": F("end_reason", enum=LIVE_END_REASONS, label="结束原因", exportable=True),
    },
)

VIDEO_ENTITIES = (VIDEO_LOG, LIVE_LOG)
