"""The settings screens db, sourceCodeLog and openPlatform (platform-spec §2 settings), server side: the database's health (root
enterprise only, one guarded action), the version log, and the open platform's apps with their
client_credentials tokens (allowed API groups, disabled apps, rate limit, tenant isolation)."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions, partition_name

Login = Callable[[str], dict[str, str]]


def _data(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


# --- db -------------------------------------------------------------------------------------------


def test_database_report_shows_version_partitions_and_what_retention_would_drop(
    client: FlaskClient, login: Login, pg_url: str
) -> None:
    ancient = date(2001, 1, 1)  # far past any retention: due to be dropped
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, ancient, days_ahead=0)
    data = _data(client.get("/api/system/db.json", headers=login("admin")))
    assert data["version"] and data["partitioning"] == "native" and data["timescaledb"] is None
    assert data["sizeBytes"] > 0 and 0 < data["connections"] <= data["maxConnections"]
    assert {"gps", "device", "car"} <= {t["name"] for t in data["tables"]}
    by_name = {p["name"]: p for p in data["partitions"]}
    old = by_name[partition_name(ancient)]
    assert old["day"] == "2001-01-01" and old["expired"] is True and old["sizeBytes"] > 0
    assert by_name["gps_default"]["day"] is None and by_name["gps_default"]["expired"] is False
    retention = data["retention"]
    assert retention["days"] == 180
    assert retention["expiredPartitions"] == sum(1 for p in data["partitions"] if p["expired"]) >= 1
    assert retention["expiredBytes"] >= old["sizeBytes"]
    assert not any(p["expired"] for p in data["partitions"] if p["day"] and p["day"] >= retention["cutoff"])


def test_database_action_creates_todays_and_tomorrows_partitions(client: FlaskClient, login: Login) -> None:
    created = _data(client.post("/api/system/db/partitions.json", headers=login("admin")))["created"]
    names = {p["name"] for p in _data(client.get("/api/system/db.json", headers=login("admin")))["partitions"]}
    assert set(created) <= names
    assert _data(client.post("/api/system/db/partitions.json", headers=login("admin")))["created"] == []


def test_database_screen_is_for_the_root_enterprise_only(client: FlaskClient, login: Login) -> None:
    for path, method in (("/api/system/db.json", "GET"), ("/api/system/db/partitions.json", "POST")):
        reply = client.open(path, method=method, headers=login("admin_a"))  # holds db:query and db:add
        assert reply.status_code == 403 and "root enterprise" in error_text(reply, "en-US"), reply.json


# --- sourceCodeLog --------------------------------------------------------------------------------


def test_version_log_shows_version_commit_migrations_and_release_notes(client: FlaskClient, login: Login) -> None:
    data = _data(client.get("/api/system/version.json", headers=login("admin_a")))
    assert data["version"] == "0.1.0"
    assert data["commit"] is None or len(data["commit"]) == 40
    ids = [m["id"] for m in data["migrations"]]
    assert ids[0] == "0001_core_schema" and "0012_open_platform" in ids
    assert all(m["appliedAt"] for m in data["migrations"])
    titles = [r["title"] for r in data["releases"]]
    assert "Walking skeleton" in titles and any(t.startswith("Administration") for t in titles)
    assert all(r["items"] for r in data["releases"])


# --- openPlatform ---------------------------------------------------------------------------------


def new_app(client: FlaskClient, headers: dict[str, str], **fields: Any) -> dict[str, Any]:
    body = {"name": f"app-{uuid.uuid4().hex[:8]}", "apis": "vehicles", "rateLimitPerMin": 1000, **fields}
    return _data(client.post("/api/common/openApp.json", headers=headers, json=body))


def app_token(client: FlaskClient, app: dict[str, Any], secret: str | None = None) -> Any:
    return client.post("/oauth2/token.json", query_string={
        "grant_type": "client_credentials", "client_id": app["appKey"], "client_secret": secret or app["appSecret"]})


def app_headers(client: FlaskClient, app: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {_data(app_token(client, app))['access_token']}"}


def test_app_secret_is_shown_once_and_stored_hashed(client: FlaskClient, login: Login, pg_url: str) -> None:
    admin = login("admin_a")
    app = new_app(client, admin, apis="positions,vehicles,positions")
    assert app["appKey"].startswith("fw") and len(app["appSecret"]) >= 40
    assert app["apis"] == "positions,vehicles" and app["state"] == 1
    again = _data(client.get(f"/api/common/openApp/{app['id']}.json", headers=admin))
    assert "appSecret" not in again and "secretHash" not in again
    listed = _data(client.post("/api/common/query/openApp.json", headers=admin, json={"id": app["id"]}))["list"]
    assert listed and "appSecret" not in listed[0] and "secretHash" not in listed[0]
    with connect(pg_url) as conn:
        stored = conn.execute("SELECT secret_hash FROM open_app WHERE id = %s", (app["id"],)).fetchone()
        audit = conn.execute("SELECT changes::text FROM audit_log WHERE entity = 'openApp' AND record_id = %s",
                             (app["id"],)).fetchone()
    assert stored is not None and app["appSecret"] not in stored[0] and len(stored[0]) == 64
    assert audit is not None and app["appSecret"] not in audit[0]


def test_app_token_answers_allowed_apis_and_403_outside_them(client: FlaskClient, login: Login, demo: Demo) -> None:
    app = new_app(client, login("admin_a"), apis="vehicles")
    token = _data(app_token(client, app))
    assert token["token_type"] == "bearer" and "refresh_token" not in token and token["scope"] == "vehicles"
    headers = {"Authorization": f"Bearer {token['access_token']}"}
    cars = _data(client.post("/api/common/query/carView.json", headers=headers, json={}))["list"]
    assert cars and {c["enterpriseId"] for c in cars} == {demo.enterprises["a"]}
    assert _data(client.get(f"/api/car/{demo.a.car_id}/state.json", headers=headers)) is not None
    for method, path in (("GET", f"/api/gps/car/{demo.a.car_id}/last.json"),  # positions not allowed
                         ("POST", "/api/common/car.json"),  # vehicles is read-only
                         ("POST", "/api/common/query/user.json")):
        reply = client.open(path, method=method, headers=headers, json={})
        assert reply.status_code == 403, (path, reply.json)
    reply = client.post("/api/common/query/user.json", headers=headers, json={})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "user:query"
    # routes for signed-in users only refuse an app's token
    assert client.get("/api/user/current.json", headers=headers).status_code == 401


def test_app_credentials_by_http_basic_and_wrong_secret(client: FlaskClient, login: Login) -> None:
    app = new_app(client, login("admin_a"))
    basic = base64.b64encode(f"{app['appKey']}:{app['appSecret']}".encode()).decode()
    reply = client.post("/oauth2/token.json", query_string={"grant_type": "client_credentials"},
                        headers={"Authorization": f"Basic {basic}"})
    assert _data(reply)["access_token"]
    wrong = app_token(client, app, secret="x" * 43)
    assert wrong.status_code == 401 and wrong.json["code"] == 401
    unknown = app_token(client, {**app, "appKey": "fwnope"})
    assert unknown.status_code == 401 and unknown.json["message"] == wrong.json["message"]


@pytest.fixture(scope="module")
def strict_app(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The API re-checking sessions on every request (no 15 s trust): revocation is seen at once."""
    settings = ApiSettings(token_secret="integration-secret", session_check_ttl_s=0)
    app = create_app(settings, pg_url, var_dir=tmp_path_factory.mktemp("api-var-strict"))
    try:
        yield app
    finally:
        get_db(app).close()


