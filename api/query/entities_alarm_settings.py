"""Alarm settings (contract F): platform alarm rules, alarm levels, the enterprise's
default notification rules and the caller's own notification rules (console-spec §7).

- ``platformAlarmRule``: named rules (the name unique in the enterprise); the enterprise's most
  recently updated live rule is the one in effect (the list shows it first); fields a new rule omits are filled from ``fleet.platform_alarm_rules.DEFAULT_RULES`` (the one place of the defaults;
  an enterprise without a rule is evaluated with them, streams/platform_alarms.py). Ranges are
  console-spec §5 "Alarm configuration" where a field matches one (max speed 1-180 km/h, duration
  1-10000 s, minimum rest 1-10000 s, max parking time 1-100000 s); continuous driving is kept in
  seconds (1-86400: the spec's 1-180 is a terminal parameter in minutes), a null gets the spec's
  "不能为空" message.
- ``alarmLevel`` / ``platformAlarmNotifyRule``: per enterprise and rule key (``fleet.alarm_catalog.RULE_KEYS``:
  a catalogue key, or a fence alarm kind such as ``fence_enter`` whose row applies to every fence's alarm of
  that kind, ``rule_key``); the most recently updated live row of a key counts (the list shows it first).
- ``drivingGradeRule`` (platform-spec §2 Settings, migration 0058): per enterprise and alarm key the points
  deducted from the daily driving-behaviour score (per occurrence, per minute, a cap, a normalisation per
  100 km or per hour of driving), inherited like the notification rules; read by pipelines/grading.py.
- ``alarmLevelUserSettingRuleView`` (permission ``alarm``): read-only, the caller's effective rule per alarm key
  (their own, ``source`` "user", else the default rule of their enterprise or its nearest ancestor,
  ``source`` "enterprise"; keys without either follow the built-in default and have no row), the caller's
  rows only (whatever ``userId`` the query names); ``alarmRule`` is ``{disabled, windowEnable, voiceEnable,
  voice, startHour, endHour}``. The user's own rules are written by ``PUT /api/alarm/notify/settings.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from psycopg import Connection

from api.errors import BadRequest
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec, Query
from api.query.values import FieldType
from fleet.alarm_catalog import RULE_KEYS
from fleet.platform_alarm_rules import DEFAULT_RULES
from warehouse.queries.alarms import effective_rules
from warehouse.queries.scope import Scope

F = FieldSpec

# console-spec §5 "Alarm configuration": field -> its message when empty.
EMPTY_MESSAGES = {
    "overspeedLimit": "最高速度不能为空 (max speed is required)",
    "overspeedDuration": "持续时间不能为空 (duration is required)",
    "fatigueDriving": "连续驾驶时间门限不能为空 (continuous driving threshold is required)",
    "fatigueRest": "最小休息时间不能为空 (minimum rest time is required)",
    "parkingTimeout": "最长停车时间不能为空 (max parking time is required)",
    "nightStartHour": "夜间行驶开始时间不能为空 (night driving start is required)",
    "nightEndHour": "夜间行驶结束时间不能为空 (night driving end is required)",
}


def _fields(columns: Mapping[str, tuple[str, FieldType, float | None, float | None, str]]) -> dict[str, FieldSpec]:
    # The switches are set by editing a rule: a new one starts with the defaults' switches (a create
    # form's untouched switch would otherwise show "off" while the default is "on").
    return {name: F(column, ftype, minimum=lo, maximum=hi, create=ftype != "bool", update=True, label=label,
                    exportable=True)
            for name, (column, ftype, lo, hi, label) in columns.items()}


RULE_FIELDS: dict[str, tuple[str, FieldType, float | None, float | None, str]] = {
    "overspeedEnabled": ("overspeed_enabled", "bool", None, None, "超速报警"),
    "overspeedLimit": ("overspeed_limit_kmh", "int", 1, 180, "最高速度(km/h)"),
    "overspeedDuration": ("overspeed_duration_s", "int", 1, 10000, "持续时间(秒)"),
    "fatigueEnabled": ("fatigue_enabled", "bool", None, None, "疲劳驾驶报警"),
    "fatigueDriving": ("fatigue_driving_s", "int", 1, 86400, "连续驾驶时间门限(秒)"),
    "fatigueRest": ("fatigue_rest_s", "int", 1, 10000, "最小休息时间(秒)"),
    "parkingEnabled": ("parking_enabled", "bool", None, None, "超时停车报警"),
    "parkingTimeout": ("parking_timeout_s", "int", 1, 100000, "最长停车时间(秒)"),
    "nightEnabled": ("night_enabled", "bool", None, None, "夜间行驶报警"),
    "nightStartHour": ("night_start_hour", "int", 0, 23, "夜间开始(时)"),
    "nightEndHour": ("night_end_hour", "int", 1, 24, "夜间结束(时)"),
}


class PlatformAlarmRuleHooks(EntityHooks):
    cross_field_rules = True  # the night window's start and end must differ

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        """Nulls refused with the spec's message; a new rule's omitted fields from the defaults."""
        for name, message in EMPTY_MESSAGES.items():
            if name in values and values[name] is None:
                raise BadRequest(message, data={"field": name})
        for name in ("overspeedEnabled", "fatigueEnabled", "parkingEnabled", "nightEnabled"):
            if name in values and values[name] is None:
                values = {**values, name: getattr(DEFAULT_RULES, RULE_FIELDS[name][0])}
        if before is None:
            values = {**{n: getattr(DEFAULT_RULES, c) for n, (c, *_rest) in RULE_FIELDS.items()}, **values}
        start = values.get("nightStartHour", before["night_start_hour"] if before else None)
        end = values.get("nightEndHour", before["night_end_hour"] if before else None)
        if start is not None and end is not None and start % 24 == end % 24:
            raise BadRequest("夜间行驶开始和结束时间不能相同 (the night window's start and end must differ)",
                             data={"field": "nightEndHour"})
        return values


PLATFORM_ALARM_RULE = EntitySpec(
    name="platformAlarmRule",
    relation="platform_alarm_rule",
    table="platform_alarm_rule",
    tenant_column="enterprise_id",
    permission="platformAlarmRule",
    record_state_column="record_state",
    label="平台报警规则",
    hooks=PlatformAlarmRuleHooks(),
    default_order="updateTime",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="规则名称",
                  exportable=True),
        **_fields(RULE_FIELDS),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "createTime": F("created_at", "time", label="创建时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)


def _keyed(name: str, table: str, label: str, extra: dict[str, FieldSpec]) -> EntitySpec:
    """An enterprise's setting per alarm key (the newest live row of a key counts)."""
    return EntitySpec(
        name=name,
        default_order="updateTime",
        default_desc=True,
        relation=table,
        table=table,
        tenant_column="enterprise_id",
        permission=name,
        record_state_column="record_state",
        label=label,
        fields={
            "id": F("id", "int", label="编号"),
            "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
            "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                      importable=True, exportable=True),
            "alarmKey": F("alarm_key", required=True, enum=RULE_KEYS,
                          create=True, update=True, label="报警类型", importable=True, exportable=True),
            **extra,
            "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                        label="备注", importable=True, exportable=True),
            "createTime": F("created_at", "time", label="创建时间"),
            "updateTime": F("updated_at", "time", label="更新时间"),
        },
    )


