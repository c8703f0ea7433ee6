"""Data exchange (platform-spec §2 superiorPlatform; JT/T 809, exchange/link) as declared entities.

``superiorPlatform`` (table ``superior_platform``, migration 0045): a superior platform the link service
(``fleet exchange``) keeps its main and sub links to. ``password`` is write-only (the 0x1001 login sends it in
clear, so it is stored as given; no read, list, export or audit shows it). ``exchangedEnterpriseIds``: the
enterprise subtrees whose vehicles are forwarded (empty: the owner's whole subtree). A change is picked up by
the link service within FLEET_EXCHANGE_RELOAD_S and restarts that platform's links.
Every route checks the ``superiorPlatform`` permission code; the link operations (link state, answering an
inspection: api/routes/exchange.py) need its ``superior`` action (platform-spec §6).

The data-exchange logs (platform-spec §2 upstreamMessage, downstreamMessage, inspectMessage, alarmMessage; the
views of migration 0046) are read-only entities whose every read route needs ``superiorPlatform:superior``:
``exchangeUpstreamMessage`` / ``exchangeDownstreamMessage`` (the 809 frames going up / down, decoded and as
hex, on the links of every kind of platform: ``platformKind`` superior, inferior or gb32960_inferior (a GB/T
32960 inferior platform's login 0x05, logout 0x06 and their answers, msgId the GB command); a 0x1001's or a GB
0x05's password never shows), ``inspectMessage`` (0x9301 inspections, ``expired`` once open past the
deadline) and ``alarmMessage`` (0x1402 alarms forwarded, 0x9401 urgings received, with the upper-platform alarm
type 1-13 of platform-spec §9) and ``exchangePlayback`` (platform-spec §2 playback: the superior's JT/T 1078
video requests 0x9801 / 0x9802 / 0x9A01 / 0x9A02 with the RESULT answered, migration 0051) and ``notifyMessage``
(platform-spec §2 notifyMessage: the superior's 0x9302 messages and 0x9402 warning tips, migration 0054). They
are named apart from the 808 logs (upstreamMessage, downstreamMessage).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.errors import BadRequest
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec

F = FieldSpec
PERMISSION = "superiorPlatform"
U32 = 4_294_967_295


def _enterprise_ids(value: Any) -> str | None:
    if not isinstance(value, list) or len(value) > 1000 or any(
            isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value):
        return "交换企业不合法 (exchangedEnterpriseIds is a list of enterprise ids)"
    return None


DEFAULTED = ("version", "encrypted", "m1", "ia1", "ic1", "encryptKey", "downLinkHost", "positionInterval",
             "exchangedEnterpriseIds", "enabled")


def link_settings(values: dict[str, Any], before: Mapping[str, Any] | None,
                  defaulted: tuple[str, ...]) -> dict[str, Any]:
    """The write rule every exchange platform row shares (JT/T 809 and GB/T 32960, superior or inferior): a null
    remark is empty text; a null ``defaulted`` setting takes the column's default on create, and on update is
    refused (it would erase the setting the link runs on, or its login is checked against)."""
    values = {**values, "remark": ""} if "remark" in values and values["remark"] is None else dict(values)
    for name in [n for n in defaulted if n in values and values[n] is None]:
        if before is not None:
            raise BadRequest(f"{name} 不能为空 (field '{name}' cannot be null)", data={"field": name})
        del values[name]
    return values


class LinkPlatformHooks(EntityHooks):
    """The write rules a JT/T 809 platform row shares, superior or inferior: the link runs on its settings."""

    cross_field_rules = True
    defaulted: tuple[str, ...] = DEFAULTED  # columns with a default in the platform's migration, NOT NULL

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = link_settings(values, before, self.defaulted)
        old = dict(before or {})
        # The cipher divides by M1 (JT/T 809-2011 §4.3): an encrypted link needs one.
        if values.get("encrypted", old.get("encrypted")) and not (values.get("m1", old.get("m1")) or 0):
            raise BadRequest("加密链路须设置 M1 (field 'm1': an encrypted link needs M1 greater than 0)",
                             data={"field": "m1"})
        return values


SUPERIOR_PLATFORM = EntitySpec(
    name="superiorPlatform",
    relation="superior_platform",
    table="superior_platform",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="上级平台",
    hooks=LinkPlatformHooks(),
    default_order="id",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "host": F("host", required=True, max_length=255, create=True, update=True, label="地址", exportable=True),
        "port": F("port", "int", required=True, minimum=1, maximum=65535, create=True, update=True, label="端口",
                  exportable=True),
        "userId": F("user_id", "int", required=True, minimum=0, maximum=U32, create=True, update=True,
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
        "downLinkHost": F("down_link_host", max_length=32, create=True, update=True, label="从链路地址"),
        "downLinkPort": F("down_link_port", "int", required=True, minimum=1, maximum=65535, create=True,
                          update=True, label="从链路端口", exportable=True),
        "positionInterval": F("position_interval_s", "int", minimum=0, maximum=3600, create=True, update=True,
                              label="定位上报间隔(秒)", exportable=True),
        # the enterprises whose vehicles go (each with its subsidiaries; none: the platform's whole subtree), each
        # one the caller can see (a reference: another enterprise's id is a 404 naming the field)
        "exchangedEnterpriseIds": F("exchanged_enterprise_ids", "json", create=True, update=True,
                                    check=_enterprise_ids, example=[], filterable=False, sortable=False,
                                    ref="enterprise", label="交换企业"),
        "enabled": F("enabled", "bool", create=True, update=True, label="启用", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

EXCHANGE_WRITABLE = (SUPERIOR_PLATFORM,)


SUPERIOR = "superior"
MSG_ID_HEX = "'0x' || upper(lpad(to_hex(msg_id), 4, '0'))"
DATA_TYPE_HEX = "CASE WHEN data_type IS NULL THEN NULL ELSE '0x' || upper(lpad(to_hex(data_type), 4, '0')) END"
LINKS = ("main", "sub")
# Whose link a logged frame is on (migrations 0050, 0062): a superior platform's (we are its inferior), a JT/T 809
# inferior platform's or a GB/T 32960 inferior platform's (we are their superior). 'up' is always inferior to
# superior.
PLATFORM_KINDS = ("superior", "inferior", "gb32960_inferior")
INSPECTION_STATES = ("open", "answered", "sent", "expired")
# JT/T 809 WARN_TYPE, the upper-platform alarm types of platform-spec §9 (exchange/link/forwarding.py maps ours)
UPPER_ALARM_TYPES: tuple[tuple[int, str], ...] = (
    (1, "超速报警"), (2, "疲劳驾驶报警"), (3, "紧急报警"), (4, "进入指定区域报警"), (5, "离开指定区域报警"),
    (6, "路段堵塞报警"), (7, "危险路段报警"), (8, "越界报警"), (9, "盗警"), (10, "劫警"), (11, "偏离路线报警"),
    (12, "车辆移动报警"), (13, "超时驾驶报警"))


def _frame_log(name: str, direction: str, label: str) -> EntitySpec:
    return EntitySpec(
        name=name,
        relation=f"exchange_{direction}stream_view",
        tenant_column="enterprise_id",
        permission=PERMISSION,
        read_action=SUPERIOR,
        default_order="time",
        default_desc=True,
        max_page_size=500,
        label=label,
        fields={
            "id": F("id", "int", label="编号"),
            "time": F("time", "time", label="时间", exportable=True),
            "platformId": F("platform_id", "int", label="上级平台"),
            "platformName": F("platform_name", label="平台", exportable=True),
            "platformKind": F("platform_kind", enum=PLATFORM_KINDS, label="平台类型", exportable=True),
            "inferiorPlatformId": F("inferior_platform_id", "int", label="下级平台"),
            "gb32960InferiorPlatformId": F("gb32960_inferior_platform_id", "int", label="GB32960下级平台"),
            "enterpriseId": F("enterprise_id", "int", label="企业"),
            "link": F("link", enum=LINKS, label="链路", exportable=True),
            "msgId": F("msg_id", "int", label="消息ID"),
            "msgIdHex": F("msg_id_hex", expression=MSG_ID_HEX, filterable=False, sortable=False, label="消息ID",
                          exportable=True),
            "dataType": F("data_type", "int", label="子业务类型"),
            "dataTypeHex": F("data_type_hex", expression=DATA_TYPE_HEX, filterable=False, sortable=False,
                             label="子业务类型", exportable=True),
            "rawHex": F("raw_hex", filterable=False, sortable=False, label="原始报文", exportable=True),
            "decoded": F("decoded", expression="decoded::text", filterable=False, sortable=False,
                         label="解析结果", exportable=True),
        },
    )


EXCHANGE_UPSTREAM_MESSAGE = _frame_log("exchangeUpstreamMessage", "up", "上行交换消息")
EXCHANGE_DOWNSTREAM_MESSAGE = _frame_log("exchangeDownstreamMessage", "down", "下行交换消息")


def _from_superior(name: str, relation: str, label: str, fields: dict[str, FieldSpec], *,
                   order: str = "receivedAt") -> EntitySpec:
    """What a superior platform sent (or what we sent it), read with the ``superior`` action: each row names its
    platform and the enterprise that owns the platform (the tenant), newest first by ``order`` (``receivedAt``
    or ``time``), then the kind's own ``fields``."""
    column, time_label = ("received_at", "收到时间") if order == "receivedAt" else ("time", "时间")
    return EntitySpec(
        name=name,
        relation=relation,
        tenant_column="enterprise_id",
        permission=PERMISSION,
        read_action=SUPERIOR,
        default_order=order,
        default_desc=True,
        label=label,
        fields={
            "id": F("id", "int", label="编号"),
            order: F(column, "time", label=time_label, exportable=True),
            "platformId": F("platform_id", "int", label="上级平台"),
            "platformName": F("platform_name", label="上级平台", exportable=True),
            "enterpriseId": F("enterprise_id", "int", label="企业"),
            **fields,
        },
    )


