"""Alarm settings (issue 9 §4, contract F), server side: platform alarm rules with the defaults and
the console-spec §5 ranges, alarm levels and notify rules per alarm key, and the caller's own
notification rules (``alarmLevelUserSettingRuleView``, console-spec §7)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.test_console_api import User, _enterprise, bearer, make_user
from warehouse.db import connect

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
    assert reply.status_code == 400 and message in reply.json["message"], reply.json


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
