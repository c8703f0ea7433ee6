"""The two notification-rule dictionaries of platform-spec §9 read through the dictionary look-up
(``POST /api/system/dictionary/dictionary.json``, platform-spec §7): type 51 (alarm notify rule) and type 52
(car business notify rule). The rules are kept where they are configured, not in the ``dictionary`` table,
so the look-up answers one entry built from them and can never disagree with what the alarms apply:

- 51, code ``alarm_notify_rule``: ``content`` is JSON ``{"default": rule, "rules": {ruleKey: rule}}`` with
  the built-in rule and the caller's enterprise default rule of each key that has one
  (``platform_alarm_notify_rule``, the enterprise's own or its nearest ancestor's:
  ``warehouse.queries.alarms.enterprise_rules``); a rule is ``{windowEnable, voiceEnable, startHour,
  endHour}`` (a user's own rules are theirs alone: ``GET /api/alarm/notify/settings.json``);
- 52, code ``car_business_notify_rule``: ``content`` is JSON of the enterprise switches
  ``{carStateChangeWindowEnable, carRespCmdWindowEnable, uploadFileWindowEnable}`` (``enterprise_notify_setting``,
  every one on when never set; the messageNotifyRule screen writes them).

A look-up naming another code answers no entry. The entry's ``name`` is in the caller's language. The
``dictionary`` entity refuses entries of these types (a 400), so no stored entry can contradict the rules.
"""

from __future__ import annotations

import json
from typing import Any

from psycopg import Connection

from api.query.entities_settings import RULE_DICTIONARY_TYPES
from warehouse.queries import alarms as alarm_queries

ALARM_NOTIFY_RULE, CAR_BUSINESS_NOTIFY_RULE = 51, 52
RULE_TYPES = RULE_DICTIONARY_TYPES  # the dictionary entity refuses entries of these types

# type -> (code, {language: name})
_ENTRIES = {
    ALARM_NOTIFY_RULE: ("alarm_notify_rule", {"zh-CN": "报警通知规则", "zh-HK": "報警通知規則",
                                              "en-US": "Alarm notification rule"}),
    CAR_BUSINESS_NOTIFY_RULE: ("car_business_notify_rule", {"zh-CN": "车辆业务通知规则", "zh-HK": "車輛業務通知規則",
                                                            "en-US": "Vehicle business notification rule"}),
}
_RULE_FIELDS = (("windowEnable", "window_enable"), ("voiceEnable", "voice_enable"), ("startHour", "start_hour"),
                ("endHour", "end_hour"))
_SWITCHES = (("carStateChangeWindowEnable", "car_state_change_window_enable"),
             ("carRespCmdWindowEnable", "car_resp_cmd_window_enable"),
             ("uploadFileWindowEnable", "upload_file_window_enable"))


def _rule(row: dict[str, Any]) -> dict[str, Any]:
    return {api: row[column] for api, column in _RULE_FIELDS}


def _content(conn: Connection[Any], type_id: int, enterprise_id: int) -> dict[str, Any]:
    if type_id == ALARM_NOTIFY_RULE:
        rules = alarm_queries.enterprise_rules(conn, enterprise_id)
        return {"default": _rule(alarm_queries.DEFAULT_NOTIFY_RULE),
                "rules": {key: _rule(row) for key, row in sorted(rules.items())}}
    switches = alarm_queries.enterprise_switches(conn, enterprise_id)
    return {api: switches[column] for api, column in _SWITCHES}


def lookup(conn: Connection[Any], enterprise_id: int, type_id: int, code: str | None,
           language: str) -> list[dict[str, Any]]:
    """The look-up answer of rule type ``type_id`` (one of ``RULE_TYPES``) for ``enterprise_id``."""
    entry_code, names = _ENTRIES[type_id]
    if code is not None and code != entry_code:
        return []
    name = names.get(language, names["zh-CN"])
    content = json.dumps(_content(conn, type_id, enterprise_id), ensure_ascii=False)
    return [{"id": None, "enterpriseId": enterprise_id, "type": type_id, "code": entry_code, "name": name,
             "content": content, "system": 0, "createTime": None, "updateTime": None}]