INSPECT_MESSAGE = _from_superior("inspectMessage", "exchange_inspection_view", "查岗信息", {
    "objectType": F("object_type", "int", label="查岗对象类型", exportable=True),
    "objectId": F("object_id", label="查岗对象", exportable=True),
    "infoId": F("info_id", "int", label="信息ID", exportable=True),
    "question": F("question", sortable=False, label="查岗问题", exportable=True),
    "deadline": F("deadline", "time", label="应答截止时间", exportable=True),
    "state": F("state", enum=INSPECTION_STATES, label="状态", exportable=True),
    "answer": F("answer", sortable=False, label="应答内容", exportable=True),
    "answeredBy": F("answered_by", "int", label="应答人"),
    "answeredByName": F("answered_by_name", label="应答人", exportable=True),
    "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
    "sentAt": F("sent_at", "time", label="上报时间", exportable=True),
    "answerLatency": F("answer_latency_s", "int", label="应答用时(秒)", exportable=True),
})

ALARM_MESSAGE = _from_superior("alarmMessage", "exchange_alarm_view", "交换报警", {
    "direction": F("direction", enum=("up", "down"), label="方向", exportable=True),
    "dataType": F("data_type", "int", enum=(0x1402, 0x9401), label="类型",
                  choices=((0x1402, "上报报警"), (0x9401, "报警督办")), exportable=True),
    "plateNumber": F("plate_number", label="车牌号", exportable=True),
    "warnType": F("warn_type", "int", enum=tuple(t for t, _ in UPPER_ALARM_TYPES), label="报警类型",
                  choices=UPPER_ALARM_TYPES, exportable=True),
    "warnTime": F("warn_time_text", filterable=False, label="报警时间", exportable=True),
    "info": F("info", filterable=False, sortable=False, label="报警信息", exportable=True),
    "supervisionId": F("supervision_id", label="督办ID", exportable=True),
    "urgingDeadline": F("urging_deadline_text", filterable=False, label="督办截止时间", exportable=True),
}, order="time")

