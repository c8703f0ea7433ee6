"""The alarm catalogue: every alarm the platform knows, by key, with its names in zh-CN and en-US (zh-HK is
generated from zh-CN: ``fleet.zh_hk``).

Keys (the ``alarm.key`` column and every push/API payload):

| kind | keys | source |
|---|---|---|
| TERMINAL | ``a0``..``a31`` | 0x0200 alarm flag bits, JT/T 808-2019 table 24 (held while the bit is set) |
| VIDEO | ``v0``..``v31`` | 0x0200 item 0x14, JT/T 1078-2016 table 14 (held) |
| PLATFORM | ``p_overspeed``, ``p_fatigue``, ``p_parking``, ``p_night`` | the platform's own rules (held) |
| ADAS | ``adas_<type>`` | item 0x64 alarm type, Jiangsu 2017 active safety (instantaneous) |
| DSM | ``dsm_<type>`` | item 0x65 alarm type (instantaneous) |
| TPMS | ``tpms_<bit>`` | item 0x66 tyre event type WORD, one key per set bit (instantaneous) |
| BSD | ``bsd_<type>`` | item 0x67 alarm type (instantaneous) |
| FENCE | ``fence:<fenceId>:<kind>[:<segment>]`` | the platform fence step (streams/fences.py, fleet.geofence kinds) |
| FENCE | ``tfence:<areaId>:<kind>`` | the terminal's own area items: 0x11 ``overspeed``, 0x12 ``enter`` / ``leave``, 0x13 ``segment_short`` / ``segment_long`` (instantaneous) |
| NEV | ``gb0``..``gb27`` | GB/T 32960.3 general alarm flags: 2016 table 19 bits 0-18, the 2025 edition's 19-27 (held; streams/gb_alarms.py) |
| NEV | ``gbf_battery``, ``gbf_motor``, ``gbf_engine``, ``gbf_other`` | a non-empty fault-code list of the 32960 alarm block (held, the codes in ``details.codes``) |
| NEV | ``obd_mil``, ``obd_fault`` | GB 17691 / HJ 1239 OBD block: MIL on, fault codes present (held) |

Fence keys name one fence (its id: a terminal area's id on the wire is the fence's id), so they are not in
``ALARMS``: ``describe`` names them by their kind (``FENCE_KINDS``), and the fence's name travels in the
alarm's ``details.fenceName`` (``describe_alarm`` appends it).

Rule keys (what a notification rule, an alarm level or a user's own rule names): every ``ALARMS`` key, and
one key per fence alarm kind, ``FENCE_RULES``: ``fence_<kind>`` for the platform fence step's kinds,
``tfence_<kind>`` for the terminal's own items (0x11 ``overspeed``, 0x12 ``enter`` / ``leave``, 0x13
``segment_short`` / ``segment_long``). A kind's rule applies to every fence's alarm of that kind, as the
fleet consoles configure area alarms by type, not per fence. ``rule_key`` is THE resolution of an alarm key
to the key of its rule (``fence:12:enter`` -> ``fence_enter``; any other key is its own rule key): the API's
effective rules, the level given to a new alarm row and the push's ``ruleKey`` (which the console's pop-up
and voice read) all go through it. Rule keys carry no ``:`` (the console's i18n namespace separator) and
are never stored in ``alarm.key``; they are not in ``ALARMS`` either (the report counters are its keys).

Pure data; no I/O. ``alarm_def`` answers None for a key it does not know (a newer terminal's type), and
``describe`` then falls back to the key itself so nothing upstream has to special-case it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from fleet.zh_hk import to_hk


class AlarmKind(IntEnum):
    """``alarm.type``: where an alarm comes from. 5-8 are active safety."""

    TERMINAL = 1
    VIDEO = 2
    PLATFORM = 3
    FENCE = 4
    ADAS = 5
    DSM = 6
    TPMS = 7
    BSD = 8
    NEV = 9  # GB/T 32960 / GB 17691 vehicles' own alarms (streams/gb_alarms.py)


ACTIVE_SAFETY_KINDS = frozenset({AlarmKind.ADAS, AlarmKind.DSM, AlarmKind.TPMS, AlarmKind.BSD})
LEVELLED_KINDS = frozenset({AlarmKind.ADAS, AlarmKind.DSM})

# Where a fix carries these alarms: the ``gps.extras`` keys of the decoded additional items
# (protocols/jt808/extras/) and the catalogue key prefix of each (streams/alarms.py raises from them).
SAFETY_ITEMS: dict[str, tuple[str, AlarmKind]] = {
    "adas_alarm": ("adas", AlarmKind.ADAS),      # 0x64
    "dsm_alarm": ("dsm", AlarmKind.DSM),         # 0x65
    "tpms_alarm": ("tpms", AlarmKind.TPMS),      # 0x66
    "bsd_alarm": ("bsd", AlarmKind.BSD),         # 0x67
}
VIDEO_FLAGS_ITEM = "video_alarm_flags"           # 0x14: the v0..v31 bits
# A GB/T 32960 / GB 17691 fix's alarm object (streams/gb_frames.py; platform-spec §3 track point): the
# general flags ``alarm`` (keys gb0..gb27) and the fault lists, each list's key while it is not empty.
GB_ALARM_ITEM = "gb_alarm"
GB_FAULT_KEYS = {"battery": "gbf_battery", "motor": "gbf_motor", "engine": "gbf_engine", "other": "gbf_other",
                 "obd": "obd_fault", "mil": "obd_mil"}
VIDEO_ITEMS = (VIDEO_FLAGS_ITEM, "video_signal_lost_channels", "video_signal_blocked_channels",
               "storage_fault_flags", "abnormal_driving")  # 0x14-0x18 (JT/T 1078 table 13)


@dataclass(frozen=True)
class AlarmDef:
    key: str
    kind: AlarmKind
    zh: str
    en: str
    confirmable: bool
    held: bool

    @property
    def hk(self) -> str:
        """zh-HK is generated from zh-CN (``fleet zh-hk``), never written here."""
        return to_hk(self.zh)


# Platform-spec §9: the bits the terminal only clears after the platform's 0x8203 manual confirmation.
CONFIRMABLE_BITS: frozenset[int] = frozenset({0, 3, 20, 21, 22, 27, 28, 31})

# (bit, zh-CN, en-US): JT/T 808-2019 table 24.
_TERMINAL: tuple[tuple[int, str, str], ...] = (
    (0, "紧急报警", "Emergency alarm"),
    (1, "超速报警", "Overspeed alarm"),
    (2, "疲劳驾驶报警", "Fatigue driving alarm"),
    (3, "危险驾驶行为报警", "Dangerous driving alarm"),
    (4, "GNSS模块发生故障", "GNSS module fault"),
    (5, "GNSS天线未接或被剪断", "GNSS antenna disconnected or cut"),
    (6, "GNSS天线短路", "GNSS antenna short circuit"),
    (7, "终端主电源欠压", "Main power undervoltage"),
    (8, "终端主电源掉电", "Main power off"),
    (9, "终端LCD或显示器故障", "LCD or display fault"),
    (10, "TTS模块故障", "TTS module fault"),
    (11, "摄像头故障", "Camera fault"),
    (12, "道路运输证IC卡模块故障", "Transport licence IC card module fault"),
    (13, "超速预警", "Overspeed warning"),
    (14, "疲劳驾驶预警", "Fatigue driving warning"),
    (15, "违规行驶报警", "Illegal driving alarm"),
    (16, "胎压预警", "Tyre pressure warning"),
    (17, "右转盲区异常报警", "Right-turn blind spot alarm"),
    (18, "当天累计驾驶超时", "Daily driving time exceeded"),
    (19, "超时停车", "Parking overtime"),
    (20, "进出区域", "Entering or leaving an area"),
    (21, "进出路线", "Entering or leaving a route"),
    (22, "路段行驶时间不足/过长", "Road section driving time too short or too long"),
    (23, "路线偏离报警", "Route deviation alarm"),
    (24, "车辆VSS故障", "Vehicle VSS fault"),
    (25, "车辆油量异常", "Abnormal fuel level"),
    (26, "车辆被盗(通过车辆防盗器)", "Vehicle stolen (anti-theft device)"),
    (27, "车辆非法点火", "Illegal ignition"),
    (28, "车辆非法位移", "Illegal displacement"),
    (29, "碰撞预警", "Collision warning"),
    (30, "侧翻预警", "Rollover warning"),
    (31, "非法开门报警", "Illegal door opening alarm"),
)

# JT/T 1078-2016 table 14 (bits 7-31 reserved).
_VIDEO: tuple[tuple[int, str, str], ...] = (
    (0, "视频信号丢失报警", "Video signal lost"),
    (1, "视频信号遮挡报警", "Video signal blocked"),
    (2, "存储单元故障报警", "Storage unit fault"),
    (3, "其他视频设备故障报警", "Other video device fault"),
    (4, "客车超员报警", "Bus overloaded"),
    (5, "异常驾驶行为报警", "Abnormal driving behaviour"),
    (6, "特殊报警录像达到存储阈值报警", "Special alarm recordings reached storage threshold"),
)

_ADAS: tuple[tuple[int, str, str], ...] = (
    (1, "前向碰撞报警", "Forward collision warning"),
    (2, "车道偏离报警", "Lane departure warning"),
    (3, "车距过近报警", "Vehicle distance too close"),
    (4, "行人碰撞报警", "Pedestrian collision warning"),
    (5, "频繁变道报警", "Frequent lane change"),
    (6, "道路标识超限报警", "Road sign limit exceeded"),
    (7, "障碍物报警", "Obstruction warning"),
    (16, "道路标志识别事件", "Road sign recognition"),
    (17, "主动抓拍事件", "Active capture"),
)

_DSM: tuple[tuple[int, str, str], ...] = (
    (1, "疲劳驾驶报警", "Fatigue driving"),
    (2, "接打电话报警", "Phone call"),
    (3, "抽烟报警", "Smoking"),
    (4, "分神驾驶报警", "Distracted driving"),
    (5, "驾驶员异常报警", "Driver abnormal"),
    (16, "自动抓拍事件", "Automatic capture"),
    (17, "驾驶员变更事件", "Driver change"),
)

# Jiangsu 2017 table 4-19: tyre event bits of item 0x66.
_TPMS: tuple[tuple[int, str, str], ...] = (
    (0, "胎压定时上报", "Tyre pressure report"),
    (1, "胎压过高报警", "Tyre pressure too high"),
    (2, "胎压过低报警", "Tyre pressure too low"),
    (3, "胎温过高报警", "Tyre temperature too high"),
    (4, "传感器异常报警", "Tyre sensor fault"),
    (5, "胎压不平衡报警", "Tyre pressure unbalanced"),
    (6, "慢漏气报警", "Slow leak"),
    (7, "电池电量低报警", "Tyre sensor battery low"),
)

_BSD: tuple[tuple[int, str, str], ...] = (
    (1, "后方接近报警", "Rear approach"),
    (2, "左侧后方接近报警", "Left rear approach"),
    (3, "右侧后方接近报警", "Right rear approach"),
)

# GB/T 32960.3 general alarm flags: 2016 table 19, bits 0-18; the 2025 edition adds 19-27.
_GB_GENERAL: tuple[tuple[int, str, str], ...] = (
    (0, "温度差异报警", "Temperature difference alarm"),
    (1, "电池高温报警", "Battery high temperature alarm"),
    (2, "车载储能装置类型过压报警", "Energy storage overvoltage alarm"),
    (3, "车载储能装置类型欠压报警", "Energy storage undervoltage alarm"),
    (4, "SOC低报警", "Low SOC alarm"),
    (5, "单体电池过压报警", "Cell overvoltage alarm"),
    (6, "单体电池欠压报警", "Cell undervoltage alarm"),
    (7, "SOC过高报警", "High SOC alarm"),
    (8, "SOC跳变报警", "SOC jump alarm"),
    (9, "可充电储能系统不匹配报警", "Rechargeable energy storage mismatch alarm"),
    (10, "电池单体一致性差报警", "Poor cell consistency alarm"),
    (11, "绝缘报警", "Insulation alarm"),
    (12, "DC-DC温度报警", "DC-DC temperature alarm"),
    (13, "制动系统报警", "Brake system alarm"),
    (14, "DC-DC状态报警", "DC-DC status alarm"),
    (15, "驱动电机控制器温度报警", "Drive motor controller temperature alarm"),
    (16, "高压互锁状态报警", "High-voltage interlock alarm"),
    (17, "驱动电机温度报警", "Drive motor temperature alarm"),
    (18, "车载储能装置类型过充", "Energy storage overcharge alarm"),
    # GB/T 32960.3-2025 bits 19-27, as rtm_con reads its table 24 (the names in English there; the Chinese ours)
    (19, "驱动电机超速报警", "Drive motor overspeed alarm"),
    (20, "驱动电机过流报警", "Drive motor overcurrent alarm"),
    (21, "超级电容高温报警", "Supercapacitor high temperature alarm"),
    (22, "超级电容过压报警", "Supercapacitor overvoltage alarm"),
    (23, "电池热事件报警", "Battery thermal event alarm"),
    (24, "氢气泄漏报警", "Hydrogen leak alarm"),
    (25, "氢系统压力异常报警", "Hydrogen system pressure alarm"),
    (26, "氢系统温度异常报警", "Hydrogen system temperature alarm"),
    (27, "燃料电池电堆高温报警", "Fuel cell stack high temperature alarm"),
)
_GB_FAULTS: tuple[tuple[str, str, str], ...] = (
    ("gbf_battery", "可充电储能装置故障", "Rechargeable energy storage fault"),
    ("gbf_motor", "驱动电机故障", "Drive motor fault"),
    ("gbf_engine", "发动机故障", "Engine fault"),
    ("gbf_other", "其他故障", "Other fault"),
    ("obd_mil", "OBD故障指示灯亮", "OBD malfunction indicator lamp on"),
    ("obd_fault", "OBD故障码", "OBD fault codes"),
)

_PLATFORM: tuple[tuple[str, str, str], ...] = (
    ("p_overspeed", "平台超速报警", "Platform overspeed alarm"),
    ("p_fatigue", "平台疲劳驾驶报警", "Platform fatigue driving alarm"),
    ("p_parking", "平台超时停车报警", "Platform parking timeout alarm"),
    ("p_night", "夜间行驶报警", "Night driving alarm"),
)

# Fence alarm kinds (fleet.geofence.rules, the key's kind part): (zh-CN, en-US).
FENCE_KINDS: dict[str, tuple[str, str]] = {
    "enter": ("进区域报警", "Entering area"),
    "leave": ("出区域报警", "Leaving area"),
    "overspeed": ("区域超速报警", "Overspeed in area"),
    "night_overspeed": ("区域夜间超速报警", "Night overspeed in area"),
    "deviation": ("偏离路线报警", "Route deviation"),
    "segment_short": ("路段行驶时间不足", "Road section time too short"),
    "segment_long": ("路段行驶时间过长", "Road section time too long"),
    "stay": ("区域内停留超时", "Stayed too long in area"),
    "door_open": ("区域内开门报警", "Door opened in area"),
}
FENCE_KEY_PREFIXES = ("fence", "tfence")  # platform fence step / terminal's own area items
# The kinds the terminal reports itself (streams/fence_alarms.terminal_items): 0x11, 0x12 in / out, 0x13.
TERMINAL_FENCE_KINDS = ("overspeed", "enter", "leave", "segment_short", "segment_long")
# One rule key per fence alarm kind: {rule key: (alarm key prefix, kind)} (module docstring, "Rule keys").
FENCE_RULES: dict[str, tuple[str, str]] = {
    **{f"fence_{kind}": ("fence", kind) for kind in FENCE_KINDS},
    **{f"tfence_{kind}": ("tfence", kind) for kind in TERMINAL_FENCE_KINDS},
}
_TERMINAL_SUFFIX = {"zh": "(终端)", "en": " (terminal)"}

_LEVELS = {
    "zh": {1: "一级", 2: "二级"},
    "en": {1: "Level 1", 2: "Level 2"},
}
_LEVELS["hk"] = {level: to_hk(name) for level, name in _LEVELS["zh"].items()}


def _build() -> dict[str, AlarmDef]:
    defs: list[AlarmDef] = [
        AlarmDef(f"a{bit}", AlarmKind.TERMINAL, zh, en, bit in CONFIRMABLE_BITS, True)
        for bit, zh, en in _TERMINAL
    ]
    video = {bit: (zh, en) for bit, zh, en in _VIDEO}
    for bit in range(32):
        zh, en = video.get(bit, (f"视频保留报警位{bit}", f"Reserved video alarm bit {bit}"))
        defs.append(AlarmDef(f"v{bit}", AlarmKind.VIDEO, zh, en, False, True))
    for prefix, kind, rows in (("adas", AlarmKind.ADAS, _ADAS), ("dsm", AlarmKind.DSM, _DSM),
                               ("tpms", AlarmKind.TPMS, _TPMS), ("bsd", AlarmKind.BSD, _BSD)):
        defs.extend(AlarmDef(f"{prefix}_{t}", kind, zh, en, False, False) for t, zh, en in rows)
    defs.extend(AlarmDef(key, AlarmKind.PLATFORM, zh, en, False, True) for key, zh, en in _PLATFORM)
    defs.extend(AlarmDef(f"gb{bit}", AlarmKind.NEV, zh, en, False, True) for bit, zh, en in _GB_GENERAL)
    defs.extend(AlarmDef(key, AlarmKind.NEV, zh, en, False, True) for key, zh, en in _GB_FAULTS)
    return {d.key: d for d in defs}


ALARMS: dict[str, AlarmDef] = _build()
# Every key a notification rule, an alarm level or a user's own rule may name: the catalogue's, then the
# fence kinds' (the settings screens list them in this order).
RULE_KEYS: tuple[str, ...] = (*ALARMS, *FENCE_RULES)


def alarm_def(key: str) -> AlarmDef | None:
    return ALARMS.get(key)


LEVELS: tuple[int, ...] = tuple(sorted(_LEVELS["zh"]))  # the ADAS/DSM levels with a name


def _short(lang: str) -> str:
    short = {"zh-cn": "zh", "en-us": "en", "zh-hk": "hk", "zh-tw": "hk"}.get(lang.lower(), lang.lower())
    return short if short in _LEVELS else "zh"


def level_prefix(level: int | None, lang: str = "zh") -> str:
    """What ``describe`` puts before an ADAS/DSM alarm's name for ``level`` ("一级 "), or ""."""
    found = _LEVELS[_short(lang)].get(level) if level is not None else None
    return f"{found} " if found else ""