class HoursHooks(EntityHooks):
    cross_field_rules = True  # startHour before endHour

    # The columns' defaults (migration 0019): all day, a window, no voice.
    DEFAULTS = {"windowEnable": True, "voiceEnable": False, "startHour": 0, "endHour": 24}

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        """A null field means its default on create and no change on update; the hours must be ordered."""
        for name, default in self.DEFAULTS.items():
            if name in values and values[name] is None:
                values = {k: v for k, v in values.items() if k != name}
                if before is None:
                    values[name] = default
        start = values.get("startHour", before["start_hour"] if before else 0)
        end = values.get("endHour", before["end_hour"] if before else 24)
        if start is not None and end is not None and start >= end:
            raise BadRequest("结束时间必须晚于开始时间 (endHour must be after startHour)", data={"field": "endHour"})
        return values


ALARM_LEVEL = _keyed("alarmLevel", "alarm_level", "报警等级", {
    "level": F("level", "int", required=True, enum=(1, 2, 3), create=True, update=True, label="等级",
               importable=True, exportable=True),
})

_notify = _keyed("platformAlarmNotifyRule", "platform_alarm_notify_rule", "平台报警通知规则", {
    "windowEnable": F("window_enable", "bool", create=True, update=True, label="弹窗提醒", exportable=True),
    "voiceEnable": F("voice_enable", "bool", create=True, update=True, label="语音提醒", exportable=True),
    "startHour": F("start_hour", "int", minimum=0, maximum=23, create=True, update=True, label="开始时间(时)",
                   exportable=True),
    "endHour": F("end_hour", "int", minimum=1, maximum=24, create=True, update=True, label="结束时间(时)",
                 exportable=True),
})
PLATFORM_ALARM_NOTIFY_RULE = replace(_notify, hooks=HoursHooks())

_RULE_FIELDS = (("disabled", "disabled"), ("windowEnable", "window_enable"), ("voiceEnable", "voice_enable"),
                ("voice", "voice"), ("startHour", "start_hour"), ("endHour", "end_hour"))


