"""Where a new vehicle or user goes: the enterprise the body names (the car and user forms' enterprise
field), which must be the caller's own or one of its subtree; anything else is a 404 naming the
``enterpriseId`` field (the form shows it there), exactly like an enterprise that does not exist, and
nothing is created."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_fleet_api import _digits
from tests.integration.api.test_org_api import PASSWORD, tag

Login = Callable[[str], dict[str, str]]


def _body(entity: str) -> dict[str, Any]:
    if entity == "car":
        return {"plateNumber": f"京W{_digits(6)}"}
    return {"userName": f"u{tag()}", "password": PASSWORD}


def _count(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any]) -> int:
    key = "plateNumber" if entity == "car" else "userName"
    reply = client.post(f"/api/common/count/{entity}.json", headers=headers, json={f"{key}.eq": body[key]})
    assert reply.status_code == 200, reply.json
    return int(reply.json["data"])


@pytest.mark.parametrize("entity", ["car", "user"])
def test_a_parent_administrator_creates_in_a_subsidiary_it_names(
    client: FlaskClient, login: Login, demo: Demo, entity: str
) -> None:
    parent = login("admin")
    reply = client.post(f"/api/common/{entity}.json", headers=parent,
                        json={**_body(entity), "enterpriseId": demo.enterprises["b"]})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["enterpriseId"] == demo.enterprises["b"]


@pytest.mark.parametrize("entity", ["car", "user"])
@pytest.mark.parametrize("target", ["parent", "b", "missing"])
def test_refuses_to_create_outside_the_callers_subtree_naming_the_enterprise_field(
    client: FlaskClient, login: Login, demo: Demo, entity: str, target: str
) -> None:
    a = login("admin_a")
    enterprise = 999_999_999 if target == "missing" else demo.enterprises[target]
    body = _body(entity)
    reply = client.post(f"/api/common/{entity}.json", headers=a, json={**body, "enterpriseId": enterprise})
    assert reply.status_code == 404, reply.json
    assert reply.json["data"] == {"field": "enterpriseId"}
    assert f"enterprise {enterprise} does not exist or is outside your enterprise tree" in error_text(reply, "en-US")
    assert _count(client, login("admin"), entity, body) == 0


def test_a_foreign_enterprise_answers_exactly_like_a_missing_one(client: FlaskClient, login: Login, demo: Demo) -> None:
    a = login("admin_a")
    foreign = client.post("/api/common/car.json", headers=a, json={**_body("car"), "enterpriseId": demo.enterprises["b"]})
    missing = client.post("/api/common/car.json", headers=a, json={**_body("car"), "enterpriseId": 999_999_999})
    assert foreign.status_code == missing.status_code == 404
    assert (error_text(foreign, "en-US").replace(str(demo.enterprises["b"]), "N")
            == error_text(missing, "en-US").replace("999999999", "N"))


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