def test_disabled_app_is_refused_and_its_tokens_end(strict_app: Flask, login: Login) -> None:
    client = strict_app.test_client()
    client.environ_base["HTTP_X_FLEET_LANGUAGE"] = "en-US"
    admin = bearer(client, "admin_a", "Fleet@2026")
    app = new_app(client, admin)
    headers = app_headers(client, app)
    assert client.post("/api/common/query/carView.json", headers=headers, json={}).status_code == 200
    _data(client.patch(f"/api/common/openApp/{app['id']}.json", headers=admin, json={"state": 0}))
    refused = app_token(client, app)
    assert refused.status_code == 403 and "disabled" in error_text(refused, "en-US")
    assert client.post("/api/common/query/carView.json", headers=headers, json={}).json["code"] == 40002
    _data(client.patch(f"/api/common/openApp/{app['id']}.json", headers=admin, json={"state": 1}))
    assert client.post("/api/common/query/carView.json", headers=app_headers(client, app), json={}).status_code == 200


def test_a_new_secret_is_shown_once_and_the_old_one_stops(strict_app: Flask) -> None:
    client = strict_app.test_client()
    admin = bearer(client, "admin_a", "Fleet@2026")
    app = new_app(client, admin)
    old_headers = app_headers(client, app)
    fresh = _data(client.post(f"/api/common/openApp/{app['id']}/secret.json", headers=admin))
    assert fresh["appKey"] == app["appKey"] and fresh["appSecret"] != app["appSecret"]
    assert app_token(client, app).status_code == 401
    assert app_token(client, {**app, "appSecret": fresh["appSecret"]}).status_code == 200
    assert client.post("/api/common/query/carView.json", headers=old_headers, json={}).json["code"] == 40002


