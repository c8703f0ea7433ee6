"""``videoLog`` (platform-spec §2 logs): who watched which stream, from when to when: one row
per viewer connection of the media server (``video_log_view``, migration 0025), read-only on the list
framework. Tenant: the device's enterprise."""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec

F = FieldSpec
KINDS = ("live", "listen", "talk", "playback")

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
        "durationS": F("duration_s", "int", label="时长(秒)", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "deviceSn": F("device_sn", label="终端序列号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "userId": F("user_id", "int", label="用户"),
        "userName": F("user_name", label="用户名", exportable=True),
        "streamId": F("stream_id", label="流编号", exportable=True),
        "kind": F("kind", enum=KINDS, label="类型", exportable=True),
        "channel": F("channel", "int", label="通道", exportable=True),
        "dataType": F("data_type", "int", label="数据类型", exportable=True),
        "streamType": F("stream_type", "int", label="码流类型", exportable=True),
        "transport": F("transport", label="传输方式", exportable=True),
        "client": F("client", label="客户端地址", exportable=True),
        "bytesSent": F("bytes_sent", "int", label="发送字节", exportable=True),
        "endReason": F("end_reason", label="结束原因", exportable=True),
    },
)

VIDEO_ENTITIES = (VIDEO_LOG,)