# JT/T 1078's video requests of a superior (migration 0051): which request, and the RESULT we answered
VIDEO_REQUEST_TYPES: tuple[tuple[int, str], ...] = (
    (0x9801, "实时音视频请求"), (0x9802, "停止实时音视频"), (0x9A01, "远程录像回放请求"), (0x9A02, "远程录像回放控制"))
VIDEO_RESULTS: tuple[tuple[int, str], ...] = (
    (0, "成功"), (1, "失败"), (2, "不支持"), (3, "会话结束"), (4, "时效口令错误"), (5, "不满足跨域条件"))
AV_ITEM_TYPES: tuple[tuple[int, str], ...] = ((0, "音视频"), (1, "音频"), (2, "视频"))

EXCHANGE_PLAYBACK = _from_superior("exchangePlayback", "exchange_video_request_view", "上级平台视频请求", {
    "dataType": F("data_type", "int", enum=tuple(t for t, _ in VIDEO_REQUEST_TYPES), choices=VIDEO_REQUEST_TYPES,
                  label="请求类型", exportable=True),
    "plate": F("plate", label="车牌号", exportable=True),
    "plateColor": F("plate_colour", "int", label="车牌颜色", exportable=True),
    "carId": F("car_id", "int", label="车辆"),
    "channelId": F("channel_id", "int", label="通道号", exportable=True),
    "avItemType": F("av_item_type", "int", enum=tuple(t for t, _ in AV_ITEM_TYPES), choices=AV_ITEM_TYPES,
                    label="音视频类型", exportable=True),
    "startAt": F("start_at", "time", label="回放开始时间", exportable=True),
    "endAt": F("end_at", "time", label="回放结束时间", exportable=True),
    "controlType": F("control_type", "int", label="控制类型"),
    "result": F("result", "int", enum=tuple(t for t, _ in VIDEO_RESULTS), choices=VIDEO_RESULTS, label="应答结果",
                exportable=True),
    "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
})

