"""Error envelopes speak the caller's language (console-spec §8, the error catalogue): ``localMessage`` in the language
of the console's X-Fleet-Language header (else Accept-Language, else zh-CN); ``message`` stays
bilingual for older clients."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from flask.testing import FlaskClient

from api.errors import localise, split_bilingual
from tests.integration.api.conftest import Demo

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
    assert body["message"] == "用户名或密码错误 (wrong user name or password)"


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
    assert "does not exist" in reply.json["localMessage"] and "不存在" not in reply.json["localMessage"]
    assert "不存在" in reply.json["message"]


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
