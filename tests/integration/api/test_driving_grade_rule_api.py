"""The drivingGradeRule entity (platform-spec §2 Settings, migration 0058): an enterprise's deductions per
alarm key for the daily driving-behaviour score, through the generic entity routes: defaults, ranges, the
alarm key, another enterprise's rules, the permission."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.test_console_api import User, _enterprise, bearer, make_user
from warehouse.db import connect

PERMISSIONS = {"drivingGradeRule": ["add", "delete", "update", "query", "get", "export"]}


def _data(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


@pytest.fixture
def fresh(pg_url: str) -> User:
    with connect(pg_url) as conn:
        eid = _enterprise(conn, f"评分{uuid.uuid4().hex[:6]}", None)
        conn.commit()
    return make_user(pg_url, eid, PERMISSIONS)


def test_a_rule_is_created_with_the_defaults_for_what_it_omits_and_updated(client: FlaskClient, fresh: User) -> None:
    auth = bearer(client, fresh.name)
    rule = _data(client.post("/api/common/drivingGradeRule.json",
                             json={"name": "超速", "alarmKey": "a1", "perOccurrence": 2.5}, headers=auth))
    assert (rule["alarmKey"], rule["perOccurrence"], rule["perMinute"], rule["cap"], rule["normalisation"]) == \
        ("a1", 2.5, 0.0, None, 0)
    assert rule["enterpriseId"] == fresh.enterprise_id
    updated = _data(client.patch(f"/api/common/drivingGradeRule/{rule['id']}.json",
                                 json={"cap": 20, "normalisation": 1, "perMinute": 0.5}, headers=auth))
    assert (updated["cap"], updated["normalisation"], updated["perMinute"], updated["perOccurrence"]) == (20, 1, 0.5, 2.5)
    listed = _data(client.post("/api/common/query/drivingGradeRule.json", headers=auth))["list"]
    assert [r["id"] for r in listed] == [rule["id"]]
    same = client.post("/api/common/drivingGradeRule.json", json={"name": "超速", "alarmKey": "a2", "perOccurrence": 1},
                       headers=auth)
    assert same.status_code == 409 and same.json["data"]["field"] == "name", same.json


@pytest.mark.parametrize(("body", "field"), [
    ({"perOccurrence": -1}, "perOccurrence"),
    ({"perOccurrence": 101}, "perOccurrence"),
    ({"perOccurrence": None}, "perOccurrence"),
    ({"perMinute": 100.5}, "perMinute"),
    ({"cap": -0.1}, "cap"),
    ({"normalisation": 3}, "normalisation"),
    ({"alarmKey": "p_nonsense"}, "alarmKey"),
])
def test_values_outside_the_ranges_and_unknown_keys_are_refused(client: FlaskClient, fresh: User,
                                                                 body: dict[str, Any], field: str) -> None:
    reply = client.post("/api/common/drivingGradeRule.json",
                        json={"name": "规则", "alarmKey": "a1", "perOccurrence": 1, **body},
                        headers=bearer(client, fresh.name))
    assert reply.status_code == 400 and reply.json["data"]["field"] == field, reply.json


def test_another_enterprises_rules_are_invisible_and_untouchable(client: FlaskClient, fresh: User, pg_url: str) -> None:
    rule = _data(client.post("/api/common/drivingGradeRule.json",
                             json={"name": "甲", "alarmKey": "a2", "perOccurrence": 3},
                             headers=bearer(client, fresh.name)))
    with connect(pg_url) as conn:
        other_eid = _enterprise(conn, f"别家{uuid.uuid4().hex[:6]}", None)
        conn.commit()
    other = bearer(client, make_user(pg_url, other_eid, PERMISSIONS).name)
    assert _data(client.post("/api/common/query/drivingGradeRule.json", headers=other))["list"] == []
    assert client.get(f"/api/common/drivingGradeRule/{rule['id']}.json", headers=other).status_code == 404
    assert client.patch(f"/api/common/drivingGradeRule/{rule['id']}.json", json={"perOccurrence": 9},
                        headers=other).status_code == 404
    assert client.delete(f"/api/common/drivingGradeRule/{rule['id']}.json", headers=other).status_code == 404


def test_a_parent_sees_its_subsidiarys_rules_with_is_parent(client: FlaskClient, fresh: User, pg_url: str) -> None:
    with connect(pg_url) as conn:
        sub = _enterprise(conn, f"子{uuid.uuid4().hex[:6]}", fresh.enterprise_id)
        conn.commit()
    child = _data(client.post("/api/common/drivingGradeRule.json",
                              json={"name": "子规则", "alarmKey": "a1", "perOccurrence": 1},
                              headers=bearer(client, make_user(pg_url, sub, PERMISSIONS).name)))
    listed = _data(client.post("/api/common/query/drivingGradeRule.json", query_string={"isParent": "true"},
                               headers=bearer(client, fresh.name)))["list"]
    assert child["id"] in [r["id"] for r in listed]
    own = _data(client.post("/api/common/query/drivingGradeRule.json", query_string={"isParent": "false"},
                            headers=bearer(client, fresh.name)))["list"]
    assert child["id"] not in [r["id"] for r in own]


def test_the_rules_need_their_permission(client: FlaskClient, pg_url: str, fresh: User) -> None:
    reader = bearer(client, make_user(pg_url, fresh.enterprise_id, {"drivingGradeRule": ["query"]}).name)
    assert client.post("/api/common/query/drivingGradeRule.json", headers=reader).status_code == 200
    refused = client.post("/api/common/drivingGradeRule.json", json={"name": "x", "alarmKey": "a1", "perOccurrence": 1},
                          headers=reader)
    assert refused.status_code == 403
    nobody = bearer(client, make_user(pg_url, fresh.enterprise_id, {"car": ["query"]}).name)
    assert client.post("/api/common/query/drivingGradeRule.json", headers=nobody).status_code == 403


BANDS = {"grades": [{"grade": "优", "minScore": 95}, {"grade": "良", "minScore": 80}, {"grade": "差", "minScore": 0}]}
WITH_BANDS = {**PERMISSIONS, "dictionary": ["add", "update", "delete", "query", "get"]}


def _bands_entry(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": 50, "code": "driving_behavior_grade", "name": "评分等级", "content": json.dumps(content), **extra}


def test_the_bands_in_effect_are_the_enterprises_own_else_inherited_else_the_systems(
        client: FlaskClient, pg_url: str) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, f"等级{uuid.uuid4().hex[:6]}", None)
        sub = _enterprise(conn, f"等级子{uuid.uuid4().hex[:6]}", root)
        conn.commit()
    auth = bearer(client, make_user(pg_url, root, WITH_BANDS).name)
    system = _data(client.get("/api/drivingGradeRule/bands.json", headers=auth))
    assert (system["enterpriseId"], system["source"], system["sourceEnterpriseId"], system["entryId"]) == \
        (root, "system", None, None)
    assert [g["grade"] for g in system["grades"]] == ["A", "B", "C", "D"]  # the seeded system entry

    entry = _data(client.post("/api/common/dictionary.json", json=_bands_entry(BANDS), headers=auth))
    own = _data(client.get("/api/drivingGradeRule/bands.json", headers=auth))
    assert (own["source"], own["sourceEnterpriseId"], own["entryId"]) == ("own", root, entry["id"])
    assert own["grades"] == [{"grade": "优", "minScore": 95.0}, {"grade": "良", "minScore": 80.0},
                             {"grade": "差", "minScore": 0.0}]
    inherited = _data(client.get("/api/drivingGradeRule/bands.json", query_string={"enterpriseId": sub}, headers=auth))
    assert (inherited["enterpriseId"], inherited["source"], inherited["sourceEnterpriseId"], inherited["entryId"]) == \
        (sub, "inherited", root, None)
    assert inherited["grades"] == own["grades"]

    # the subsidiary's user reads the same, and cannot read its parent's
    sub_auth = bearer(client, make_user(pg_url, sub, PERMISSIONS).name)
    assert _data(client.get("/api/drivingGradeRule/bands.json", headers=sub_auth))["grades"] == own["grades"]
    assert client.get("/api/drivingGradeRule/bands.json", query_string={"enterpriseId": root},
                      headers=sub_auth).status_code == 404

    # the parent gives the subsidiary its own; deleting the parent's leaves the system's for the parent only
    child = _data(client.post("/api/common/dictionary.json",
                              json=_bands_entry({"grades": [{"grade": "P", "minScore": 60}, {"grade": "F", "minScore": 0}]},
                                                enterpriseId=sub), headers=auth))
    assert client.delete(f"/api/common/dictionary/{entry['id']}.json", headers=auth).status_code == 200
    assert _data(client.get("/api/drivingGradeRule/bands.json", headers=auth))["source"] == "system"
    mine = _data(client.get("/api/drivingGradeRule/bands.json", headers=sub_auth))
    assert (mine["source"], mine["entryId"], [g["grade"] for g in mine["grades"]]) == ("own", child["id"], ["P", "F"])


def test_the_bands_need_the_rules_permission(client: FlaskClient, pg_url: str, fresh: User) -> None:
    nobody = bearer(client, make_user(pg_url, fresh.enterprise_id, {"car": ["query"]}).name)
    assert client.get("/api/drivingGradeRule/bands.json", headers=nobody).status_code == 403
    assert client.get("/api/drivingGradeRule/bands.json", query_string={"enterpriseId": "x"},
                      headers=bearer(client, fresh.name)).status_code == 400


@pytest.mark.parametrize(("entry", "field"), [
    (_bands_entry({"grades": [{"grade": "A", "minScore": 90}, {"grade": "B", "minScore": 10}]}), "content"),
    (_bands_entry({"grades": [{"grade": "A", "minScore": 120}, {"grade": "B", "minScore": 0}]}), "content"),
    (_bands_entry({"grades": [{"grade": "A", "minScore": 0}, {"grade": "A", "minScore": 50}]}), "content"),
    (_bands_entry({"levels": []}), "content"),
    (_bands_entry(BANDS, code="grades"), "code"),
    (_bands_entry(BANDS, system=1), "system"),
])
def test_bands_that_would_grade_wrongly_are_refused(client: FlaskClient, pg_url: str, fresh: User,
                                                    entry: dict[str, Any], field: str) -> None:
    auth = bearer(client, make_user(pg_url, fresh.enterprise_id, WITH_BANDS).name)
    reply = client.post("/api/common/dictionary.json", json=entry, headers=auth)
    assert reply.status_code == 400 and reply.json["data"]["field"] == field, reply.json


def test_an_enterprises_bands_are_checked_on_update_too(client: FlaskClient, pg_url: str, fresh: User) -> None:
    auth = bearer(client, make_user(pg_url, fresh.enterprise_id, WITH_BANDS).name)
    entry = _data(client.post("/api/common/dictionary.json", json=_bands_entry(BANDS), headers=auth))
    bad = client.patch(f"/api/common/dictionary/{entry['id']}.json",
                       json={"content": json.dumps({"grades": [{"grade": "A", "minScore": 50}]})}, headers=auth)
    assert bad.status_code == 400 and bad.json["data"]["field"] == "content", bad.json
    assert "0 分" in bad.json["message"]  # the rule it breaks, in the message