# JT/T 809 messages a superior sends for people to read: 0x9302 下发平台间报文 (acknowledged with 0x1302 on
# receipt) and 0x9402 报警预警 (a warning tip, about a vehicle, from a source: 1 terminal, 2 enterprise platform,
# 3 government platform, 9 other)
NOTICE_TYPES: tuple[tuple[int, str], ...] = ((0x9302, "平台间报文"), (0x9402, "报警预警"))
WARN_SOURCES: tuple[tuple[int, str], ...] = ((1, "车载终端"), (2, "企业监控平台"), (3, "政府监管平台"), (9, "其他"))

NOTIFY_MESSAGE = _from_superior("notifyMessage", "exchange_notice_view", "通知消息", {
    "dataType": F("data_type", "int", enum=tuple(t for t, _ in NOTICE_TYPES), choices=NOTICE_TYPES,
                  label="类型", exportable=True),
    "infoId": F("info_id", "int", label="信息ID", exportable=True),
    "objectType": F("object_type", "int", label="对象类型", exportable=True),
    "objectId": F("object_id", label="对象", exportable=True),
    "carId": F("car_id", "int", label="车辆"),
    "plate": F("plate", label="车牌号", exportable=True),
    "plateColor": F("plate_colour", "int", label="车牌颜色", exportable=True),
    "warnSrc": F("warn_src", "int", enum=tuple(t for t, _ in WARN_SOURCES), choices=WARN_SOURCES,
                 label="预警来源", exportable=True),
    "warnType": F("warn_type", "int", enum=tuple(t for t, _ in UPPER_ALARM_TYPES), label="报警类型",
                  choices=UPPER_ALARM_TYPES, exportable=True),
    "warnTime": F("warn_time", "time", label="报警时间", exportable=True),
    "content": F("content", sortable=False, label="内容", exportable=True),
    "answeredAt": F("answered_at", "time", label="应答时间", exportable=True),
})

EXCHANGE_READ_ONLY = (EXCHANGE_UPSTREAM_MESSAGE, EXCHANGE_DOWNSTREAM_MESSAGE, INSPECT_MESSAGE, ALARM_MESSAGE,
                      EXCHANGE_PLAYBACK, NOTIFY_MESSAGE)
