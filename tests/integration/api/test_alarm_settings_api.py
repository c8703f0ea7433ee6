"""Alarm settings (contract F), server side: platform alarm rules with the defaults and
the console-spec §5 ranges, alarm levels and notify rules per alarm key, and the caller's effective
notification rules (their own, else their enterprise's or its nearest ancestor's default, else the built-in
one: ``alarmLevelUserSettingRuleView``, console-spec §7, and ``GET /api/alarm/notify/settings.json``)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import error_text
from tests.integration.api.test_console_api import User, _enterprise, bearer, make_user
from warehouse.db import connect
from warehouse.queries.alarms import effective_rules

SETTINGS = {code: ["add", "delete", "update", "query", "get", "export"]
            for code in ("platformAlarmRule", "alarmLevel", "platformAlarmNotifyRule")}


def _data(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


@pytest.fixture
def fresh(pg_url: str) -> User:
    """An administrator of a fresh enterprise holding the three settings permissions."""
    with connect(pg_url) as conn:
        eid = _enterprise(conn, f"告警设置{uuid.uuid4().hex[:6]}", None)
        conn.commit()
    return make_user(pg_url, eid, SETTINGS)


def test_a_new_rule_gets_the_defaults_for_what_it_omits_and_the_newest_is_listed_first(
        client: FlaskClient, fresh: User) -> None:
    auth = bearer(client, fresh.name)
    assert _data(client.post("/api/common/query/platformAlarmRule.json", headers=auth))["list"] == []
    rule = _data(client.post("/api/common/platformAlarmRule.json", json={"name": "夜班", "overspeedLimit": 90},
                             headers=auth))
    assert rule["overspeedLimit"] == 90 and rule["overspeedDuration"] == 10 and rule["overspeedEnabled"] is True
    assert rule["fatigueDriving"] == 14400 and rule["fatigueRest"] == 1200 and rule["parkingTimeout"] == 1800
    assert rule["nightEnabled"] is False and (rule["nightStartHour"], rule["nightEndHour"]) == (2, 5)
    same = client.post("/api/common/platformAlarmRule.json", json={"name": "夜班"}, headers=auth)
    assert same.status_code == 409 and same.json["data"]["field"] == "name", same.json
    second = _data(client.post("/api/common/platformAlarmRule.json", json={"name": "白班"}, headers=auth))
    updated = _data(client.patch(f"/api/common/platformAlarmRule/{rule['id']}.json",
                                 json={"overspeedDuration": 15, "nightEnabled": True}, headers=auth))
    assert updated["overspeedDuration"] == 15 and updated["nightEnabled"] is True and updated["overspeedLimit"] == 90
    listed = _data(client.post("/api/common/query/platformAlarmRule.json", headers=auth))["list"]
    assert [r["id"] for r in listed] == [rule["id"], second["id"]]  # the rule in effect first


@pytest.mark.parametrize(("body", "message"), [
    ({"overspeedLimit": 181}, "at most 180"),
    ({"overspeedLimit": 0}, "at least 1"),
    ({"overspeedDuration": 10001}, "at most 10000"),
    ({"fatigueRest": 10001}, "at most 10000"),
    ({"parkingTimeout": 100001}, "at most 100000"),
    ({"overspeedLimit": None}, "最高速度不能为空"),
    ({"fatigueRest": None}, "最小休息时间不能为空"),
    ({"nightStartHour": 24}, "at most 23"),
    ({"nightStartHour": 3, "nightEndHour": 3}, "must differ"),
])
def test_rule_values_outside_the_spec_ranges_are_refused(client: FlaskClient, fresh: User, body: dict[str, Any],
                                                         message: str) -> None:
    reply = client.post("/api/common/platformAlarmRule.json", json={"name": "规则", **body},
                        headers=bearer(client, fresh.name))
    # the spec's Chinese texts are the message; the ranges are named in the English text
    chinese = any("\u4e00" <= char <= "\u9fff" for char in message)
    assert reply.status_code == 400, reply.json
    assert message in (reply.json["message"] if chinese else error_text(reply, "en-US")), reply.json


def test_alarm_levels_and_notify_rules_name_a_known_alarm_key(client: FlaskClient, fresh: User) -> None:
    auth = bearer(client, fresh.name)
    level = _data(client.post("/api/common/alarmLevel.json", json={"name": "超速", "alarmKey": "p_overspeed", "level": 2},
                              headers=auth))
    assert level["alarmKey"] == "p_overspeed" and level["level"] == 2
    unknown = client.post("/api/common/alarmLevel.json", json={"name": "乱", "alarmKey": "p_nonsense", "level": 1}, headers=auth)
    assert unknown.status_code == 400 and unknown.json["data"]["field"] == "alarmKey"
    rule = _data(client.post("/api/common/platformAlarmNotifyRule.json",
                             json={"name": "紧急白天", "alarmKey": "a0", "voiceEnable": True, "startHour": 8, "endHour": 20}, headers=auth))
    assert rule["voiceEnable"] is True and rule["windowEnable"] is True and (rule["startHour"], rule["endHour"]) == (8, 20)
    bad = client.patch(f"/api/common/platformAlarmNotifyRule/{rule['id']}.json", json={"endHour": 8}, headers=auth)
    assert bad.status_code == 400 and bad.json["data"]["field"] == "endHour"


def test_settings_of_one_enterprise_are_invisible_to_another(client: FlaskClient, fresh: User, pg_url: str) -> None:
    rule = _data(client.post("/api/common/platformAlarmRule.json", json={"name": "甲"},
                             headers=bearer(client, fresh.name)))
    with connect(pg_url) as conn:
        other_eid = _enterprise(conn, f"别家{uuid.uuid4().hex[:6]}", None)
        conn.commit()
    other = bearer(client, make_user(pg_url, other_eid, SETTINGS).name)
    assert _data(client.post("/api/common/query/platformAlarmRule.json", headers=other))["list"] == []
    assert client.get(f"/api/common/platformAlarmRule/{rule['id']}.json", headers=other).status_code == 404
    assert client.patch(f"/api/common/platformAlarmRule/{rule['id']}.json", json={"overspeedLimit": 50},
                        headers=other).status_code == 404


def test_settings_need_their_permission(client: FlaskClient, pg_url: str, fresh: User) -> None:
    nobody = bearer(client, make_user(pg_url, fresh.enterprise_id, {"car": ["query"]}).name)
    for entity in ("platformAlarmRule", "alarmLevel", "platformAlarmNotifyRule"):
        assert client.post(f"/api/common/query/{entity}.json", headers=nobody).status_code == 403


def test_a_user_reads_only_their_own_notification_rules(client: FlaskClient, pg_url: str, fresh: User) -> None:
    reader, colleague = (make_user(pg_url, fresh.enterprise_id, {"alarm": ["query"]}) for _ in range(2))
    with connect(pg_url) as conn:
        for user, key, voice in ((reader, "a0", True), (reader, "p_fatigue", False), (colleague, "a0", False)):
            conn.execute("INSERT INTO alarm_user_setting (user_id, enterprise_id, alarm_key, voice_enable, start_hour,"
                         " end_hour) VALUES (%s, %s, %s, %s, 6, 22)", (user.id, user.enterprise_id, key, voice))
        conn.commit()
    auth = bearer(client, reader.name)
    query = {"select": "alarmKey,alarmRule", "pageNo": 1, "pageSize": 1000}
    page = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json", query_string=query,
                             json={"userId": reader.id, "alarmRule.exists": True}, headers=auth))
    assert page["list"] == [
        {"alarmKey": "a0", "alarmRule": {"disabled": False, "windowEnable": True, "voiceEnable": True, "voice": None,
                                         "startHour": 6, "endHour": 22}},
        {"alarmKey": "p_fatigue", "alarmRule": {"disabled": False, "windowEnable": True, "voiceEnable": False,
                                                "voice": None, "startHour": 6, "endHour": 22}},
    ]
    # Naming the colleague's id answers nothing: a user sees only their own rules.
    theirs = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json", query_string=query,
                               json={"userId": colleague.id}, headers=auth))
    assert theirs["list"] == []
    bad = client.post("/api/common/query/alarmLevelUserSettingRuleView.json", json={"alarmRule.gt": "x"}, headers=auth)
    assert bad.status_code == 400 and bad.json["data"]["field"] == "alarmRule", bad.json


# --- effective notification rules (user's own > enterprise default > built-in default) -------------------

RULE_QUERY = {"select": "alarmKey,source,alarmRule", "pageNo": 1, "pageSize": 1000}
SETTINGS_URL = "/api/alarm/notify/settings.json"


def _notify_rule(conn: Any, enterprise_id: int, key: str, *, age_min: int = 0, state: int = 1, **values: Any) -> None:
    columns = {"window_enable": True, "voice_enable": False, "start_hour": 0, "end_hour": 24, **values}
    conn.execute(
        "INSERT INTO platform_alarm_notify_rule (enterprise_id, name, alarm_key, window_enable, voice_enable,"
        " start_hour, end_hour, record_state, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
        " now() - make_interval(mins => %s))",
        (enterprise_id, f"{key}-{uuid.uuid4().hex[:6]}", key, columns["window_enable"], columns["voice_enable"],
         columns["start_hour"], columns["end_hour"], state, age_min))


@pytest.fixture
def tree(pg_url: str) -> dict[str, int]:
    """A fresh root enterprise with a subsidiary, and an unrelated enterprise; their notify rules:
    root a0 (voice 8-20), a1 twice (the newer counts), a deleted a2; child a1 (6-22); the other a3."""
    with connect(pg_url) as conn:
        root = _enterprise(conn, f"通知根{uuid.uuid4().hex[:6]}", None)
        child = _enterprise(conn, f"通知子{uuid.uuid4().hex[:6]}", root)
        other = _enterprise(conn, f"通知外{uuid.uuid4().hex[:6]}", None)
        _notify_rule(conn, root, "a0", voice_enable=True, start_hour=8, end_hour=20)
        _notify_rule(conn, root, "a1", age_min=60, window_enable=False)
        _notify_rule(conn, root, "a1", age_min=5, voice_enable=True)
        _notify_rule(conn, root, "a2", voice_enable=True, state=0)  # deleted: does not count
        _notify_rule(conn, child, "a1", start_hour=6, end_hour=22)
        _notify_rule(conn, other, "a3", voice_enable=True)
        conn.commit()
    return {"root": root, "child": child, "other": other}


def _rule(window: bool = True, voice: bool = False, start: int = 0, end: int = 24, disabled: bool = False,
          text: str | None = None) -> dict[str, Any]:
    return {"disabled": disabled, "windowEnable": window, "voiceEnable": voice, "voice": text, "startHour": start,
            "endHour": end}


def test_the_users_rule_beats_the_enterprise_rule_which_beats_the_default(
        client: FlaskClient, pg_url: str, tree: dict[str, int]) -> None:
    user = make_user(pg_url, tree["root"], {"alarm": ["query"]})
    auth = bearer(client, user.name)
    inherited = _data(client.get(SETTINGS_URL, headers=auth))["alarmRule"]
    assert inherited == {"a0": {**_rule(voice=True, start=8, end=20), "source": "enterprise"},
                         "a1": {**_rule(voice=True), "source": "enterprise"}}  # the newest a1; no a2, a3
    own = _rule(disabled=True, text="注意")
    saved = _data(client.put(SETTINGS_URL, headers=auth, json={"alarmRule": {"a0": {**own, "source": "enterprise"}}}))
    assert saved["alarmRule"]["a0"] == {**own, "source": "user"}  # the sent source is ignored: it is theirs now
    assert saved["alarmRule"]["a1"]["source"] == "enterprise"
    page = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json", query_string=RULE_QUERY,
                             json={"userId": user.id, "alarmRule.exists": True}, headers=auth))
    assert page["list"] == [{"alarmKey": "a0", "source": "user", "alarmRule": own},
                            {"alarmKey": "a1", "source": "enterprise", "alarmRule": _rule(voice=True)}]
    removed = _data(client.put(SETTINGS_URL, headers=auth, json={"alarmRule": {"a0": None}}))
    assert removed["alarmRule"]["a0"]["source"] == "enterprise"  # the enterprise's applies again
    with connect(pg_url) as conn:  # a key nobody set follows the built-in default
        rules = effective_rules(conn, user.id, tree["root"], ["a0", "a5"])
    assert rules["a5"]["source"] == "default" and rules["a5"]["window_enable"] and not rules["a5"]["voice_enable"]
    assert (rules["a5"]["start_hour"], rules["a5"]["end_hour"]) == (0, 24)


def test_a_subsidiary_user_inherits_the_parents_rule_and_the_nearest_enterprise_wins(
        client: FlaskClient, pg_url: str, tree: dict[str, int]) -> None:
    user = make_user(pg_url, tree["child"], {"alarm": ["query"]})
    auth = bearer(client, user.name)
    page = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json",
                             query_string={**RULE_QUERY, "select": "alarmKey,source,enterpriseId,alarmRule"},
                             json={"userId": user.id, "alarmRule.exists": True}, headers=auth))
    assert page["list"] == [
        {"alarmKey": "a0", "source": "enterprise", "enterpriseId": tree["root"],
         "alarmRule": _rule(voice=True, start=8, end=20)},
        {"alarmKey": "a1", "source": "enterprise", "enterpriseId": tree["child"], "alarmRule": _rule(start=6, end=22)},
    ]
    assert set(_data(client.get(SETTINGS_URL, headers=auth))["alarmRule"]) == {"a0", "a1"}
    # the parent's users never get a subsidiary's rule
    parent_user = make_user(pg_url, tree["root"], {"alarm": ["query"]})
    with connect(pg_url) as conn:
        assert effective_rules(conn, parent_user.id, tree["root"])["a1"]["source_enterprise_id"] == tree["root"]


def test_another_users_rules_are_never_visible(client: FlaskClient, pg_url: str, tree: dict[str, int]) -> None:
    reader, colleague = (make_user(pg_url, tree["child"], {"alarm": ["query"]}) for _ in range(2))
    assert _data(client.put(SETTINGS_URL, headers=bearer(client, colleague.name),
                            json={"alarmRule": {"a0": _rule(disabled=True), "a7": _rule(voice=True)}}))
    auth = bearer(client, reader.name)
    mine = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json",
                             query_string={**RULE_QUERY, "select": "alarmKey,source,userId"},
                             json={"alarmRule.exists": True}, headers=auth))["list"]
    assert mine == [{"alarmKey": "a0", "source": "enterprise", "userId": reader.id},
                    {"alarmKey": "a1", "source": "enterprise", "userId": reader.id}]
    theirs = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json", query_string=RULE_QUERY,
                               json={"userId": colleague.id}, headers=auth))
    assert theirs["list"] == []
    settings = _data(client.get(SETTINGS_URL, headers=auth))["alarmRule"]
    assert set(settings) == {"a0", "a1"} and settings["a0"]["source"] == "enterprise"


# --- fence alarms: one rule per kind (fleet.alarm_catalog.rule_key) -----------------------------------------


def test_a_rule_of_the_fence_enter_kind_is_the_effective_rule_of_every_fences_enter_alarm(
        client: FlaskClient, pg_url: str, fresh: User) -> None:
    user = make_user(pg_url, fresh.enterprise_id, {"alarm": ["query"]})
    auth = bearer(client, user.name)
    own = _rule(window=False, voice=True, text="进入围栏")
    saved = _data(client.put(SETTINGS_URL, headers=auth, json={"alarmRule": {"fence_enter": own}}))
    assert saved["alarmRule"]["fence_enter"] == {**own, "source": "user"}
    asked = "fence:12:enter,fence:7:enter,fence:12:leave,tfence:12:enter,a0"
    rules = _data(client.get(SETTINGS_URL, headers=auth, query_string={"alarmKey": asked}))["alarmRule"]
    assert rules == {
        "fence:12:enter": {**own, "source": "user", "ruleKey": "fence_enter"},
        "fence:7:enter": {**own, "source": "user", "ruleKey": "fence_enter"},  # any fence: the kind's rule
        "fence:12:leave": {**_rule(), "source": "default", "ruleKey": "fence_leave"},
        "tfence:12:enter": {**_rule(), "source": "default", "ruleKey": "tfence_enter"},  # the terminal's own kind
        "a0": {**_rule(), "source": "default", "ruleKey": "a0"},
    }
    page = _data(client.post("/api/common/query/alarmLevelUserSettingRuleView.json", query_string=RULE_QUERY,
                             json={"userId": user.id, "alarmRule.exists": True}, headers=auth))
    assert page["list"] == [{"alarmKey": "fence_enter", "source": "user", "alarmRule": own}]
    # a colleague gets nothing of it: the rule is the user's own
    colleague = bearer(client, make_user(pg_url, fresh.enterprise_id, {"alarm": ["query"]}).name)
    theirs = _data(client.get(SETTINGS_URL, headers=colleague, query_string={"alarmKey": "fence:12:enter"}))
    assert theirs["alarmRule"]["fence:12:enter"]["source"] == "default"


def test_an_enterprise_rule_and_level_of_a_fence_kind_are_set_on_the_settings_screens_entities(
        client: FlaskClient, pg_url: str, fresh: User) -> None:
    admin = bearer(client, fresh.name)
    rule = _data(client.post("/api/common/platformAlarmNotifyRule.json", headers=admin, json={
        "name": "终端进区域", "alarmKey": "tfence_enter", "voiceEnable": True, "startHour": 6, "endHour": 22}))
    assert rule["alarmKey"] == "tfence_enter"
    level = _data(client.post("/api/common/alarmLevel.json", headers=admin,
                              json={"name": "进区域", "alarmKey": "fence_enter", "level": 3}))
    assert level["alarmKey"] == "fence_enter"
    user = bearer(client, make_user(pg_url, fresh.enterprise_id, {"alarm": ["query"]}).name)
    rules = _data(client.get(SETTINGS_URL, headers=user, query_string={"alarmKey": "tfence:41:enter"}))["alarmRule"]
    assert rules == {"tfence:41:enter": {**_rule(voice=True, start=6, end=22), "source": "enterprise",
                                          "ruleKey": "tfence_enter"}}
    # one fence's alarm key is never a rule's key: its kind's is
    for entity, extra in (("platformAlarmNotifyRule", {}), ("alarmLevel", {"level": 1})):
        bad = client.post(f"/api/common/{entity}.json", headers=admin,
                          json={"name": "单个围栏", "alarmKey": "fence:41:enter", **extra})
        assert bad.status_code == 400 and bad.json["data"]["field"] == "alarmKey", bad.json


def test_a_fence_alarm_key_is_refused_as_a_rule_key_and_an_unknown_key_is_refused_when_asked(
        client: FlaskClient, pg_url: str, fresh: User) -> None:
    auth = bearer(client, make_user(pg_url, fresh.enterprise_id, {"alarm": ["query"]}).name)
    put = client.put(SETTINGS_URL, headers=auth, json={"alarmRule": {"fence:12:enter": _rule(window=False)}})
    assert put.status_code == 400 and "fence:12:enter" in error_text(put, "en-US"), put.json
    for asked in ("fence:12:fly", "nonsense", "", ",".join(f"a{i % 32}x{i}" for i in range(201))):
        reply = client.get(SETTINGS_URL, headers=auth, query_string={"alarmKey": asked})
        assert reply.status_code == 400 and reply.json["data"]["field"] == "alarmKey", (asked[:40], reply.json)
    # the rule sent back as the GET answered it (its read-only source and ruleKey) is taken
    echoed = {**_rule(voice=True), "source": "default", "ruleKey": "fence_leave"}
    saved = _data(client.put(SETTINGS_URL, headers=auth, json={"alarmRule": {"fence_leave": echoed}}))
    assert saved["alarmRule"]["fence_leave"] == {**_rule(voice=True), "source": "user"}


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