def fence_kind(key: str) -> tuple[str, int, str] | None:
    """(prefix, fence id, kind) of a fence alarm key (``fence:12:enter``, ``fence:7:segment_long:2``,
    ``tfence:12:leave``), None for any other key or a kind not in ``FENCE_KINDS``."""
    parts = key.split(":")
    if len(parts) not in (3, 4) or parts[0] not in FENCE_KEY_PREFIXES or not parts[1].isdigit() \
            or parts[2] not in FENCE_KINDS:
        return None
    return parts[0], int(parts[1]), parts[2]


def rule_key(key: str) -> str:
    """The key of the rule that governs alarms of ``key``: a fence alarm's kind rule (``fence:12:enter`` and
    ``fence:7:segment_long:2`` -> ``fence_enter``, ``fence_segment_long``; ``tfence:12:leave`` ->
    ``tfence_leave``), any other key itself (a catalogue key, a rule key, an unknown key: never an error)."""
    found = fence_kind(key)
    if found is None:
        return key
    prefix, _, kind = found
    return f"{prefix}_{kind}"


def _describe_fence(key: str, lang: str) -> str | None:
    found = fence_kind(key)
    if found is None:
        found_rule = FENCE_RULES.get(key)
        if found_rule is None:
            return None
        found = (found_rule[0], 0, found_rule[1])
    prefix, _, kind = found
    zh, en = FENCE_KINDS[kind]
    short = _short(lang)
    name = en if short == "en" else (to_hk(zh) if short == "hk" else zh)
    if prefix == "tfence":
        suffix = _TERMINAL_SUFFIX["en" if short == "en" else "zh"]
        name += to_hk(suffix) if short == "hk" else suffix
    return name


