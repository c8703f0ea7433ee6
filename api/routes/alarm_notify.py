"""The caller's alarm notification settings (console-spec §3 "Notification settings", §6):
``GET|PUT /api/alarm/notify/settings.json``, the caller's effective rule per rule key (their own, else their
enterprise's default, else the built-in default: ``warehouse.queries.alarms.effective_rules``) and the
enterprise switches.

Rules name a rule key (``fleet.alarm_catalog.RULE_KEYS``): a catalogue key, or one fence alarm kind
(``fence_enter``, ``tfence_leave``, ...) whose rule applies to every fence's alarm of that kind.
``GET ...?alarmKey=fence:12:enter,a0`` answers the rule in effect for exactly those alarm keys, each resolved
by ``fleet.alarm_catalog.rule_key`` (the one resolution the push's ``ruleKey`` uses too) with the
``ruleKey`` it came from. An unknown key is a 400; nothing is ever stored under a concrete fence key.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import BadRequest, Forbidden
from api.http import json_object, ok
from api.security import FORBIDDEN_TEXT, current_principal, requires
from fleet.alarm_catalog import ALARMS, RULE_KEYS, fence_kind
from warehouse.queries import alarms as q

bp = Blueprint("alarm_notify", __name__)

SWITCHES = {"carStateChangeWindowEnable": "car_state_change_window_enable",
            "carRespCmdWindowEnable": "car_resp_cmd_window_enable",
            "uploadFileWindowEnable": "upload_file_window_enable"}
RULE_FIELDS = {"disabled": "disabled", "windowEnable": "window_enable", "voiceEnable": "voice_enable",
               "voice": "voice", "startHour": "start_hour", "endHour": "end_hour"}
READ_ONLY_RULE_FIELDS = frozenset({"source", "ruleKey"})  # in the GET answer; a PUT may send them back, ignored
VOICE_MAX = 64
MAX_ASKED_KEYS = 200  # alarm keys one GET may resolve
_RULE_KEY_SET = frozenset(RULE_KEYS)


def _rule_reply(row: dict[str, Any]) -> dict[str, Any]:
    reply = {**{api: row[column] for api, column in RULE_FIELDS.items()}, "source": row["source"]}
    if "rule_key" in row:  # asked for by alarm key: which rule applies
        reply["ruleKey"] = row["rule_key"]
    return reply


def _settings(conn: Any, user_id: int, enterprise_id: int, keys: list[str] | None = None) -> dict[str, Any]:
    switches = q.enterprise_switches(conn, enterprise_id)
    rules = q.effective_rules(conn, user_id, enterprise_id, keys)
    return {"alarmRule": {key: _rule_reply(row) for key, row in rules.items()},
            **{api: switches[column] for api, column in SWITCHES.items()}}


def _asked_keys() -> list[str] | None:
    """The ``alarmKey`` query parameter (a comma list of alarm keys or rule keys), None when absent."""
    raw = request.args.get("alarmKey")
    if raw is None:
        return None
    keys = list(dict.fromkeys(k.strip() for k in raw.split(",") if k.strip()))
    if not keys or len(keys) > MAX_ASKED_KEYS:
        raise BadRequest(f"alarmKey 必须是 1-{MAX_ASKED_KEYS} 个报警类型 (alarmKey must name 1-{MAX_ASKED_KEYS} alarm keys)",
                         data={"field": "alarmKey"})
    unknown = [k for k in keys if k not in ALARMS and k not in _RULE_KEY_SET and fence_kind(k) is None]
    if unknown:
        raise BadRequest(f"未知的报警类型 (unknown alarm key(s): {', '.join(map(repr, unknown))[:200]})",
                         data={"field": "alarmKey"})
    return keys


def _parse_rule(key: str, raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    where = f"alarmRule.{key[:40]}"
    if not isinstance(raw, dict):
        raise BadRequest(f"{where} 必须是对象 (must be an object)")
    unknown = sorted(set(raw) - set(RULE_FIELDS) - READ_ONLY_RULE_FIELDS)
    if unknown:
        raise BadRequest(f"{where}: 未知字段 (unknown field(s) {', '.join(unknown)[:120]})")
    rule: dict[str, Any] = dict(q.DEFAULT_NOTIFY_RULE)
    for api, column in RULE_FIELDS.items():
        if api not in raw or raw[api] is None:
            continue
        value = raw[api]
        if column in ("disabled", "window_enable", "voice_enable"):
            if not isinstance(value, bool):
                raise BadRequest(f"{where}.{api} 必须是布尔值 (must be true or false)")
        elif column == "voice":
            if not isinstance(value, str) or len(value) > VOICE_MAX:
                raise BadRequest(f"{where}.voice 必须是不超过{VOICE_MAX}个字符的文本 (must be text of at most {VOICE_MAX})")
        else:
            low, high = (0, 23) if column == "start_hour" else (1, 24)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise BadRequest(f"{where}.{api} 必须是 {low}-{high} 的整数 (must be an integer {low}-{high})")
        rule[column] = value
    if rule["start_hour"] >= rule["end_hour"]:
        raise BadRequest(f"{where}: 开始时间必须早于结束时间 (startHour must be before endHour)")
    return rule


@bp.get("/api/alarm/notify/settings.json")
@requires("alarm", "query")
def get_settings() -> dict[str, Any]:
    """{alarmRule: {key: {disabled, windowEnable, voiceEnable, voice, startHour, endHour, source}}, and the
    three enterprise switches}: the caller's effective rule of every rule key that has one
    (``q.effective_rules``): ``source`` "user" (their own) or "enterprise" (their enterprise's or its nearest
    ancestor's ``platformAlarmNotifyRule``); a key left out follows the built-in default (a window, no voice,
    all day). With ``alarmKey``: the rule in effect of exactly those keys, each with its ``ruleKey`` and
    ``source`` "default" when no rule applies."""
    principal = current_principal()
    keys = _asked_keys()
    with get_db().connection() as conn:
        return ok(_settings(conn, principal.user_id, principal.enterprise_id, keys))


@bp.put("/api/alarm/notify/settings.json")
@requires("alarm", "query")
def put_settings() -> dict[str, Any]:
    """Body as the GET answer; keys (rule keys: ``fleet.alarm_catalog.RULE_KEYS``) left out stay; a rule sent
    becomes the caller's own (its ``source`` and ``ruleKey`` are ignored); a rule of null removes the caller's
    own (the enterprise's or the default applies again). Changing an enterprise switch needs
    ``enterprise:update`` (403 otherwise). An open platform app's token is a 403: the settings are a
    signed-in user's own, and an app has no user."""
    principal = current_principal()
    if principal.app_id is not None:
        raise Forbidden(f"{FORBIDDEN_TEXT} (an open platform app has no alarm notification settings of its own; "
                        "they belong to a signed-in user)")
    body = json_object()
    unknown = sorted(set(body) - {"alarmRule", *SWITCHES})
    if unknown:
        raise BadRequest(f"未知字段 (unknown field(s): {', '.join(unknown)[:200]})")
    raw_rules = body.get("alarmRule")
    if raw_rules is None:
        raw_rules = {}
    if not isinstance(raw_rules, dict):
        raise BadRequest("alarmRule 必须是对象 (alarmRule must be an object of alarm key -> rule)")
    # A rule names a rule key, never one fence's alarm key (fence:12:enter): its kind's key (fence_enter).
    bad_keys = [k for k in raw_rules if k not in _RULE_KEY_SET]
    if bad_keys:
        raise BadRequest(f"未知的报警类型 (unknown alarm key(s): {', '.join(map(repr, bad_keys))[:200]})")
    rules = {key: _parse_rule(key, raw) for key, raw in raw_rules.items()}
    switches: dict[str, bool] = {}
    for api, column in SWITCHES.items():
        if api in body:
            if not isinstance(body[api], bool):
                raise BadRequest(f"{api} 必须是布尔值 (must be true or false)")
            switches[column] = body[api]
    with get_db().connection() as conn:
        if switches and switches != {c: v for c, v in q.enterprise_switches(conn, principal.enterprise_id).items()
                                     if c in switches} and not principal.can("enterprise", "update"):
            raise Forbidden.missing("enterprise", "update")
        with conn.transaction():
            for key, rule in rules.items():
                q.put_user_rule(conn, principal.user_id, principal.enterprise_id, key, rule)
            if switches:
                q.put_enterprise_switches(conn, principal.enterprise_id, switches)
        return ok(_settings(conn, principal.user_id, principal.enterprise_id))
