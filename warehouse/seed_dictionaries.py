"""The system dictionaries the console reads at start-up and the settings screen's gateway entries
(platform-spec §3 system dictionary codes, §9 ids 98 and 99), seeded as system entries of a root
enterprise. Idempotent: an entry already there (maybe edited by an administrator) is kept.

Each content is JSON text: lists of ``{..., name, nameEn}`` so the console can show either language.
"""

from __future__ import annotations

import json
from typing import Any

from psycopg import Connection

from fleet.alarm_catalog import terminal_bit_names
from warehouse.queries.dictionary import upsert_system

SYSTEM, GATEWAY = 98, 99

# JT/T 808-2019 table 24: alarm flag bits of the location report (0x0200), from the alarm catalogue.
CAR_ALARM_BITS: tuple[tuple[int, str, str], ...] = tuple((bit, zh, en) for bit, zh, en, _ in terminal_bit_names())

# Every JT/T 808 message the gateway decodes or sends (protocols/jt808/messages; a unit test keeps
# this list equal to the codec's).
DEVICE_MESSAGES: tuple[tuple[int, str, str], ...] = (
    (0x0001, "终端通用应答", "Terminal general response"),
    (0x0002, "终端心跳", "Terminal heartbeat"),
    (0x0003, "终端注销", "Terminal logout"),
    (0x0100, "终端注册", "Terminal registration"),
    (0x0102, "终端鉴权", "Terminal authentication"),
    (0x0104, "查询终端参数应答", "Query parameters response"),
    (0x0200, "位置信息汇报", "Location report"),
    (0x0201, "位置信息查询应答", "Location query response"),
    (0x0702, "驾驶员身份信息采集上报", "Driver identity report"),
    (0x0704, "定位数据批量上传", "Batch location upload"),
    (0x0800, "多媒体事件信息上传", "Multimedia event information"),
    (0x0801, "多媒体数据上传", "Multimedia data upload"),
    (0x0802, "存储多媒体数据检索应答", "Stored multimedia search response"),
    (0x0805, "摄像头立即拍摄命令应答", "Camera shoot response"),
    (0x1003, "终端上传音视频属性", "Terminal audio/video attributes"),
    (0x1205, "终端上传音视频资源列表", "Terminal audio/video resource list"),
    (0x1206, "文件上传完成通知", "File upload finished notice"),
    (0x1210, "报警附件信息消息", "Alarm attachment list"),
    (0x1211, "文件信息上传", "Attachment file information"),
    (0x1212, "文件上传完成消息", "Attachment file upload finished"),
    (0x8001, "平台通用应答", "Platform general response"),
    (0x8003, "补传分包请求", "Resend sub-packages request"),
    (0x8100, "终端注册应答", "Registration response"),
    (0x8103, "设置终端参数", "Set terminal parameters"),
    (0x8104, "查询终端参数", "Query terminal parameters"),
    (0x8105, "终端控制", "Terminal control"),
    (0x8106, "查询指定终端参数", "Query specified terminal parameters"),
    (0x8201, "位置信息查询", "Location query"),
    (0x8202, "临时位置跟踪控制", "Temporary location tracking"),
    (0x8203, "人工确认报警消息", "Manual alarm confirmation"),
    (0x8300, "文本信息下发", "Text message"),
    (0x8800, "多媒体数据上传应答", "Multimedia upload response"),
    (0x8801, "摄像头立即拍摄命令", "Camera shoot command"),
    (0x8802, "存储多媒体数据检索", "Stored multimedia search"),
    (0x8803, "存储多媒体数据上传命令", "Stored multimedia upload command"),
    (0x9003, "查询终端音视频属性", "Query terminal audio/video attributes"),
    (0x9101, "实时音视频传输请求", "Real-time audio/video transmission request"),
    (0x9102, "音视频实时传输控制", "Real-time audio/video transmission control"),
    (0x9105, "实时音视频传输状态通知", "Real-time audio/video transmission status"),
    (0x9201, "平台下发远程录像回放请求", "Remote video playback request"),
    (0x9202, "平台下发远程录像回放控制", "Remote video playback control"),
    (0x9205, "查询资源列表", "Query audio/video resource list"),
    (0x9206, "文件上传指令", "File upload request"),
    (0x9208, "报警附件上传指令", "Alarm attachment upload request"),
    (0x9212, "文件上传完成消息应答", "Attachment file upload finished response"),
)