def describe_alarm(key: str, level: int | None = None, lang: str = "zh", fence_name: str | None = None) -> str:
    """``describe`` plus, for a fence alarm, the fence's name ("进区域报警 (学校)"): what a push or a dialog shows."""
    name = describe(key, level, lang)
    return f"{name} ({fence_name})" if fence_name and fence_kind(key) is not None else name


def describe(key: str, level: int | None = None, lang: str = "zh") -> str:
    """The alarm's name in ``lang`` (zh, en, hk; zh-CN/en-US/zh-HK accepted), prefixed by its level for
    ADAS/DSM ("一级 前向碰撞报警"); a fence key and a fence rule key by its kind. An unknown key is returned as
    is; an unknown level is left out."""
    found = ALARMS.get(key)
    if found is None:
        fence = _describe_fence(key, lang)
        return key if fence is None else fence
    name: str = getattr(found, _short(lang))
    prefix = level_prefix(level, lang) if found.kind in LEVELLED_KINDS else ""
    return prefix + name


def bits_of(flags: int) -> list[int]:
    """The set bits of a 32-bit alarm flag DWORD, lowest first."""
    return [bit for bit in range(32) if flags >> bit & 1]


def terminal_bit_names() -> list[tuple[int, str, str, str]]:
    """(bit, zh, en, hk) of the 32 0x0200 alarm bits, for the ``car_alarm_desc`` dictionary."""
    return [(bit, zh, en, to_hk(zh)) for bit, zh, en in _TERMINAL]
