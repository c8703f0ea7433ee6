"""Error envelopes (console-spec §8, platform-spec §8, the error catalogue): ``message`` is the spec's Chinese text,
the same for every caller (open-platform clients read it); ``localMessage`` is the text in the language of the
console's X-Fleet-Language header (else Accept-Language, else zh-CN)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from api.errors import FORBIDDEN_TEXT, LANGUAGES, localise, split_bilingual
from fleet.settings import ApiSettings
from fleet.zh_hk import to_hk
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user

Login = Callable[[str], dict[str, str]]


def wrong_password() -> dict[str, str]:
    """A failed sign-in of a user of its own (failures throttle per user name)."""
    return {"grant_type": "password", "username": f"lang_{uuid.uuid4().hex[:10]}", "password": "not-the-password"}


def test_wrong_password_answers_in_english_for_an_english_console(client: FlaskClient) -> None:
    reply = client.get("/oauth2/token.json", query_string=wrong_password(), headers={"X-Fleet-Language": "en-US"})
    assert reply.status_code == 401
    body = reply.json
    assert body is not None
    assert body["localMessage"] == "wrong user name or password"
    assert body["message"] == "用户名或密码错误"


def test_wrong_password_answers_in_traditional_chinese_for_zh_hk(client: FlaskClient) -> None:
    reply = client.get("/oauth2/token.json", query_string=wrong_password(), headers={"X-Fleet-Language": "zh-HK"})
    assert reply.json is not None and reply.json["localMessage"] == "用戶名稱或密碼錯誤"


def test_accept_language_is_used_without_the_console_header(client: FlaskClient) -> None:
    reply = client.get("/oauth2/token.json", query_string=wrong_password(), headers={"Accept-Language": "fr;q=0.9, en-GB;q=0.8"})
    assert reply.json is not None and reply.json["localMessage"] == "wrong user name or password"
    default = client.get("/oauth2/token.json", query_string=wrong_password(), headers={"Accept-Language": "fr"})
    assert default.json is not None and default.json["localMessage"] == "用户名或密码错误"


def test_the_console_header_wins_over_accept_language(client: FlaskClient) -> None:
    headers = {"X-Fleet-Language": "zh-CN", "Accept-Language": "en-US"}
    reply = client.get("/oauth2/token.json", query_string=wrong_password(), headers=headers)
    assert reply.json is not None and reply.json["localMessage"] == "用户名或密码错误"


def test_another_enterprises_vehicle_is_not_found_in_english(client: FlaskClient, login: Login, demo: Demo) -> None:
    headers = {**login("admin_a"), "X-Fleet-Language": "en-US"}
    reply = client.get(f"/api/gps/car/{demo.b.car_id}/last.json", headers=headers)
    assert reply.status_code == 404
    assert reply.json is not None
    assert "does not exist" in error_text(reply, "en-US")
    assert reply.json["message"] == f"car {demo.b.car_id} 不存在"


def test_successful_replies_carry_no_local_message(client: FlaskClient, login: Login, demo: Demo) -> None:
    headers = {**login("admin_a"), "X-Fleet-Language": "en-US"}
    reply = client.get(f"/api/gps/car/{demo.a.car_id}/last.json", headers=headers)
    assert reply.status_code == 200
    assert reply.json is not None and "localMessage" not in reply.json


def test_a_message_that_is_not_bilingual_is_the_same_in_every_language() -> None:
    assert split_bilingual("no such endpoint: GET /api/x") is None
    assert split_bilingual("数据 (a) 和 (b)") == ("数据 (a) 和", "b")
    assert localise("no such endpoint: GET /api/x", "en-US") == "no such endpoint: GET /api/x"
    assert localise("查询时间范围不能超过 31 天 (the time range may not exceed 31 days)", "en-US") == (
        "the time range may not exceed 31 days"
    )


# --- one error of each class, in the three languages --------------------------------------------------------------

def _in_every_language(send: Callable[[dict[str, str]], Any]) -> dict[str, dict[str, Any]]:
    """{language: reply body} of the same failing request sent by a console of each language."""
    bodies = {}
    for language in LANGUAGES:
        reply = send({"X-Fleet-Language": language})
        error_text(reply, language)  # message Chinese only; localMessage present (English for en-US)
        bodies[language] = reply.json
    return bodies


def _check(bodies: dict[str, dict[str, Any]], code: int, chinese: str, english: str) -> None:
    assert {body["code"] for body in bodies.values()} == {code}
    assert {body["message"] for body in bodies.values()} == {chinese}, bodies  # the spec's text for everyone
    expected = {"zh-CN": chinese, "zh-HK": to_hk(chinese), "en-US": english}
    assert {language: body["localMessage"] for language, body in bodies.items()} == {
        language: expected[language] for language in bodies}


def test_400_bad_request(client: FlaskClient, login: Login) -> None:
    bodies = _in_every_language(lambda lang: client.post(
        "/api/common/query/carView.json", headers={**login("admin_a"), **lang}, json={"bogus.eq": 1}))
    _check(bodies, 400, "未知字段：bogus", "unknown field(s) for carView: bogus")


def test_401_wrong_password(client: FlaskClient) -> None:
    bodies = _in_every_language(lambda lang: client.get("/oauth2/token.json", query_string=wrong_password(),
                                                        headers=lang))
    _check(bodies, 401, "用户名或密码错误", "wrong user name or password")


def test_40002_session_invalid(client: FlaskClient) -> None:
    bodies = _in_every_language(lambda lang: client.post("/api/common/query/carView.json", json={},
                                                         headers={**lang}))
    _check(bodies, 40002, "缺少访问令牌", "missing bearer access token")


def test_403_names_the_missing_permission(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    nobody = make_user(pg_url, demo.enterprises["a"])  # no role: no permission at all
    auth = bearer(client, nobody.name)
    bodies = _in_every_language(lambda lang: client.post("/api/common/query/carView.json", json={},
                                                         headers={**auth, **lang}))
    _check(bodies, 403, FORBIDDEN_TEXT, "permission denied: car:query")
    assert all(body["data"] == {"permission": "car:query"} for body in bodies.values())


def test_404_not_found(client: FlaskClient, login: Login, demo: Demo) -> None:
    bodies = _in_every_language(lambda lang: client.get(f"/api/gps/car/{demo.b.car_id}/last.json",
                                                        headers={**login("admin_a"), **lang}))
    _check(bodies, 404, f"car {demo.b.car_id} 不存在", "does not exist")


def test_409_conflict(client: FlaskClient, login: Login) -> None:
    name = f"冲突{uuid.uuid4().hex[:6]}"
    url = "/api/common/platformAlarmRule.json"
    assert client.post(url, headers=login("admin_a"), json={"name": name}).status_code == 200
    bodies = _in_every_language(lambda lang: client.post(url, headers={**login("admin_a"), **lang},
                                                         json={"name": name}))
    _check(bodies, 409, "name 已存在", "platformAlarmRule with this name already exists")


def test_429_too_many_failed_logins(client: FlaskClient) -> None:
    attempt = wrong_password()
    for _ in range(3):  # the integration app locks a user name out after 3 failures
        client.get("/oauth2/token.json", query_string=attempt)
    bodies = _in_every_language(lambda lang: client.get("/oauth2/token.json", query_string=attempt, headers=lang))
    for language, body in bodies.items():  # the wait counts down between the three requests
        wait = body["data"]["retryAfter"]
        _check({language: body}, 429, f"登录失败次数过多，请 {wait} 秒后再试", f"too many failed logins; try again in {wait} s")


@pytest.fixture
def dead_database_app(tmp_path: Path) -> Any:
    # Port 9 (discard) refuses connections: the database is down for this app.
    app = create_app(ApiSettings(token_secret="dead-db-secret"), "postgresql://nobody@127.0.0.1:9/none", var_dir=tmp_path)
    get_db(app).pool.timeout = 0.5  # a connection that cannot come: the 503 after 0.5 s, not the product's 5 s
    try:
        yield app
    finally:
        get_db(app).close()


def test_503_unavailable(dead_database_app: Flask) -> None:
    client = dead_database_app.test_client()
    bodies = _in_every_language(lambda lang: client.get("/api/health.json", headers=lang))
    english = bodies["en-US"]["localMessage"]
    assert english.startswith("database unavailable: ")
    _check(bodies, 503, "数据库不可用", english)
    assert all(body["data"] == {"db": "unavailable"} for body in bodies.values())