def own_user_rules(conn: Connection[Any], query: Query, scope: Scope) -> list[dict[str, Any]]:
    """The caller's effective notification rules (``warehouse.queries.alarms.effective_rules``: their own,
    else their enterprise's or its nearest ancestor's default rule), never another user's, whatever the
    query's userId (rows carry the caller's id, so ``userId`` naming anyone else matches nothing)."""
    from api.security import current_principal  # a request's caller (provider runs inside a request)

    if any(c.field == "alarmRule" and c.op != "exists" for c in query.conditions) or any(
            r.field == "alarmRule" for r in query.ranges):
        raise BadRequest("alarmRule 只能按是否存在筛选 (alarmRule can only be filtered with exists)",
                         data={"field": "alarmRule"})
    who = current_principal()
    rules = effective_rules(conn, who.user_id, who.enterprise_id)
    return [{"id": r["source_id"] if r["source"] == "user" else None, "userId": who.user_id,
             "enterpriseId": r["source_enterprise_id"], "alarmKey": key, "source": r["source"],
             "alarmRule": {api: r[column] for api, column in _RULE_FIELDS}, "updateTime": r["updated_at"]}
            for key, r in rules.items()]


ALARM_USER_SETTING_RULE_VIEW = EntitySpec(
    name="alarmLevelUserSettingRuleView",
    relation="alarm_user_setting",
    tenant_column="enterprise_id",
    permission="alarm",  # whoever sees alarms gets their notifications
    default_order="alarmKey",
    tiebreak=("alarmKey",),
    max_page_size=1000,
    provider=own_user_rules,
    fields={
        "id": F("id", "int"),  # the user's own rule row; null for an inherited rule
        "userId": F("user_id", "int"),
        "enterpriseId": F("enterprise_id", "int"),  # the user's (own rule) or the rule's enterprise (inherited)
        "alarmKey": F("alarm_key"),
        "source": F("source", enum=("user", "enterprise")),
        # JSON object; filterable only with exists (the spec's "alarmRule not null").
        "alarmRule": F("alarm_rule", sortable=False),
        "updateTime": F("updated_at", "time"),
    },
)

# Platform-spec §2 Settings "drivingGradeRule" (migration 0058, pipelines/grading.py): an enterprise's
# deduction per alarm key for the daily driving-behaviour score; the newest live row of a key counts, for the
# enterprise and its subsidiaries without their own row of the key. The grade bands are the system
# dictionary's driving_behavior_grade.
NORMALISATIONS = ((0, "不归一化"), (1, "每百公里"), (2, "每驾驶小时"))
_grade_rule = _keyed("drivingGradeRule", "driving_grade_rule", "驾驶行为评分规则", {
    "perOccurrence": F("per_occurrence", "float", required=True, minimum=0, maximum=100, create=True, update=True,
                       label="每次扣分", importable=True, exportable=True),
    "perMinute": F("per_minute", "float", minimum=0, maximum=100, create=True, update=True,
                   label="每分钟扣分", importable=True, exportable=True),
    "cap": F("cap", "float", minimum=0, maximum=100, create=True, update=True, label="扣分上限",
             importable=True, exportable=True),
    "normalisation": F("normalisation", "int", enum=tuple(code for code, _ in NORMALISATIONS), create=True,
                       update=True, label="归一化", importable=True, exportable=True, choices=NORMALISATIONS),
})


class GradeRuleHooks(EntityHooks):
    # The columns' defaults (migration 0058): no per-minute points, no normalisation. A null means the default
    # on create and no change on update (a cleared form field); ``cap`` null is "no cap", kept as written.
    DEFAULTS = {"perMinute": 0.0, "normalisation": 0}
    # Points are kept to two decimals: 1e-104 is 0 points, not a value the column (real) cannot hold.
    POINTS = ("perOccurrence", "perMinute", "cap")

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        for name, default in self.DEFAULTS.items():
            if name in values and values[name] is None:
                values = {k: v for k, v in values.items() if k != name}
                if before is None:
                    values[name] = default
        return {k: round(v, 2) if k in self.POINTS and isinstance(v, float) else v for k, v in values.items()}


DRIVING_GRADE_RULE = replace(_grade_rule, hooks=GradeRuleHooks())

ALARM_SETTINGS_WRITABLE = (PLATFORM_ALARM_RULE, ALARM_LEVEL, PLATFORM_ALARM_NOTIFY_RULE, DRIVING_GRADE_RULE)
ALARM_SETTINGS_READ_ONLY = (ALARM_USER_SETTING_RULE_VIEW,)

