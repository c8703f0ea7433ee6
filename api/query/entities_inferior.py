"""Data exchange, fleetwatch as the superior platform (platform-spec §2 inferiorPlatform, car, gps, map; JT/T 809,
exchange/superior) as declared entities, all guarded by the ``inferiorPlatform`` permission code; sending an
inspection or a message and reading the link state (api/routes/exchange.py) need its ``superior`` action
(platform-spec §6).

- ``inferiorPlatform`` (table ``inferior_platform``, migration 0048): an inferior platform allowed to log in to the
  superior service. ``password`` is write-only (the 0x1001 login carries it in clear, so it is stored as given and
  compared in constant time; no read, list, export or audit shows it). ``userId`` is unique across the server
  (the login names the platform by it: its index leaves out the enterprise, so a clash is a 409 for anyone). A change takes effect within FLEET_EXCHANGE_RELOAD_S (its links close and
  it logs in again).
- ``exchangeCar``: the vehicles inferior platforms reported (plate + colour per platform, 0x1201 registration,
  last position), read-only.
- ``exchangeGps``: their 0x1202 / 0x1203 positions, read-only; a time range on ``fixAt`` narrows the list.
- ``inferiorRequest``: the inspections and messages sent to inferior platforms, with their answers and latency;
  one unanswered at its ``deadline`` reads ``expired`` (migration 0050).
- ``inferiorVideoRequest``: the live video and playback requests (0x9801 / 0x9A01) operators sent, with who asked,
  the RESULT, the answer's latency, the address it named and why one failed or ended (migrations 0066, 0067,
  exchange/superior/video.py).
- ``videoHosts`` of an inferior platform: where its 0x1801 / 0x1A01 may send our media server (IP addresses, CIDR
  networks, host names; empty: the address its main link comes from; migration 0067).
"""

from __future__ import annotations

import re
from ipaddress import ip_address, ip_network
from typing import Any

from api.query.entities_exchange import LinkPlatformHooks
from api.query.grammar import EntitySpec, FieldSpec

