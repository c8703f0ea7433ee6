"""GET /api/regeo/geocode.json (console-spec §7): offline reverse geocoding behind gps:get."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user

Login = Callable[[str], dict[str, str]]
URL = "/api/regeo/geocode.json"


def test_answers_the_district_of_a_point_in_china(client: FlaskClient, login: Login) -> None:
    reply = client.get(URL, query_string={"lng": "116.3975", "lat": "39.9087"}, headers=login("admin_a"))
    assert reply.status_code == 200, reply.json
    assert reply.json["data"] == {"address": "北京市东城区", "province": "北京市", "city": "北京市",
                                  "district": "东城区", "adcode": "110101"}


def test_a_point_at_sea_has_an_empty_address(client: FlaskClient, login: Login) -> None:
    reply = client.get(URL, query_string={"lng": "115", "lat": "20"}, headers=login("admin_a"))
    assert reply.status_code == 200 and reply.json["code"] == 0
    assert reply.json["data"]["address"] == ""


@pytest.mark.parametrize(
    ("query", "field", "text"),
    [({"lat": "39.9"}, "lng", "missing parameter lng"),
     ({"lng": "116.4"}, "lat", "missing parameter lat"),
     ({"lng": "east", "lat": "39.9"}, "lng", "lng must be a number"),
     ({"lng": "116.4", "lat": "nan"}, "lat", "lat must be a finite number"),
     ({"lng": "190", "lat": "39.9"}, "lng", "lng must be between -180 and 180"),
     ({"lng": "116.4", "lat": "-91"}, "lat", "lat must be between -90 and 90")],
)
def test_bad_coordinates_get_a_400_naming_the_parameter(
    client: FlaskClient, login: Login, query: dict[str, str], field: str, text: str
) -> None:
    reply = client.get(URL, query_string=query, headers=login("admin_a"))
    assert reply.status_code == 400 and reply.json["code"] == 400
    assert text in error_text(reply, "en-US") and reply.json["data"] == {"field": field}


def test_needs_a_session_and_the_gps_permission(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    query = {"lng": "116.4", "lat": "39.9"}
    assert client.get(URL, query_string=query).json["code"] == 40002
    user = make_user(pg_url, demo.enterprises["a"], {"car": ["query", "get"]})
    reply = client.get(URL, query_string=query, headers=bearer(client, user.name))
    assert reply.status_code == 403


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