# JT/T 809 inter-platform exchange messages (data exchange with superior and inferior platforms).
EXCHANGE_MESSAGES: tuple[tuple[int, str, str], ...] = (
    (0x1001, "主链路登录请求", "Main link login request"),
    (0x1002, "主链路登录应答", "Main link login response"),
    (0x1003, "主链路注销请求", "Main link logout request"),
    (0x1004, "主链路注销应答", "Main link logout response"),
    (0x1005, "主链路连接保持请求", "Main link keep-alive request"),
    (0x1006, "主链路连接保持应答", "Main link keep-alive response"),
    (0x1007, "主链路断开通知", "Main link disconnect notice"),
    (0x1008, "下级平台主动关闭链路通知", "Inferior platform closes the link"),
    (0x1200, "主链路动态信息交换", "Main link dynamic information exchange"),
    (0x1300, "主链路平台间信息交互", "Main link platform information exchange"),
    (0x1400, "主链路报警信息交互", "Main link alarm information exchange"),
    (0x1500, "主链路车辆监管", "Main link vehicle supervision"),
    (0x1600, "主链路静态信息交换", "Main link static information exchange"),
    (0x9001, "从链路连接请求", "Sub link connect request"),
    (0x9002, "从链路连接应答", "Sub link connect response"),
    (0x9003, "从链路注销请求", "Sub link logout request"),
    (0x9004, "从链路注销应答", "Sub link logout response"),
    (0x9005, "从链路连接保持请求", "Sub link keep-alive request"),
    (0x9006, "从链路连接保持应答", "Sub link keep-alive response"),
    (0x9007, "从链路断开通知", "Sub link disconnect notice"),
    (0x9008, "上级平台主动关闭链路通知", "Superior platform closes the link"),
    (0x9200, "从链路动态信息交换", "Sub link dynamic information exchange"),
    (0x9300, "从链路平台间信息交互", "Sub link platform information exchange"),
    (0x9400, "从链路报警信息交互", "Sub link alarm information exchange"),
    (0x9500, "从链路车辆监管", "Sub link vehicle supervision"),
    (0x9600, "从链路静态信息交换", "Sub link static information exchange"),
)


def _messages(rows: tuple[tuple[int, str, str], ...]) -> list[dict[str, Any]]:
    return [{"id": f"0x{msg_id:04X}", "name": name, "nameEn": name_en} for msg_id, name, name_en in rows]


def system_entries(map_center: tuple[float, float] = (116.39, 39.91)) -> list[tuple[int, str, str, Any]]:
    """(type, code, name, content) of every seeded system entry."""
    lng, lat = map_center
    return [
        (SYSTEM, "car_alarm_desc", "报警位描述",
         [{"bit": bit, "name": name, "nameEn": name_en, "nameHk": name_hk}
          for bit, name, name_en, name_hk in terminal_bit_names()]),
        (SYSTEM, "device_message_desc", "终端消息描述", _messages(DEVICE_MESSAGES)),
        (SYSTEM, "exchange_message_desc", "交换消息描述", _messages(EXCHANGE_MESSAGES)),
        (SYSTEM, "ol_map_config", "地图配置",
         {"defaultBaseLayer": "osm", "mapCenter": {"lng": lng, "lat": lat}, "defaultZoom": 11}),
        (SYSTEM, "driving_behavior_grade", "驾驶行为评分等级",
         {"grades": [{"grade": "A", "minScore": 90}, {"grade": "B", "minScore": 80},
                     {"grade": "C", "minScore": 60}, {"grade": "D", "minScore": 0}],
          "deductions": {"overspeed": 2, "fatigue": 3, "harshBraking": 1, "harshAcceleration": 1,
                         "dangerousDriving": 3}}),
        (SYSTEM, "alarm_notify_rule", "报警通知规则",
         {"popup": True, "sound": True, "alarmBits": [0, 1, 2, 3, 18, 19, 27, 28, 31], "repeatAfterS": 300}),
        (GATEWAY, "protocol.jt808_2013", "JT/T 808-2013",
         {"protocol": "jt808", "version": "2013", "port": 7611}),
        (GATEWAY, "protocol.jt808_2019", "JT/T 808-2019",
         {"protocol": "jt808", "version": "2019", "port": 7611}),
        (GATEWAY, "protocol.jt1078", "JT/T 1078-2016 视频",
         {"protocol": "jt1078", "version": "2016", "port": 7612}),
        (GATEWAY, "ftp.default", "默认 FTP 服务器",
         {"host": "127.0.0.1", "port": 21, "user": "fleet", "passive": True, "path": "/upload"}),
        (GATEWAY, "media.default", "默认流媒体网关",
         {"host": "127.0.0.1", "httpPort": 7612, "wsPort": 7612, "rtpPort": 7613}),
        (GATEWAY, "attachment.default", "默认附件网关",
         {"host": "127.0.0.1", "port": 7614, "standard": "JT/T 1078 主动安全附件"}),
    ]


def seed_system_dictionaries(conn: Connection[Any], root_enterprise_id: int) -> None:
    """Creates the missing system entries as entries of ``root_enterprise_id`` (a root enterprise)."""
    for type_id, code, name, content in system_entries():
        upsert_system(conn, root_enterprise_id, type_id, code, name, json.dumps(content, ensure_ascii=False))
