"""Hostile input answers a 400 envelope naming what is wrong, never a 500.

Each case here answered 500 before: the value reached PostgreSQL (NUL in text, an OFFSET beyond
bigint, an epoch beyond any calendar) or broke the parser (nesting, 5000-digit numbers, lone
surrogates, non-ASCII digits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text

Login = Callable[[str], dict[str, str]]
QUERY = "/api/common/query/carView.json"
TOKEN = "/oauth2/token.json"


def assert_bad_request(reply: Any, *fragments: str) -> None:
    assert reply.status_code == 400, (reply.status_code, reply.get_data()[:300])
    assert set(reply.json) == {"code", "message", "data", "localMessage"} and reply.json["code"] == 400
    for fragment in fragments:
        assert fragment in error_text(reply, "en-US"), error_text(reply, "en-US")


def post_raw(client: FlaskClient, headers: dict[str, str], body: bytes | str, path: str = QUERY) -> Any:
    return client.post(path, headers=headers, data=body, content_type="application/json")


# --- NUL bytes and invalid UTF-8, before anything reads them --------------------------------------


def test_nul_in_the_token_query_answers_400_without_signing_in(client: FlaskClient) -> None:
    reply = client.get(f"{TOKEN}?grant_type=password&username=adm%00in&password=x")
    assert_bad_request(reply, "NUL", "username")


def test_nul_in_the_token_form_answers_400(client: FlaskClient) -> None:
    reply = client.post(TOKEN, data={"grant_type": "password", "username": "admin", "password": "a\x00b"})
    assert_bad_request(reply, "NUL", "password")


def test_invalid_utf8_in_the_token_form_answers_400(client: FlaskClient) -> None:
    reply = client.post(TOKEN, data=b"grant_type=password&username=%ff%fe&password=x",
                        content_type="application/x-www-form-urlencoded")
    assert_bad_request(reply, "UTF-8", "username")


def test_nul_and_invalid_utf8_in_the_path_answer_400(client: FlaskClient, login: Login) -> None:
    assert_bad_request(client.get("/api/gps/vin/LFV%00X/last.json", headers=login("admin")), "NUL", "path")
    assert_bad_request(client.get("/api/gps/vin/LFV%FFX/last.json", headers=login("admin")), "UTF-8", "path")


def test_nul_in_a_query_parameter_answers_400(client: FlaskClient, login: Login) -> None:
    reply = client.post(f"{QUERY}?select=carId%00", headers=login("admin"), json={})
    assert_bad_request(reply, "NUL", "select")


def test_nul_in_a_header_answers_400(client: FlaskClient) -> None:
    reply = client.get("/api/user/current.json", headers={"Authorization": "Bearer x", "X-Trace": "a\x00b"})
    assert_bad_request(reply, "NUL", "X-Trace")


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"plateNumber.like": "京A\x00"}, "plateNumber.like"),
        ({"plateNumber": "\x00"}, "plateNumber"),
        ({"plateNumber.in": ["ok", "a\x00"]}, "plateNumber.in[1]"),
        ({"rangeConditions": [{"fieldName": "plateNumber", "start": "a\x00"}]}, "rangeConditions[0].start"),
    ],
)
def test_nul_in_json_text_answers_400_naming_the_field(
    client: FlaskClient, login: Login, body: dict[str, Any], where: str
) -> None:
    assert_bad_request(client.post(QUERY, headers=login("admin"), json=body), "NUL", where)


def test_lone_surrogate_in_json_text_answers_400(client: FlaskClient, login: Login) -> None:
    reply = post_raw(client, login("admin"), b'{"plateNumber.rlike": "\\ud800"}')
    assert_bad_request(reply, "UTF-8", "plateNumber.rlike")


def test_nul_in_a_profile_field_answers_400(client: FlaskClient, login: Login) -> None:
    reply = client.put("/api/user/profile.json", headers=login("admin_b"), json={"city": "北京\x00"})
    assert_bad_request(reply, "NUL", "city")


# --- JSON the parser cannot take --------------------------------------------------------------------


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_deeply_nested_json_answers_400(client: FlaskClient, login: Login, body: str) -> None:
    assert_bad_request(post_raw(client, login("admin"), body), "nested")


def test_deeply_nested_json_on_a_count_answers_400(client: FlaskClient, login: Login) -> None:
    assert_bad_request(post_raw(client, login("admin"), "[" * 100_000, "/api/common/count/device.json"), "JSON")


def test_number_with_thousands_of_digits_answers_400(client: FlaskClient, login: Login) -> None:
    assert_bad_request(post_raw(client, login("admin"), '{"carId": ' + "9" * 5000 + "}"), "number")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_answer_400(client: FlaskClient, login: Login, literal: str) -> None:
    assert_bad_request(post_raw(client, login("admin"), '{"carId.eq": ' + literal + "}"), "carId.eq")


# --- numbers beyond what the database holds ---------------------------------------------------------


@pytest.mark.parametrize("page_no", ["9223372036854775807", "99999999999999999999999", "2147483648"])
def test_page_number_beyond_the_maximum_answers_400(client: FlaskClient, login: Login, page_no: str) -> None:
    assert_bad_request(client.post(f"{QUERY}?pageNo={page_no}", headers=login("admin"), json={}), "pageNo")


def test_largest_page_number_answers_an_empty_page(client: FlaskClient, login: Login) -> None:
    reply = client.post(f"{QUERY}?pageNo=2147483647&pageSize=1000", headers=login("admin"), json={})
    assert reply.status_code == 200 and reply.json["data"]["list"] == []


@pytest.mark.parametrize("page_size", ["9223372036854775807", "1e3", "٣"])
def test_page_size_that_is_no_small_integer_answers_400(client: FlaskClient, login: Login, page_size: str) -> None:
    assert_bad_request(client.post(QUERY, headers=login("admin"), json={}, query_string={"pageSize": page_size}),
                       "pageSize")


@pytest.mark.parametrize(
    "body",
    [
        {"carId.eq": 99999999999999999999},
        {"carId.eq": "99999999999999999999"},
        {"carId.in": "1,99999999999999999999"},
        {"createTime.gt": 99999999999999999999},
        {"createTime.gt": "99999999999999999999"},
        {"createTime.gt": -99999999999999999},
        {"rangeConditions": [{"fieldName": "createTime", "start": 10**19}]},
    ],
)
def test_out_of_range_filter_values_answer_400_naming_the_field(
    client: FlaskClient, login: Login, body: dict[str, Any]
) -> None:
    field = next(iter(body)).split(".")[0] if "rangeConditions" not in body else "createTime"
    assert_bad_request(client.post(QUERY, headers=login("admin"), json=body), field)


def test_overlong_filter_text_answers_400(client: FlaskClient, login: Login) -> None:
    reply = client.post(QUERY, headers=login("admin"), json={"plateNumber.like": "京" * 5000})
    assert_bad_request(reply, "plateNumber", "1000")


def test_non_ascii_digits_in_enterprise_id_answer_400(client: FlaskClient, login: Login) -> None:
    reply = client.get("/api/aas/subsidiary.json", headers=login("admin"), query_string={"enterpriseId": "²"})
    assert_bad_request(reply, "enterpriseId")


def test_json_null_body_answers_400(client: FlaskClient, login: Login) -> None:
    assert_bad_request(post_raw(client, login("admin"), "null"), "JSON object")


def test_flags_take_only_the_documented_values(client: FlaskClient, login: Login, demo: Demo) -> None:
    headers = login("admin_a")
    for flag in ("isParent", "countable", "desc"):
        assert_bad_request(client.post(QUERY, headers=headers, json={}, query_string={flag: "yes please"}), flag)
    report = "/api/common/query/enterpriseTodayOnlineCarReport.json"
    assert_bad_request(client.post(report, headers=headers, query_string={"countable": "2"}), "countable")
    ok = client.post(QUERY, headers=headers, json={}, query_string={"isParent": "1", "countable": "true"})
    assert ok.status_code == 200 and ok.json["data"]["total"] >= 1


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
