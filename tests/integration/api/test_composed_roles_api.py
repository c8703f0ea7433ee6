"""Rights that compose (api/rights.py), through the real app on the demo seed: a role granting only
the live map (实时监控, ``monitor``) may make every call the live map makes, and nothing more: no
write, no other screen's data, no other menu entry; the role editor's catalogue says what each right
opens and brings."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from api.errors import FORBIDDEN_TEXT
from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import User, bearer, make_user, paths

LIVE_MAP_ONLY = {"monitor": ["query", "get"]}


@pytest.fixture(scope="module")
def live_map_user(pg_url: str, demo: Demo) -> User:
    return make_user(pg_url, demo.enterprises["parent"], LIVE_MAP_ONLY)


@pytest.fixture
def headers(client: FlaskClient, live_map_user: User) -> dict[str, str]:
    return bearer(client, live_map_user.name)


def _live_map_calls(demo: Demo, user_id: int) -> list[tuple[str, str, dict[str, Any], Any]]:
    """(method, url, query, body) of every call the live map makes (dashboards/src/features/map/model/api.ts,
    dashboards/src/features/alarm/api.ts for the notification settings), as the console sends them."""
    subtree = {"isParent": "true"}
    page = {**subtree, "countable": "false", "pageNo": 1, "pageSize": 1000}
    return [
        ("GET", "/api/user/current.json", {}, None),
        ("GET", "/api/system/mapConfig.json", {}, None),
        ("GET", "/api/aas/subsidiary.json", {"select": "id,shortName,children"}, None),
        ("POST", "/api/common/query/group.json", {**page, "select": "id,name,enterpriseId,parentId"}, {}),
        ("POST", "/api/common/query/carView.json",
         {**page, "orderBy": "lastOnlineTime", "desc": "true", "select": "carId,plateNumber,masterDeviceId"}, {}),
        ("POST", "/api/gps/last.json", subtree, {}),
        ("GET", f"/api/gps/device/{demo.a.device_id}/last.json", subtree, None),
        ("POST", "/api/common/query/gps.json", {**page, "orderBy": "time", "desc": "true"},
         {"deviceId.in": [demo.a.device_id, demo.b.device_id]}),
        ("GET", "/api/regeo/geocode.json", {"lng": 116.4, "lat": 39.9}, None),
        ("POST", "/api/common/query/deviceUploadFile.json",  # the popup's latest photo
         {**subtree, "countable": "false", "pageNo": 1, "pageSize": 1, "orderBy": "time", "desc": "true"},
         {"deviceId.eq": demo.a.device_id, "mediaType.eq": 0}),
        ("POST", "/api/common/query/alarmLevelUserSettingRuleView.json",
         {"select": "alarmKey,alarmRule,source", "pageNo": 1, "pageSize": 1000},
         {"userId.eq": user_id, "alarmRule.exists": True}),
        ("GET", "/api/alarm/notify/settings.json", {}, None),
        ("GET", "/api/notice/overView.json", {}, None),
    ]


def test_a_live_map_only_role_gets_200_on_every_call_the_live_map_makes(
    client: FlaskClient, demo: Demo, live_map_user: User, headers: dict[str, str]
) -> None:
    for method, url, query, body in _live_map_calls(demo, live_map_user.id):
        reply = client.open(url, method=method, headers=headers, query_string=query, json=body)
        assert reply.status_code == 200, (method, url, reply.status_code, reply.json)
        assert reply.json is None or reply.json.get("code", 0) == 0, (url, reply.json)


def test_a_live_map_only_role_reads_the_whole_subtree_the_map_shows(
    client: FlaskClient, demo: Demo, headers: dict[str, str]
) -> None:
    cars = client.post("/api/common/query/carView.json", headers=headers, json={},
                       query_string={"isParent": "true", "pageSize": 1000, "select": "carId,enterpriseId"})
    assert cars.status_code == 200, cars.json
    owners = {row["enterpriseId"] for row in cars.json["data"]["list"]}  # type: ignore[index]
    assert owners == set(demo.enterprises.values())
    tree = client.get("/api/aas/subsidiary.json", headers=headers, query_string={"select": "id,children"})
    assert [child["id"] for child in tree.json["data"][0]["children"]]  # type: ignore[index]


@pytest.mark.parametrize(("method", "url", "needed"), [
    ("PATCH", "/api/common/car/{car}.json", "car:update"),
    ("POST", "/api/common/car.json", "car:add"),
    ("DELETE", "/api/common/group/{group}.json", "group:delete"),
    ("POST", "/api/common/enterprise.json", "enterprise:add"),
    ("POST", "/api/common/query/driver.json", "driver:query"),
    ("POST", "/api/common/query/device.json", "device:query"),
    ("POST", "/api/common/query/user.json", "user:query"),
    ("GET", "/api/common/car/{car}.json", "car:get"),
    ("POST", "/api/common/query/onlineLog.json", "onlineLog:query"),
    ("GET", "/api/aas/permission.json", "role:query"),
    ("POST", "/api/common/export/deviceUploadFile.csv", "evidence:export"),
    ("POST", "/api/common/export/car.csv", "car:export"),
])
def test_a_live_map_only_role_gets_403_on_writes_and_other_screens_data(
    client: FlaskClient, demo: Demo, headers: dict[str, str], method: str, url: str, needed: str
) -> None:
    target = url.format(car=demo.a.car_id, group=demo.groups["a"])
    reply = client.open(target, method=method, headers=headers, query_string={"isParent": "true"}, json={})
    assert reply.status_code == 403, (method, target, reply.json)
    assert reply.json is not None and reply.json["message"] == FORBIDDEN_TEXT
    assert reply.json["data"] == {"permission": needed}


def test_a_live_map_only_role_gets_only_the_live_map_menu_and_its_own_permissions(
    client: FlaskClient, headers: dict[str, str]
) -> None:
    reply = client.get("/api/user/current.json", headers=headers)
    data = reply.json["data"]  # type: ignore[index]
    assert data["permissions"] == [{"code": "monitor", "actions": ["get", "query"]}]  # implied reads are not grants
    screens = {path for path, entry in paths(data["routes"]).items() if not entry["children"]}
    # the notice list (the bell's messages), the welcome and home pages are every signed-in user's, as the
    # account pages are
    assert screens == {"/dashboard/map", "/welcome", "/home", "/account/center", "/account/settings",
                       "/setting/notify/List"}
    for other in ("/list/car", "/list/group", "/report/dailyMileage", "/cockpit/index", "/dashboard/monitor",
                  "/list/alarm", "/user/role"):
        assert other in data["deniedPaths"]
    assert "/dashboard/map" not in data["deniedPaths"]


def test_the_catalogue_says_what_each_right_opens_and_brings(client: FlaskClient, login: Any) -> None:
    reply = client.get("/api/aas/permission.json", headers=login("admin"))
    entries = {entry["code"]: entry for entry in reply.json["data"]}  # type: ignore[index]
    monitor = entries["monitor"]
    assert {"title": "menu.dashboard.map", "action": ""} in monitor["opens"]
    assert {"title": "menu.dashboard.monitor", "action": "video"} in monitor["opens"]
    assert {"code": "car", "actions": ["query"]} in monitor["implies"]
    assert {"code": "gps", "actions": ["get", "query"]} in monitor["implies"]
    assert entries["car"]["opens"] == [{"title": "menu.list.car", "action": ""},
                                       {"title": "menu.gb32960.chargingLog", "action": ""}]
    assert entries["car"]["implies"] == []
    assert {"title": "menu.cockpit.index", "action": ""} in entries["dashboard"]["opens"]


def test_a_role_editor_cannot_grant_a_read_it_only_has_implied(
    client: FlaskClient, pg_url: str, demo: Demo
) -> None:
    editor = make_user(pg_url, demo.enterprises["parent"], {"monitor": ["query"], "role": ["query", "add"]})
    reply = client.post("/api/common/role.json", headers=bearer(client, editor.name),
                        json={"name": "car readers", "permissions": [{"code": "car", "actions": ["query"]}]})
    assert reply.status_code == 403, reply.json
