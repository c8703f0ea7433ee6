"""The console's endpoints against the real database: current user and route map, profile,
password change, map config, notices, and the enterprise counters (with other-enterprise cases).

Users that change state (passwords, throttling, profiles) are created per test, so the demo admins
keep the demo password for the other suites sharing the session database.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from api.routes.console import PASSWORD_INVALID, local_midnight
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD

Login = Callable[[str], dict[str, str]]
PASSWORD = "right-pass-1"
ONLINE, OFFLINE = 3, 2  # DeviceState


@dataclass(frozen=True)
class User:
    id: int
    name: str
    enterprise_id: int


def make_user(pg_url: str, enterprise_id: int, permissions: dict[str, list[str]] | None = None) -> User:
    """A user of ``enterprise_id`` with a role holding ``permissions`` (none: no role at all)."""
    name = f"it_{uuid.uuid4().hex[:10]}"
    with connect(pg_url) as conn:
        user_id = conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name, email)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (enterprise_id, name, hash_password(PASSWORD), "测试用户", name, f"{name}@example.com"),
        ).fetchone()[0]  # type: ignore[index]
        if permissions:
            role_id = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                                   (enterprise_id, f"role {name}")).fetchone()[0]  # type: ignore[index]
            for code, actions in permissions.items():
                conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                             (role_id, code, actions))
            conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        conn.commit()
    return User(int(user_id), name, enterprise_id)


def token_of(client: FlaskClient, user: str, password: str = PASSWORD) -> dict[str, Any]:
    reply = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": user,
                                                          "password": password})
    assert reply.json is not None
    return reply.json


def bearer(client: FlaskClient, user: str, password: str = PASSWORD) -> dict[str, str]:
    reply = token_of(client, user, password)
    assert reply["code"] == 0, reply
    return {"Authorization": f"Bearer {reply['data']['access_token']}"}


def paths(routes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for entry in routes:
        found[entry["path"]] = entry
        found |= paths(entry["children"])
    return found


ALL_ACTIONS = {"car": ["query", "get"], "dashboard": ["query"], "monitor": ["query", "get"]}


# --- current user and route map --------------------------------------------------------------


def test_current_user_carries_profile_permissions_and_route_map(client: FlaskClient, login: Login,
                                                                demo: Demo) -> None:
    reply = client.get("/api/user/current.json", headers=login("admin_a"))
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    data = reply.json["data"]
    assert data["userName"] == "admin_a" and data["enterpriseId"] == demo.enterprises["a"]
    assert data["enterpriseName"] == "北京示范运输集团第一分公司"
    assert {"id", "name", "nickName", "email", "phone", "avatar", "profile"} <= set(data)
    perms = {p["code"]: p["actions"] for p in data["permissions"]}
    assert {"query", "get"} <= set(perms["car"]) and "video" in perms["monitor"]
    routes = paths(data["routes"])
    assert {"/dashboard", "/dashboard/index", "/dashboard/map", "/account/center", "/account/settings",
            "/cockpit/index", "/cockpit/nev1/index"} <= set(routes)
    assert routes["/dashboard/map"]["component"] == "dashboard/map"
    assert routes["/dashboard/map"]["meta"]["closable"] is False
    assert routes["/dashboard/index"]["meta"]["title"] == "menu.dashboard.index"
    assert routes["/account/settings"]["meta"]["invisible"] is True
    assert routes["/cockpit/index"]["meta"]["target"] == "_blank"
    for entry in routes.values():
        assert set(entry["meta"]) >= {"title", "icon", "permission", "invisible", "link", "highlight",
                                      "closable", "cacheAble"}
        assert entry["meta"]["title"].startswith("menu.")


def test_route_map_keeps_only_what_the_permissions_allow(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    monitor_only = make_user(pg_url, demo.enterprises["a"], {"monitor": ["query"]})
    data = client.get("/api/user/current.json", headers=bearer(client, monitor_only.name)).json["data"]
    routes = paths(data["routes"])
    assert "/dashboard/map" in routes and "/dashboard/index" not in routes
    assert "/cockpit/index" not in routes and "/account/center" in routes
    assert data["permissions"] == [{"code": "monitor", "actions": ["query"]}]


def test_user_without_permissions_gets_only_open_routes(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    nobody = make_user(pg_url, demo.enterprises["b"])
    data = client.get("/api/user/current.json", headers=bearer(client, nobody.name)).json["data"]
    assert data["permissions"] == []
    # the welcome and home pages, the account pages and the bell's notice list (announcements reach every user
    # of their audience)
    assert {entry["path"] for entry in data["routes"]} == {"/welcome", "/home", "/account", "/setting"}


def test_current_user_needs_a_token_and_an_active_account(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    missing = client.get("/api/user/current.json")
    assert missing.status_code == 401 and missing.json["code"] == 40002
    user = make_user(pg_url, demo.enterprises["a"])
    headers = bearer(client, user.name)
    with connect(pg_url) as conn:
        conn.execute("UPDATE app_user SET state = 0 WHERE id = %s", (user.id,))
        conn.commit()
    disabled = client.get("/api/user/current.json", headers=headers)
    assert disabled.status_code == 401 and disabled.json["code"] == 40002


# --- profile ---------------------------------------------------------------------------------


def test_profile_update_is_read_back_and_touches_only_the_caller(client: FlaskClient, pg_url: str,
                                                                 login: Login, demo: Demo) -> None:
    user = make_user(pg_url, demo.enterprises["a"])
    headers = bearer(client, user.name)
    body = {"email": "ops@example.cn", "nickName": "调度员", "profile": "夜班", "country": "中国",
            "province": "北京", "city": "北京", "address": "朝阳区 1 号", "phone": "13800138000"}
    reply = client.put("/api/user/profile.json", headers=headers, json=body)
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    current = client.get("/api/user/current.json", headers=headers).json["data"]
    assert {key: current[key] for key in body} == body
    admin = client.get("/api/user/current.json", headers=login("admin_a")).json["data"]
    assert admin["email"] != "ops@example.cn"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"email": "not-an-email"}, "not an email address"),
        ({"email": ""}, "email is required"),
        ({"nickName": " "}, "nickname is required"),
        ({"phone": "12ab"}, "not a phone number"),
        ({"role": "admin"}, "unknown profile field"),
        ({"nickName": "x" * 33}, "longer than 32"),
        ({}, "non-empty JSON object"),
    ],
)
def test_profile_update_rejects_bad_input(client: FlaskClient, login: Login, body: dict[str, Any],
                                          message: str) -> None:
    reply = client.put("/api/user/profile.json", headers=login("admin_b"), json=body)
    assert reply.status_code == 400 and message in error_text(reply, "en-US"), reply.json


# --- password change -------------------------------------------------------------------------


def change(client: FlaskClient, headers: dict[str, str], user_id: int, **body: Any) -> Any:
    return client.patch(f"/api/common/user/{user_id}.json", headers=headers, json=body)


def test_password_change_revokes_refresh_tokens_and_the_new_password_signs_in(
    client: FlaskClient, pg_url: str, demo: Demo
) -> None:
    user = make_user(pg_url, demo.enterprises["a"])
    session = token_of(client, user.name)["data"]
    headers = {"Authorization": f"Bearer {session['access_token']}"}
    reply = change(client, headers, user.id, id=user.id, account=user.name, oldPassword=PASSWORD,
                   password="new-pass-2", confirmPassword="new-pass-2")
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    assert reply.json["data"]["revokedRefreshTokens"] >= 1
    refresh = client.get("/oauth2/token.json", query_string={"grant_type": "refresh_token",
                                                              "refresh_token": session["refresh_token"]})
    assert refresh.json["code"] == 40002
    assert token_of(client, user.name)["code"] == 401
    assert token_of(client, user.name, "new-pass-2")["code"] == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"password": "abc12345", "confirmPassword": "abc12345"}, "旧密码不能为空"),
        ({"oldPassword": PASSWORD, "confirmPassword": "abc12345"}, "新密码不能为空"),
        ({"oldPassword": PASSWORD, "password": "abc12345"}, "确认密码不能为空"),
        ({"oldPassword": PASSWORD, "password": "12345678", "confirmPassword": "12345678"}, PASSWORD_INVALID),
        ({"oldPassword": PASSWORD, "password": "ab1", "confirmPassword": "ab1"}, PASSWORD_INVALID),
        ({"oldPassword": PASSWORD, "password": "abcdefgh12345678x", "confirmPassword": "abcdefgh12345678x"},
         PASSWORD_INVALID),
        ({"oldPassword": PASSWORD, "password": "abc12345", "confirmPassword": "abc12346"},
         "two password entries are inconsistent"),
        ({"oldPassword": "wrong-pass-9", "password": "abc12345", "confirmPassword": "abc12345"}, "old password is wrong"),
        ({"oldPassword": PASSWORD, "password": "abc12345", "confirmPassword": "abc12345", "account": "admin"},
         "account does not match"),
    ],
)
def test_password_change_rules_and_messages(client: FlaskClient, pg_url: str, demo: Demo,
                                            body: dict[str, Any], message: str) -> None:
    user = make_user(pg_url, demo.enterprises["a"])
    reply = change(client, bearer(client, user.name), user.id, **body)
    assert reply.status_code == 400 and reply.json["code"] == 400, reply.json
    # the spec's Chinese texts are the message; the rules without one are named in the English text
    chinese = any("\u4e00" <= char <= "\u9fff" for char in message)
    assert message in (reply.json["message"] if chinese else error_text(reply, "en-US")), reply.json
    assert token_of(client, user.name)["code"] == 0, "a refused change must keep the old password"


def test_password_of_another_user_answers_404_like_a_missing_one(client: FlaskClient, pg_url: str,
                                                                 demo: Demo) -> None:
    caller = make_user(pg_url, demo.enterprises["a"], {"user": ["update", "query", "get"]})
    same_enterprise = make_user(pg_url, demo.enterprises["a"])
    other_enterprise = make_user(pg_url, demo.enterprises["b"])
    headers = bearer(client, caller.name)
    body = {"oldPassword": PASSWORD, "password": "abc12345", "confirmPassword": "abc12345"}
    replies = [change(client, headers, target, id=target, **body).json
               for target in (same_enterprise.id, other_enterprise.id, 999_999_999)]
    assert [r["code"] for r in replies] == [404, 404, 404]
    assert len({r["message"].replace(str(t), "N") for r, t in
                zip(replies, (same_enterprise.id, other_enterprise.id, 999_999_999), strict=True)}) == 1
    for target in (same_enterprise, other_enterprise):
        assert token_of(client, target.name)["code"] == 0


def test_body_id_must_match_the_path(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    user = make_user(pg_url, demo.enterprises["a"])
    reply = change(client, bearer(client, user.name), user.id, id=user.id + 1, oldPassword=PASSWORD,
                   password="abc12345", confirmPassword="abc12345")
    assert reply.status_code == 400 and "does not match the path id" in error_text(reply, "en-US")


def test_wrong_old_passwords_throttle_the_account(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    user = make_user(pg_url, demo.enterprises["a"])
    headers = bearer(client, user.name)
    body = {"oldPassword": "wrong-pass-9", "password": "abc12345", "confirmPassword": "abc12345"}
    codes = [change(client, headers, user.id, **body).json["code"] for _ in range(3)]
    assert codes == [400, 400, 429]  # the session app allows 3 failures
    right = change(client, headers, user.id, oldPassword=PASSWORD, password="abc12345", confirmPassword="abc12345")
    assert right.status_code == 429 and right.json["data"]["retryAfter"] > 0
    assert token_of(client, user.name)["code"] == 429


# --- map config and notices -----------------------------------------------------------------


def test_map_config_defaults(client: FlaskClient, login: Login) -> None:
    reply = client.get("/api/system/mapConfig.json", headers=login("admin_b"))
    assert reply.json["code"] == 0
    data = reply.json["data"]
    assert data["tiandituKey"] == data["bingKey"] == data["amapKey"] == ""
    assert data["mapCenter"] == {"lng": 116.39, "lat": 39.91}
    assert (data["defaultZoom"], data["maxZoom"], data["defaultBaseLayer"]) == (11, 18, "osm")
    assert data["baseLayers"] == ["blank", "osm", "tianditu", "amap", "arcgis", "bing", "baidu", "google"]
    assert client.get("/api/system/mapConfig.json").json["code"] == 40002


@pytest.fixture
def keyed_app(pg_url: str, demo: Demo, tmp_path: Path) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="integration-secret", map_tianditu_key="tdt-key", map_bing_key="bing-key",
                           map_amap_key="amap-key", map_center_lng=121.47, map_center_lat=31.23,
                           map_default_base_layer="tianditu")
    app = create_app(settings, pg_url, var_dir=tmp_path)
    try:
        yield app
    finally:
        get_db(app).close()


def test_map_config_comes_from_settings(keyed_app: Flask, login: Login) -> None:
    data = keyed_app.test_client().get("/api/system/mapConfig.json", headers=login("admin_a")).json["data"]
    assert (data["tiandituKey"], data["bingKey"], data["amapKey"]) == ("tdt-key", "bing-key", "amap-key")
    assert data["mapCenter"] == {"lng": 121.47, "lat": 31.23} and data["defaultBaseLayer"] == "tianditu"


def test_notice_overview_lists_every_biz_type(client: FlaskClient, login: Login) -> None:
    """Every kind of console-spec §9 once, in order, with a count (the counts against notices a test makes
    itself: tests/integration/api/test_notices_api.py; other modules of the session may have made some)."""
    reply = client.get("/api/notice/overView.json", headers=login("admin_a"))
    data = reply.json["data"]
    assert [entry["bizType"] for entry in data] == list(range(1, 7))
    assert all(set(entry) == {"bizType", "total"} and isinstance(entry["total"], int) and entry["total"] >= 0
               for entry in data)
    assert client.get("/api/notice/overView.json").json["code"] == 40002


# --- enterprise counters ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fleet:
    root: int
    child: int
    root_user: User
    child_user: User


def _enterprise(conn: Any, name: str, parent: int | None) -> int:
    eid = conn.execute("INSERT INTO enterprise (parent_id, name, short_name) VALUES (%s, %s, %s) RETURNING id",
                       (parent, name, name)).fetchone()[0]
    conn.execute("UPDATE enterprise SET path = COALESCE((SELECT path FROM enterprise WHERE id = %s), '/')"
                 " || id || '/' WHERE id = %s", (parent, eid))
    return int(eid)


def _car(conn: Any, enterprise_id: int, state: int | None, biz_state: int = 4,
         online_time: datetime | None = None, logged_online_at: datetime | None = None) -> None:
    """A car; with a master device in ``state`` unless ``state`` is None (car without device)."""
    tag = uuid.uuid4().hex[:8]
    car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                          (enterprise_id, f"R{tag}")).fetchone()[0]
    if state is None:
        return
    device_id = conn.execute(
        "INSERT INTO device (enterprise_id, car_id, phone, device_sn, state, biz_state, online_time)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (enterprise_id, car_id, f"7{int(tag, 16):011d}"[-12:], f"SN{tag}", state, biz_state, online_time),
    ).fetchone()[0]
    conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
    if logged_online_at is not None:
        conn.execute("INSERT INTO device_online_log (device_id, at, state, enterprise_id) VALUES (%s, %s, 1, %s)",
                     (device_id, logged_online_at, enterprise_id))


@pytest.fixture(scope="module")
def fleet(pg_url: str, demo: Demo) -> Fleet:
    """A root enterprise with a subsidiary, outside the demo tree, with cars in known states."""
    today = local_midnight(datetime.now(UTC))
    with connect(pg_url) as conn:
        root = _enterprise(conn, f"报表测试集团 {uuid.uuid4().hex[:6]}", None)
        child = _enterprise(conn, f"报表测试分公司 {uuid.uuid4().hex[:6]}", root)
        for biz in (1, 1, 2, 3, 4):  # online: 2 running, 1 parking, 1 flameout, 1 no signal
            _car(conn, root, ONLINE, biz)
        _car(conn, root, ONLINE, 0)  # online session but business state offline: offline
        _car(conn, root, OFFLINE, 1, online_time=today + timedelta(minutes=1))  # was online today
        _car(conn, root, OFFLINE, 2, logged_online_at=today + timedelta(minutes=2))  # logged today
        _car(conn, root, OFFLINE, 2, online_time=today - timedelta(minutes=5),
             logged_online_at=today - timedelta(minutes=5))  # only yesterday (local time)
        _car(conn, root, None)  # no device
        _car(conn, child, ONLINE, 1)
        _car(conn, child, OFFLINE, 0)
        conn.commit()
    return Fleet(root, child, make_user(pg_url, root, ALL_ACTIONS), make_user(pg_url, child, ALL_ACTIONS))


def report(client: FlaskClient, headers: dict[str, str], name: str, **params: str) -> Any:
    return client.post(f"/api/common/query/{name}.json", headers=headers, json={}, query_string=params)


def test_biz_state_report_counts_the_enterprise_cars(client: FlaskClient, fleet: Fleet) -> None:
    reply = report(client, bearer(client, fleet.root_user.name), "enterpriseCarBizstateReport", countable="false",
                   isParent="false")
    assert reply.status_code == 200, reply.json
    assert reply.json["data"] == {"running": 2, "parking": 1, "flameout": 1, "noSignal": 1, "offline": 5, "total": 10}


def test_biz_state_report_includes_subsidiaries_unless_own_only(client: FlaskClient, fleet: Fleet) -> None:
    root = bearer(client, fleet.root_user.name)
    for subtree in ({}, {"isParent": "true"}):
        data = report(client, root, "enterpriseCarBizstateReport", **subtree).json["data"]
        assert data == {"running": 3, "parking": 1, "flameout": 1, "noSignal": 1, "offline": 6, "total": 12}
    child = bearer(client, fleet.child_user.name)
    own = report(client, child, "enterpriseCarBizstateReport", isParent="true").json["data"]
    assert own == {"running": 1, "parking": 0, "flameout": 0, "noSignal": 0, "offline": 1, "total": 2}


def test_counters_never_include_another_enterprise(client: FlaskClient, fleet: Fleet, login: Login,
                                                   pg_url: str, demo: Demo) -> None:
    with connect(pg_url) as conn:
        demo_cars = conn.execute(
            "SELECT count(*) FROM car c JOIN enterprise e ON e.id = c.enterprise_id WHERE e.path LIKE %s"
            " AND c.record_state = 1",
            (f"%/{demo.enterprises['a']}/",)).fetchone()[0]  # type: ignore[index]
    data = report(client, login("admin_a"), "enterpriseCarBizstateReport", isParent="true").json["data"]
    assert data["total"] == demo_cars
    online_a = report(client, login("admin_a"), "enterpriseTodayOnlineCarReport", isParent="true").json["data"]
    assert online_a["total"] <= demo_cars
    parts = [report(client, login(user), "enterpriseCarBizstateReport", isParent="false").json["data"]["total"]
             for user in ("admin", "admin_a", "admin_b")]
    tree = report(client, login("admin"), "enterpriseCarBizstateReport").json["data"]
    assert tree["total"] == sum(parts) and parts[1] == demo_cars
    sub = report(client, bearer(client, fleet.child_user.name), "enterpriseCarBizstateReport").json["data"]
    assert sub["total"] == 2  # the child never sees its parent's (or the demo's) cars


def test_today_online_report_counts_cars_online_since_local_midnight(client: FlaskClient, fleet: Fleet) -> None:
    root = bearer(client, fleet.root_user.name)
    # online now: 5 (biz 1-4) + 1 (biz 0); today: 1 by online_time + 1 by the log; not the one from yesterday
    assert report(client, root, "enterpriseTodayOnlineCarReport", isParent="false").json["data"] == {"total": 8}
    assert report(client, root, "enterpriseTodayOnlineCarReport").json["data"] == {"total": 9}


def test_counters_need_car_query(client: FlaskClient, pg_url: str, fleet: Fleet) -> None:
    # track data only: neither car:query nor a screen code implying it (api/rights.py: the live map does)
    without_cars = make_user(pg_url, fleet.root, {"gps": ["query"]})
    headers = bearer(client, without_cars.name)
    for name in ("enterpriseCarBizstateReport", "enterpriseTodayOnlineCarReport"):
        reply = report(client, headers, name)
        assert reply.status_code == 403 and reply.json["code"] == 403
        assert report(client, {}, name).json["code"] == 40002


def test_demo_admins_still_sign_in_with_the_demo_password(client: FlaskClient, demo: Demo) -> None:
    for user in ("admin", "admin_a", "admin_b"):
        assert token_of(client, user, DEMO_PASSWORD)["code"] == 0


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