def test_rate_limit_per_minute_answers_429(client: FlaskClient, login: Login) -> None:
    app = new_app(client, login("admin_a"), rateLimitPerMin=3)
    headers = app_headers(client, app)
    replies = [client.post("/api/common/count/carView.json", headers=headers, json={}) for _ in range(4)]
    assert [r.status_code for r in replies[:3]] == [200, 200, 200], [r.json for r in replies]
    # the fourth call is refused unless the minute turned between the calls (then it counts anew)
    last = replies[3]
    if last.status_code == 200:
        replies = [client.post("/api/common/count/carView.json", headers=headers, json={}) for _ in range(3)]
        last = replies[-1]
    assert last.status_code == 429 and last.json["code"] == 429
    assert 1 <= last.json["data"]["retryAfter"] <= 60 and last.json["data"]["limit"] == 3


def test_apps_are_isolated_between_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    app_a = new_app(client, login("admin_a"))
    b = login("admin_b")
    assert client.get(f"/api/common/openApp/{app_a['id']}.json", headers=b).status_code == 404
    assert client.patch(f"/api/common/openApp/{app_a['id']}.json", headers=b, json={"state": 0}).status_code == 404
    assert client.post(f"/api/common/openApp/{app_a['id']}/secret.json", headers=b).status_code == 404
    listed = _data(client.post("/api/common/query/openApp.json", headers=b, json={"id": app_a["id"]}))["list"]
    assert listed == []
    # A's app sees A's vehicles only, even when it asks for B's
    headers = app_headers(client, app_a)
    assert client.get(f"/api/common/carView/{demo.b.car_id}.json", headers=headers).status_code == 404
    cars = _data(client.post("/api/common/query/carView.json", headers=headers, query_string={"isParent": "true"},
                             json={}))["list"]
    assert demo.b.car_id not in {c["carId"] for c in cars}


def test_app_fields_are_checked(client: FlaskClient, login: Login) -> None:
    admin = login("admin_a")
    for body, field in (({"name": "x", "apis": "vehicles,nope"}, "apis"), ({"name": "x", "rateLimitPerMin": 0},
                                                                            "rateLimitPerMin"),
                        ({"name": "x", "appKey": "mine"}, None)):
        reply = client.post("/api/common/openApp.json", headers=admin, json=body)
        assert reply.status_code == 400, reply.json
        if field:
            assert reply.json["data"]["field"] == field
    app = new_app(client, admin, state=None, remark=None)  # null: the defaults
    assert app["state"] == 1 and app["rateLimitPerMin"] == 1000
    same = _data(client.patch(f"/api/common/openApp/{app['id']}.json", headers=admin,
                              json={"state": None, "rateLimitPerMin": None, "apis": None}))
    assert same["state"] == 1 and same["rateLimitPerMin"] == 1000 and same["apis"] == ""
    clash = client.post("/api/common/openApp.json", headers=admin, json={"name": app["name"]})
    assert clash.status_code == 409 and clash.json["data"]["field"] == "name"


def test_api_catalogue_lists_the_groups(client: FlaskClient, login: Login, pg_url: str, demo: Demo) -> None:
    groups = {g["name"]: g for g in _data(client.get("/api/openPlatform/apis.json", headers=login("admin_a")))}
    assert {"vehicles", "positions"} <= set(groups)
    assert {"code": "gps", "actions": ["get", "query"]} in groups["positions"]["permissions"]
    nobody = make_user(pg_url, demo.enterprises["a"], {"car": ["query"]})
    assert client.get("/api/openPlatform/apis.json", headers=bearer(client, nobody.name)).status_code == 403


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
