"""The drivingGradeRule entity (platform-spec §2 Settings, migration 0058): an enterprise's deductions per
alarm key for the daily driving-behaviour score, through the generic entity routes: defaults, ranges, the
alarm key, another enterprise's rules, the permission."""

from __future__ import annotations

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