F = FieldSpec
PERMISSION = "inferiorPlatform"
U32 = 4_294_967_295
DEFAULTED = ("version", "encrypted", "m1", "ia1", "ic1", "encryptKey", "allowedHosts", "videoHosts", "enabled")
HOST_NAME = re.compile(r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$")


def _hosts(value: Any) -> str | None:
    """A list of at most 100 IP addresses (the source addresses a main link may come from)."""
    if not isinstance(value, list) or len(value) > 100:
        return "来源地址不合法 (allowedHosts is a list of at most 100 IP addresses)"
    for item in value:
        try:
            ip_address(item if isinstance(item, str) else "")
        except ValueError:
            return f"来源地址不合法: {str(item)[:64]} (allowedHosts: {str(item)[:64]!r} is not an IP address)"
    return None


def _video_hosts(value: Any) -> str | None:
    """At most 100 IP addresses, CIDR networks or host names (where a 0x1801 / 0x1A01 may send our media server);
    a network spanning everything (/0) would undo the rule, so it is refused."""
    if not isinstance(value, list) or len(value) > 100:
        return "视频服务器地址不合法 (videoHosts is a list of at most 100 IP addresses, networks or host names)"
    for item in value:
        text = item.strip() if isinstance(item, str) else ""
        try:
            network = ip_network(text, strict=False)
        except ValueError:
            if HOST_NAME.match(text) is None:
                return (f"视频服务器地址不合法: {str(item)[:64]} (videoHosts: {str(item)[:64]!r} is not an IP address,"
                        " a network or a host name)")
            continue
        if network.prefixlen == 0:
            return f"视频服务器地址不合法: {text} (videoHosts: a network of every address is not a restriction)"
    return None


class InferiorPlatformHooks(LinkPlatformHooks):
    defaulted = DEFAULTED  # migration 0048's defaulted columns


INFERIOR_PLATFORM = EntitySpec(
    name="inferiorPlatform",
    relation="inferior_platform",
    table="inferior_platform",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="下级平台",
    hooks=InferiorPlatformHooks(),
    default_order="id",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "userId": F("user_id", "int", required=True, minimum=0, maximum=U32, unique=True, create=True, update=True,
                    label="用户名", exportable=True),
        "password": F("password", required=True, max_length=8, secret=True, create=True, update=True, label="密码"),
        "centreId": F("centre_id", "int", required=True, minimum=0, maximum=U32, create=True, update=True,
                      label="接入码", exportable=True),
        "version": F("version", enum=("2011", "2019"), create=True, update=True, label="协议版本", exportable=True),
        "encrypted": F("encrypted", "bool", create=True, update=True, label="加密"),
        "m1": F("m1", "int", minimum=0, maximum=U32, create=True, update=True, example=30000000, label="M1"),
        "ia1": F("ia1", "int", minimum=0, maximum=U32, create=True, update=True, example=20000000, label="IA1"),
        "ic1": F("ic1", "int", minimum=0, maximum=U32, create=True, update=True, example=20000000, label="IC1"),
        "encryptKey": F("encrypt_key", "int", minimum=0, maximum=U32, create=True, update=True, label="密钥"),
        "allowedHosts": F("allowed_hosts", "json", create=True, update=True, check=_hosts, example=[],
                          filterable=False, sortable=False, label="允许来源地址"),
        "videoHosts": F("video_hosts", "json", create=True, update=True, check=_video_hosts, example=["10.0.0.0/24"],
                        filterable=False, sortable=False, label="视频服务器地址"),
        "enabled": F("enabled", "bool", create=True, update=True, label="启用", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        # its latest 0x1701 (migration 0065): when and as which platform id; the codes themselves only through
        # GET /api/exchange/inferiorPlatform/{id}/authorizeCodes.json (inferiorPlatform:superior)
        "authorizePlatformCode": F("authorize_platform_code", label="口令平台编码", exportable=True),
        "authorizeReportedAt": F("authorize_reported_at", "time", label="时效口令上报时间", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

EXCHANGE_CAR = EntitySpec(
    name="exchangeCar",
    relation="exchange_vehicle_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="交换车辆",
    default_order="id",
    max_page_size=1000,
    fields={
        "id": F("id", "int", label="编号"),
        "platformId": F("inferior_platform_id", "int", label="下级平台"),
        "platformName": F("platform_name", label="平台名称", exportable=True),
        "plate": F("plate", label="车牌号", exportable=True),
        "plateColor": F("plate_colour", "int", label="车牌颜色", exportable=True),
        "registeredAt": F("registered_at", "time", label="注册时间", exportable=True),
        "platformCode": F("platform_code", label="平台唯一编码"),
        "producerId": F("producer_id", label="终端厂商"),
        "terminalModel": F("terminal_model", label="终端型号", exportable=True),
        "imei": F("imei", label="IMEI"),
        "terminalId": F("terminal_id", label="终端编号", exportable=True),
        "sim": F("sim", label="SIM卡号", exportable=True),
        "lastFixAt": F("last_fix_at", "time", label="最后定位时间", exportable=True),
        "lastReceivedAt": F("last_received_at", "time", label="最后接收时间"),
        "lat": F("last_lat", "float", label="纬度", exportable=True),
        "lng": F("last_lng", "float", label="经度", exportable=True),
        "speedKmh": F("last_speed_kmh", "float", label="速度(km/h)", exportable=True),
        "directionDeg": F("last_direction_deg", "int", label="方向"),
        "altitudeM": F("last_altitude_m", "int", label="海拔(m)"),
        "status": F("last_status", "int", label="状态"),
        "alarm": F("last_alarm", "int", label="报警"),
        "createdAt": F("created_at", "time", label="首次上报时间"),
    },
)

EXCHANGE_GPS = EntitySpec(
    name="exchangeGps",
    relation="exchange_position_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="交换定位",
    tiebreak=("vehicleId",),
    default_order="fixAt",
    default_desc=True,
    max_page_size=1000,
    fields={
        "id": F("id", label="编号"),
        "vehicleId": F("vehicle_id", "int", label="交换车辆"),
        "platformId": F("inferior_platform_id", "int", label="下级平台"),
        "plate": F("plate", label="车牌号", exportable=True),
        "plateColor": F("plate_colour", "int", label="车牌颜色", exportable=True),
        "fixAt": F("fix_at", "time", label="定位时间", exportable=True),
        "receivedAt": F("received_at", "time", label="接收时间", exportable=True),
        "backfilled": F("backfilled", "bool", label="补报", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
        "speedKmh": F("speed_kmh", "float", label="速度(km/h)", exportable=True),
        "directionDeg": F("direction_deg", "int", label="方向", exportable=True),
        "altitudeM": F("altitude_m", "int", label="海拔(m)"),
        "mileageKm": F("mileage_km", "float", label="里程(km)"),
        "status": F("status", "int", label="状态"),
        "alarm": F("alarm", "int", label="报警"),
    },
)

INFERIOR_REQUEST = EntitySpec(
    name="inferiorRequest",
    relation="inferior_request_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="下发查岗与报文",
    default_order="id",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "platformId": F("inferior_platform_id", "int", label="下级平台"),
        "platformName": F("platform_name", label="平台名称", exportable=True),
        "kind": F("kind", enum=("inspection", "message"), label="类型", exportable=True),
        "objectType": F("object_type", "int", label="对象类型"),
        "objectId": F("object_id", label="对象"),
        "content": F("content", label="内容", exportable=True),
        "answerMinutes": F("answer_minutes", "int", label="应答时限(分钟)"),
        "createdAt": F("created_at", "time", label="创建时间", exportable=True),
        "state": F("state", enum=("queued", "sent", "answered", "failed", "expired"), label="状态", exportable=True),
        "deadline": F("deadline", "time", label="应答截止时间", exportable=True),
        "sentAt": F("sent_at", "time", label="发送时间", exportable=True),
        "answer": F("answer", label="应答内容", exportable=True),
        "responder": F("responder", label="应答人"),
        "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
        "latencyMs": F("latency_ms", "int", label="应答耗时(毫秒)", exportable=True),
    },
)

# exchange_video_pull.error (migration 0067)
VIDEO_ERROR_LABELS: tuple[tuple[str, str], ...] = (
    ("no_code", "下级平台未上报时效口令"), ("media_unavailable", "媒体服务不可用"),
    ("address_refused", "应答地址不在该平台的视频服务器地址内"), ("stopped", "操作员停止"),
    ("platform_disabled", "下级平台已停用"))
VIDEO_ERRORS = tuple(code for code, _ in VIDEO_ERROR_LABELS)

INFERIOR_VIDEO_REQUEST = EntitySpec(
    name="inferiorVideoRequest",
    relation="exchange_video_pull_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="视频请求",
    default_order="id",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "platformId": F("inferior_platform_id", "int", label="下级平台"),
        "platformName": F("platform_name", label="平台名称", exportable=True),
        "vehicleId": F("vehicle_id", "int", label="交换车辆"),
        "plate": F("plate", label="车牌号", exportable=True),
        "plateColor": F("plate_colour", "int", label="车牌颜色"),
        "kind": F("kind", enum=("live", "playback"), label="类型", exportable=True),
        "channelId": F("channel", "int", label="通道号", exportable=True),
        "avItemType": F("av_type", "int", label="音视频类型", exportable=True),
        "startTime": F("start_time", "time", label="回放开始时间", exportable=True),
        "endTime": F("end_time", "time", label="回放结束时间", exportable=True),
        "state": F("state", enum=("queued", "sent", "playing", "failed", "expired", "ended"), label="状态",
                   exportable=True),
        "result": F("result", "int", label="应答结果", exportable=True),
        "error": F("error", enum=VIDEO_ERRORS, choices=VIDEO_ERROR_LABELS, label="原因", exportable=True),
        "serverAddress": F("server_address", label="应答地址", exportable=True),
        "createdByName": F("created_by_name", label="请求人", exportable=True),
        "createdAt": F("created_at", "time", label="请求时间", exportable=True),
        "sentAt": F("sent_at", "time", label="发送时间", exportable=True),
        "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
        "latencyMs": F("latency_ms", "int", label="应答耗时(毫秒)", exportable=True),
        "endedAt": F("ended_at", "time", label="结束时间", exportable=True),
    },
)

INFERIOR_WRITABLE = (INFERIOR_PLATFORM,)
INFERIOR_READ_ONLY = (EXCHANGE_CAR, EXCHANGE_GPS, INFERIOR_REQUEST, INFERIOR_VIDEO_REQUEST)
