"""Followed cars (platform-spec §7 POST /api/common/query/carUserView.json): each user keeps their own list of
vehicles of their scope; nobody reads or changes another's, and a car outside the scope cannot be followed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.db import get_db
from tests.integration.api.conftest import Demo

Login = Callable[[str], dict[str, str]]


def followed(client: FlaskClient, headers: dict[str, str], **params: Any) -> list[dict[str, Any]]:
    reply = client.post("/api/common/query/carUserView.json", headers=headers, json={},
                        query_string={"pageSize": 1000, "countable": "true", **params})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["total"] == len(reply.json["data"]["list"])
    return reply.json["data"]["list"]


@pytest.fixture(autouse=True)
def no_follows(client: FlaskClient) -> Iterator[None]:
    def clear() -> None:
        with get_db(client.application).connection() as conn:
            conn.execute("DELETE FROM car_user")

    clear()
    yield
    clear()


def test_a_user_follows_and_unfollows_a_car_of_their_scope(client: FlaskClient, login: Login, demo: Demo) -> None:
    headers = login("admin_a")
    assert followed(client, headers) == []
    for _ in range(2):  # following twice is one follow
        reply = client.put(f"/api/car/{demo.a.car_id}/follow.json", headers=headers)
        assert reply.status_code == 200 and reply.json["data"] == {"carId": demo.a.car_id, "followed": True}
    rows = followed(client, headers)
    assert [(r["carId"], r["vin"], r["enterpriseId"]) for r in rows] == [(demo.a.car_id, demo.a.vin, demo.a.enterprise_id)]
    assert rows[0]["followTime"] and rows[0]["plateNumber"]
    count = client.post("/api/common/count/carUserView.json", headers=headers, json={})
    assert count.status_code == 200 and count.json["data"] == 1

    for _ in range(2):
        reply = client.delete(f"/api/car/{demo.a.car_id}/follow.json", headers=headers)
        assert reply.status_code == 200 and reply.json["data"] == {"carId": demo.a.car_id, "followed": False}
    assert followed(client, headers) == []


def test_the_list_is_the_callers_own(client: FlaskClient, login: Login, demo: Demo) -> None:
    assert client.put(f"/api/car/{demo.a.car_id}/follow.json", headers=login("admin")).status_code == 200
    # the group's administrator sees A's car in their subtree and follows it; A's administrator does not
    # see that follow, and the parent's own-enterprise list (isParent=false) leaves the subsidiary's car out
    assert [r["carId"] for r in followed(client, login("admin"))] == [demo.a.car_id]
    assert followed(client, login("admin_a")) == []
    assert followed(client, login("admin"), isParent="false") == []
    # a condition on userId cannot reach another's list
    reply = client.post("/api/common/query/carUserView.json", headers=login("admin_a"),
                        json={"conditions": {"userId.ne": 0}}, query_string={"pageSize": 100})
    assert reply.status_code == 200 and reply.json["data"]["list"] == []


def test_a_car_of_another_enterprise_cannot_be_followed(client: FlaskClient, login: Login, demo: Demo) -> None:
    for method in (client.put, client.delete):
        reply = method(f"/api/car/{demo.b.car_id}/follow.json", headers=login("admin_a"))
        assert reply.status_code == 404 and reply.json["code"] == 404
    assert client.put("/api/car/999999999/follow.json", headers=login("admin_a")).status_code == 404
    assert followed(client, login("admin_a")) == []
    assert client.put(f"/api/car/{demo.a.car_id}/follow.json").status_code == 401
