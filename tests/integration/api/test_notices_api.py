"""The bell's notices from real rows (console-spec §2, §7, §9 bizType 1-6; api/notices.py): the overview's
counts per kind, the notice list, announcements and their read marks, licence applications and their
approval; each scoped to the caller's enterprise tree and to what the caller may read."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings
from protocols.china_time import CHINA_TZ
from tests.integration.api.conftest import Demo
from tests.integration.api.test_alarms_api import _enterprise, add_alarm
from tests.integration.api.test_commands_api import make_vehicle
from tests.integration.api.test_console_api import User, bearer, make_user
from warehouse.db import connect

READER = {"car": ["query"], "driver": ["query"], "alarm": ["query"]}
ADMIN = {**READER, "notify": ["add", "query", "get", "update", "delete"], "license": ["query", "get", "update"]}


@dataclass(frozen=True)
class Tree:
    root: int
    child: int
    other: int
    root_admin: User
    child_user: User
    other_user: User


def _today() -> date:
    from datetime import datetime
    return datetime.now(CHINA_TZ).date()


def _day(days: int) -> str:
    return (_today() + timedelta(days=days)).isoformat()


def _car(pg_url: str, enterprise_id: int, *, insurance: str | None = None, inspection: str | None = None,
         deleted: bool = False) -> int:
    [target] = make_vehicle(pg_url, enterprise_id, online=False)
    with connect(pg_url) as conn:
        conn.execute("UPDATE car SET insurance_expire = %s, inspection_expire = %s, record_state = %s WHERE id = %s",
                     (insurance, inspection, 0 if deleted else 1, target.car_id))
        conn.commit()
    return target.car_id


def _driver(pg_url: str, enterprise_id: int, licence_expire: str, *, deleted: bool = False) -> int:
    with connect(pg_url) as conn:
        row = conn.execute("INSERT INTO driver (enterprise_id, name, license_expire, record_state)"
                           " VALUES (%s, %s, %s, %s) RETURNING id",
                           (enterprise_id, "驾驶员" + uuid.uuid4().hex[:4], licence_expire, 0 if deleted else 1)).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0])


def ok(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


def overview(client: FlaskClient, headers: dict[str, str]) -> dict[int, int]:
    return {e["bizType"]: e["total"] for e in ok(client.get("/api/notice/overView.json", headers=headers))}


def notices(client: FlaskClient, headers: dict[str, str], **conditions: Any) -> list[dict[str, Any]]:
    page = ok(client.post("/api/query/notice.json?countable=true&pageNo=1&pageSize=100", headers=headers,
                          json=conditions))
    assert page["total"] == len(page["list"])
    return page["list"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def tree(pg_url: str) -> Tree:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        child = _enterprise(conn, root)
        other = _enterprise(conn, None)
        conn.commit()
    return Tree(root, child, other, make_user(pg_url, root, ADMIN), make_user(pg_url, child, READER),
                make_user(pg_url, other, ADMIN))


def test_each_kind_is_counted_from_its_rows_in_the_callers_tree_only(
        client: FlaskClient, pg_url: str, tree: Tree) -> None:
    admin, child, other = (bearer(client, u.name) for u in (tree.root_admin, tree.child_user, tree.other_user))
    before = {name: overview(client, h) for name, h in (("admin", admin), ("child", child), ("other", other))}
    _car(pg_url, tree.root, insurance=_day(10), inspection=_day(100))  # insurance due; inspection far off
    _car(pg_url, tree.root, inspection=_day(-5))  # overdue
    _car(pg_url, tree.root, insurance=_day(1), deleted=True)  # a deleted vehicle is no notice
    child_car = _car(pg_url, tree.child, insurance=_day(30))  # the window's last day
    _car(pg_url, tree.other, insurance=_day(3), inspection=_day(3))  # another group's
    _driver(pg_url, tree.child, _day(20))
    _driver(pg_url, tree.root, _day(31))  # one day outside the window
    _driver(pg_url, tree.root, _day(2), deleted=True)
    [alarmed] = make_vehicle(pg_url, tree.child, online=False)
    add_alarm(pg_url, tree.child, alarmed, "a0", flags=1, minutes_ago=3)
    add_alarm(pg_url, tree.child, alarmed, "a0", flags=1, minutes_ago=2, state=2)  # handled

    after = {name: overview(client, h) for name, h in (("admin", admin), ("child", child), ("other", other))}
    grew = {name: {t: after[name][t] - before[name][t] for t in range(1, 7)} for name in after}
    assert grew["admin"] == {1: 0, 2: 2, 3: 1, 4: 1, 5: 0, 6: 1}  # its own and its subsidiary's
    assert grew["child"] == {1: 0, 2: 1, 3: 0, 4: 1, 5: 0, 6: 1}  # its own only
    assert grew["other"] == {1: 0, 2: 1, 3: 1, 4: 0, 5: 0, 6: 0}

    listed = notices(client, child)
    kinds = sorted((n["bizType"], n["kind"]) for n in listed)
    assert kinds == [(2, "insurance"), (4, "licence"), (6, None)]
    insurance = next(n for n in listed if n["bizType"] == 2)
    assert (insurance["carId"], insurance["daysLeft"], insurance["title"]) == (child_car, 30, "车辆保险到期")
    english = ok(client.post("/api/query/notice.json?pageNo=1&pageSize=100", json={"bizType.eq": 4},
                             headers={**child, "Accept-Language": "en-US"}))["list"]
    assert [n["title"] for n in english] == ["Driving licence expiring"]


def test_a_caller_without_the_reads_gets_no_notices_of_those_kinds(
        client: FlaskClient, pg_url: str, tree: Tree) -> None:
    _car(pg_url, tree.root, insurance=_day(1))
    _driver(pg_url, tree.root, _day(1))
    nobody = make_user(pg_url, tree.root, {"dashboard": ["query"]})
    h = bearer(client, nobody.name)
    counts = overview(client, h)
    assert [counts[t] for t in (1, 2, 3, 4, 6)] == [0, 0, 0, 0, 0]
    assert {n["bizType"] for n in notices(client, h)} <= {5}
    assert client.get("/api/notice/overView.json").json["code"] == 40002
    assert client.post("/api/query/notice.json", json={}).json["code"] == 40002


def test_an_announcement_reaches_its_subtree_and_counts_until_read(
        client: FlaskClient, pg_url: str, tree: Tree) -> None:
    admin, child, other = (bearer(client, u.name) for u in (tree.root_admin, tree.child_user, tree.other_user))
    before = {name: overview(client, h)[5] for name, h in (("admin", admin), ("child", child), ("other", other))}
    created = ok(client.post("/api/common/announcement.json", headers=admin,
                             json={"title": "春节值班安排", "content": "除夕夜间值班请提前报备", "enterpriseId": tree.root}))
    assert created["publishedBy"] == tree.root_admin.name
    only_child = ok(client.post("/api/common/announcement.json", headers=admin,
                                json={"title": "子公司通知", "content": "仅子公司", "enterpriseId": tree.child}))
    after = {name: overview(client, h)[5] for name, h in (("admin", admin), ("child", child), ("other", other))}
    assert (after["admin"] - before["admin"], after["child"] - before["child"], after["other"]) == (1, 2, before["other"])
    shown = {n["bizId"]: n for n in notices(client, child, **{"bizType.eq": 5})}
    assert shown[created["id"]]["title"] == "春节值班安排" and shown[created["id"]]["content"] == "除夕夜间值班请提前报备"
    assert shown[created["id"]]["read"] == 0 and only_child["id"] in shown
    assert created["id"] not in {n["bizId"] for n in notices(client, other, **{"bizType.eq": 5})}

    assert ok(client.post(f"/api/notice/{created['id']}/read.json", headers=child)) == {"id": created["id"], "read": 1}
    ok(client.post(f"/api/notice/{created['id']}/read.json", headers=child))  # again: no change
    assert overview(client, child)[5] == after["child"] - 1
    assert overview(client, admin)[5] == after["admin"]  # read marks are per user
    assert {n["bizId"]: n["read"] for n in notices(client, child, **{"bizType.eq": 5})}[created["id"]] == 1
    # another group's user, and an id that is no announcement of the caller's: 404 alike
    assert client.post(f"/api/notice/{created['id']}/read.json", headers=other).status_code == 404
    assert client.post(f"/api/notice/{only_child['id']}/read.json", headers=admin).status_code == 404

    ok(client.delete(f"/api/common/announcement/{only_child['id']}.json", headers=admin))
    assert only_child["id"] not in {n["bizId"] for n in notices(client, child, **{"bizType.eq": 5})}


def test_publishing_needs_notify_add_and_an_audience_inside_the_publishers_tree(
        client: FlaskClient, tree: Tree) -> None:
    child, admin, other = (bearer(client, u.name) for u in (tree.child_user, tree.root_admin, tree.other_user))
    body = {"title": "无权发布", "content": "x", "enterpriseId": tree.child}
    assert client.post("/api/common/announcement.json", headers=child, json=body).status_code == 403
    outside = client.post("/api/common/announcement.json", headers=other, json=body)
    assert outside.status_code == 404 and outside.json["data"]["field"] == "enterpriseId"
    for bad in ({"content": "无标题"}, {"title": "x" * 101, "content": "x"}, {"title": "t", "content": "x" * 1001}):
        assert client.post("/api/common/announcement.json", headers=admin, json=bad).status_code == 400


def _apply(client: FlaskClient, company: str) -> int:
    address = f"10.{random.randint(0, 255)}.{random.randint(0, 255)}.{random.randint(1, 254)}"
    reply = client.post("/api/license/apply.json", environ_base={"REMOTE_ADDR": address},
                        json={"company": company, "contact": "张三", "phone": "13800138000",
                              "email": "zhang@example.com", "vehicles": 50})
    return int(ok(reply)["id"])


def test_licence_applications_wait_for_an_administrator_of_the_installation(
        client: FlaskClient, pg_url: str, tree: Tree) -> None:
    admin, child = bearer(client, tree.root_admin.name), bearer(client, tree.child_user.name)
    waiting = overview(client, admin)[1]
    application = _apply(client, "示范物流有限公司")
    assert overview(client, admin)[1] == waiting + 1
    assert overview(client, child)[1] == 0  # a subsidiary is not the installation's operator
    listed = ok(client.post("/api/common/query/licenceApply.json?pageNo=1&pageSize=10", headers=admin,
                            json={"id.eq": application}))["list"]
    assert [(r["company"], r["state"], r["vehicles"]) for r in listed] == [("示范物流有限公司", 0, 50)]
    assert any(n["bizType"] == 1 and n["bizId"] == application for n in notices(client, admin, **{"bizType.eq": 1}))

    url = f"/api/license/apply/{application}/approve.json"
    reader = make_user(pg_url, tree.root, {"license": ["query"]})
    assert client.post(url, headers=bearer(client, reader.name), json={"state": 1}).status_code == 403
    child_admin = make_user(pg_url, tree.child, ADMIN)
    assert client.post(url, headers=bearer(client, child_admin.name), json={"state": 1}).status_code == 404
    for bad in ({"state": 3}, {"state": True}, {"state": 1, "opinion": "x" * 251}, {"state": 1, "other": 1}):
        assert client.post(url, headers=admin, json=bad).status_code == 400
    decided = ok(client.post(url, headers=admin, json={"state": 1, "opinion": "同意试用"}))
    assert (decided["state"], decided["handledBy"], decided["opinion"]) == (1, tree.root_admin.name, "同意试用")
    assert overview(client, admin)[1] == waiting
    assert client.post(url, headers=admin, json={"state": 2}).status_code == 409  # decided once
    assert client.post("/api/license/apply/999999999/approve.json", headers=admin, json={"state": 1}).status_code == 404


@pytest.fixture
def narrow_app(pg_url: str, demo: Demo, tmp_path: Path) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="integration-secret", notice_insurance_days=5, notice_inspection_days=0,
                           notice_licence_days=60)
    app = create_app(settings, pg_url, var_dir=tmp_path)
    try:
        yield app
    finally:
        get_db(app).close()


def test_the_expiry_windows_are_settings(narrow_app: Flask, pg_url: str) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        conn.commit()
    _car(pg_url, root, insurance=_day(10), inspection=_day(1))
    _car(pg_url, root, insurance=_day(5), inspection=_day(0))
    _driver(pg_url, root, _day(45))
    client = narrow_app.test_client()
    h = bearer(client, make_user(pg_url, root, READER).name)
    counts = overview(client, h)
    assert (counts[2], counts[3], counts[4]) == (1, 1, 1)
    assert sorted(n["daysLeft"] for n in notices(client, h) if n["bizType"] in (2, 3, 4)) == [0, 5, 45]
