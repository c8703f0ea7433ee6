"""The audit log screen's entity (api/query/entities_audit.py): every create / update / delete of a
declared entity, with who, when and each field's before and after, read through the generic query
routes, scoped by enterprise, filterable by entity, record id, user, action and time range, exported
like any entity, and never written through the API."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.query.entities import WRITABLE
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user

Login = Callable[[str], dict[str, str]]
MODEL = WRITABLE["carModel"]


def history(client: FlaskClient, headers: dict[str, str], body: dict[str, Any], **params: str) -> list[dict[str, Any]]:
    reply = client.post("/api/common/query/auditLog.json", headers=headers, json=body,
                        query_string={"pageSize": "100", **params})
    assert reply.status_code == 200, reply.json
    rows: list[dict[str, Any]] = reply.json["data"]["list"]  # type: ignore[index]
    return rows


def changed_model(client: FlaskClient, headers: dict[str, str]) -> dict[str, Any]:
    """A car model created, renamed and deleted; its create answer."""
    tag = uuid.uuid4().hex[:10]
    made = client.post("/api/common/carModel.json", headers=headers, json={"name": f"型号{tag}", "code": tag}).json["data"]  # type: ignore[index]
    item = f"/api/common/carModel/{made['id']}.json"
    assert client.patch(item, headers=headers, json={"name": f"改名{tag}", "remark": "备注"}).status_code == 200
    assert client.delete(item, headers=headers).status_code == 200
    return made  # type: ignore[no-any-return]


def test_every_change_is_listed_newest_first_with_before_and_after(client: FlaskClient, login: Login,
                                                                    demo: Demo) -> None:
    headers = login("admin_a")
    made = changed_model(client, headers)
    rows = history(client, headers, {"entity": "carModel", "recordId": made["id"]})
    assert [r["action"] for r in rows] == ["delete", "update", "create"]
    assert {r["userName"] for r in rows} == {"admin_a"}
    assert {r["enterpriseId"] for r in rows} == {demo.enterprises["a"]}
    assert rows[0]["time"] >= rows[1]["time"] >= rows[2]["time"]
    assert rows[1]["changes"] == {"name": {"before": made["name"], "after": f"改名{made['code']}"},
                                  "remark": {"before": None, "after": "备注"}}
    assert rows[2]["changes"]["code"] == {"before": None, "after": made["code"]}
    assert rows[0]["changes"] == {"recordState": {"before": 1, "after": 0}}


def test_filters_by_user_action_and_time_range(client: FlaskClient, login: Login, demo: Demo,
                                               pg_url: str) -> None:
    other = make_user(pg_url, demo.enterprises["a"], {"carModel": ["add", "update", "delete", "query"],
                                                      "auditLog": ["query"]})
    headers = bearer(client, other.name)
    started = datetime.now(UTC) - timedelta(seconds=1)
    made = changed_model(client, headers)
    mine = history(client, headers, {"userName": other.name})
    assert [r["recordId"] for r in mine] == [made["id"]] * 3
    assert [r["action"] for r in history(client, headers, {"userName": other.name, "action": "update"})] == ["update"]
    window = {"userName": other.name, "rangeConditions": [{"fieldName": "time", "start": started.isoformat()}]}
    assert len(history(client, headers, window)) == 3
    before = {"userName": other.name, "rangeConditions": [{"fieldName": "time", "end": started.isoformat()}]}
    assert history(client, headers, before) == []
    count = client.post("/api/common/count/auditLog.json", headers=headers, json={"userName": other.name})
    assert count.json["data"] == 3  # type: ignore[index]
    reply = client.post("/api/common/query/auditLog.json", headers=headers, json={"changes": "x"})
    assert reply.status_code == 400 and "changes" in error_text(reply, "en-US")  # type: ignore[index]


def test_scoped_by_enterprise(client: FlaskClient, login: Login) -> None:
    made = changed_model(client, login("admin_a"))
    mine = {"entity": "carModel", "recordId": made["id"]}
    assert history(client, login("admin_b"), mine) == []
    assert history(client, login("admin_b"), mine, isParent="true") == []
    assert history(client, login("admin"), mine, isParent="false") == []  # the parent's own rows only...
    assert len(history(client, login("admin"), mine)) == 3  # ...or its subtree, by default


def test_needs_the_audit_log_permission_and_is_read_only(client: FlaskClient, login: Login, demo: Demo,
                                                         pg_url: str) -> None:
    nobody = bearer(client, make_user(pg_url, demo.enterprises["a"], {"carModel": ["query"]}).name)
    reply = client.post("/api/common/query/auditLog.json", headers=nobody, json={})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "auditLog:query"  # type: ignore[index]
    headers = login("admin_a")
    assert client.post("/api/common/auditLog.json", headers=headers, json={"entity": "x"}).status_code in (404, 405)
    assert client.delete("/api/common/auditLog/1.json", headers=headers).status_code in (404, 405)


def test_export_holds_the_changes_as_json_text(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    made = changed_model(client, headers)
    reply = client.post("/api/common/export/auditLog.csv", headers=headers, query_string={"orderBy": "time"},
                        json={"entity": "carModel", "recordId": made["id"]})
    assert reply.status_code == 200
    rows = list(csv.reader(io.StringIO(reply.data.decode("utf-8-sig"))))
    assert rows[0] == ["时间", "用户", "对象", "记录编号", "操作", "变更内容"]
    assert [r[4] for r in rows[1:]] == ["create", "update", "delete"]
    assert json.loads(rows[2][5])["remark"] == {"before": None, "after": "备注"}


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
