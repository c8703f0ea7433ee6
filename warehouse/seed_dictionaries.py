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
from protocols.gb32960 import catalogue as gb32960_catalogue
from protocols.jt808 import catalogue as jt808_catalogue
from protocols.jt809 import catalogue as jt809_catalogue
from warehouse.queries.dictionary import upsert_system

SYSTEM, GATEWAY = 98, 99

# JT/T 808-2019 table 24: alarm flag bits of the location report (0x0200), from the alarm catalogue.
CAR_ALARM_BITS: tuple[tuple[int, str, str], ...] = tuple((bit, zh, en) for bit, zh, en, _ in terminal_bit_names())

# Every JT/T 808 message the gateway decodes or sends, from the message catalogue.
DEVICE_MESSAGES: tuple[tuple[int, str, str], ...] = tuple(
    (info.msg_id, info.name, info.name_en) for info in sorted(jt808_catalogue.MESSAGES, key=lambda i: i.msg_id)
    if info.has_body)

# JT/T 809 inter-platform exchange messages (data exchange with superior and inferior platforms).
EXCHANGE_MESSAGES: tuple[tuple[int, str, str], ...] = tuple(
    (msg.msg_id, msg.name, msg.name_en) for msg in jt809_catalogue.MESSAGES)


# GB/T 32960.3 commands: a GB/T 32960 inferior platform's login, logout and their answers are in the exchange
# frame log beside the JT/T 809 frames (platform-spec §2 data exchange upstreamMessage / downstreamMessage).
EXCHANGE_GB32960_COMMANDS: tuple[tuple[int, str, str], ...] = tuple(
    (info.command, info.name, info.name_en) for info in gb32960_catalogue.GB32960_COMMANDS)


def _messages(rows: tuple[tuple[int, str, str], ...]) -> list[dict[str, Any]]:
    return [{"id": f"0x{msg_id:04X}", "name": name, "nameEn": name_en} for msg_id, name, name_en in rows]


def _exchange_messages() -> list[dict[str, Any]]:
    """The JT/T 809 messages (ids of 4 hex digits), then the GB/T 32960 commands (2 hex digits, ``protocol``
    "gb32960": the same number names another message in each protocol)."""
    return [*({**entry, "protocol": "jt809"} for entry in _messages(EXCHANGE_MESSAGES)),
            *({"id": f"0x{command:02X}", "name": name, "nameEn": name_en, "protocol": "gb32960"}
              for command, name, name_en in EXCHANGE_GB32960_COMMANDS)]


def system_entries(map_center: tuple[float, float] = (116.39, 39.91)) -> list[tuple[int, str, str, Any]]:
    """(type, code, name, content) of every seeded system entry."""
    lng, lat = map_center
    return [
        (SYSTEM, "car_alarm_desc", "报警位描述",
         [{"bit": bit, "name": name, "nameEn": name_en, "nameHk": name_hk}
          for bit, name, name_en, name_hk in terminal_bit_names()]),
        (SYSTEM, "device_message_desc", "终端消息描述", _messages(DEVICE_MESSAGES)),
        (SYSTEM, "exchange_message_desc", "交换消息描述", _exchange_messages()),
        (SYSTEM, "ol_map_config", "地图配置",
         {"defaultBaseLayer": "osm", "mapCenter": {"lng": lng, "lat": lat}, "defaultZoom": 11}),
        # The grade bands of the driving-behaviour scores (read by the daily report build, pipelines/grading.py;
        # the deductions are each enterprise's drivingGradeRule rows, platform-spec §2).
        (SYSTEM, "driving_behavior_grade", "驾驶行为评分等级",
         {"grades": [{"grade": "A", "minScore": 90}, {"grade": "B", "minScore": 80},
                     {"grade": "C", "minScore": 60}, {"grade": "D", "minScore": 0}]}),
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
