"""Enterprise scoping: a subsidiary never sees another's records; a parent sees its subtree, its own
enterprise only with isParent=false. Every list and detail endpoint has its other-enterprise test here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo

Login = Callable[[str], dict[str, str]]


def get(client: FlaskClient, headers: dict[str, str], path: str, **params: Any) -> Any:
    return client.get(path, headers=headers, query_string=params)


def post(client: FlaskClient, headers: dict[str, str], path: str, body: Any = None, **params: Any) -> Any:
    return client.post(path, headers=headers, json=body or {}, query_string={"pageSize": 1000, **params})


def ids(reply: Any, key: str) -> set[int]:
    assert reply.status_code == 200, reply.json
    return {row[key] for row in reply.json["data"]["list"]}


def assert_not_found(reply: Any) -> None:
    assert reply.status_code == 404, reply.json
    assert reply.json["code"] == 404 and reply.json["data"] is None


# --- detail endpoints ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/common/carView/{car}.json",
        "/api/car/{car}/state.json",
        "/api/car/{car}/bizState.json",
        "/api/gps/car/{car}/last.json",
        "/api/gps/vin/{vin}/last.json",
    ],
)
def test_returns_404_for_vehicle_of_another_enterprise(client: FlaskClient, login: Login, demo: Demo, path: str) -> None:
    url = path.format(car=demo.b.car_id, vin=demo.b.vin)
    assert_not_found(get(client, login("admin_a"), url))
    assert_not_found(get(client, login("admin_a"), url, isParent="true"))
    own = path.format(car=demo.a.car_id, vin=demo.a.vin)
    assert get(client, login("admin_a"), own).json["code"] == 0


@pytest.mark.parametrize(
    "path",
    [
        "/api/common/device/{id}.json",
        "/api/common/deviceCar/{id}.json",
        "/api/device/{id}/state.json",
        "/api/device/{id}/bizState.json",
        "/api/gps/device/{id}/last.json",
    ],
)
def test_returns_404_for_device_of_another_enterprise(client: FlaskClient, login: Login, demo: Demo, path: str) -> None:
    assert_not_found(get(client, login("admin_a"), path.format(id=demo.b.device_id)))
    assert_not_found(get(client, login("admin_a"), path.format(id=demo.b.device_id), isParent="1"))
    assert get(client, login("admin_a"), path.format(id=demo.a.device_id)).json["code"] == 0


def test_unknown_id_answers_exactly_like_another_enterprises_id(client: FlaskClient, login: Login, demo: Demo) -> None:
    other = get(client, login("admin_a"), f"/api/common/carView/{demo.b.car_id}.json").json
    missing = get(client, login("admin_a"), "/api/common/carView/999999999.json").json
    assert other["code"] == missing["code"] == 404
    assert other["message"].replace(str(demo.b.car_id), "N") == missing["message"].replace("999999999", "N")


def test_parent_sees_subsidiary_vehicle_detail_unless_it_asks_for_its_own_only(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    url = f"/api/common/carView/{demo.a.car_id}.json"
    assert_not_found(get(client, login("admin"), url, isParent="false"))
    for subtree in ({}, {"isParent": "true"}, {"isParent": ""}):
        reply = get(client, login("admin"), url, **subtree)
        assert reply.json["code"] == 0 and reply.json["data"]["carId"] == demo.a.car_id


def test_subsidiary_cannot_see_parent_records_even_with_is_parent(client: FlaskClient, login: Login, demo: Demo) -> None:
    assert_not_found(get(client, login("admin_a"), f"/api/common/carView/{demo.parent.car_id}.json", isParent="true"))
    assert_not_found(get(client, login("admin_a"), f"/api/common/device/{demo.parent.device_id}.json", isParent="1"))


# --- list endpoints --------------------------------------------------------------------------


def test_vehicle_list_excludes_other_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    cars = ids(post(client, login("admin_a"), "/api/common/query/carView.json", isParent="true"), "carId")
    assert demo.a.car_id in cars and demo.b.car_id not in cars and demo.parent.car_id not in cars


def test_device_list_excludes_other_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    devices = ids(post(client, login("admin_b"), "/api/common/query/device.json", isParent="true"), "id")
    assert demo.b.device_id in devices and demo.a.device_id not in devices


def test_device_list_filtered_by_another_enterprises_car_is_empty(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = post(client, login("admin_a"), "/api/common/query/device.json", {"carId": demo.b.car_id})
    assert ids(reply, "id") == set()


def test_group_list_excludes_other_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    groups = ids(post(client, login("admin_a"), "/api/common/query/group.json"), "id")
    assert demo.groups["a"] in groups and demo.groups["b"] not in groups and demo.groups["parent"] not in groups


def test_gps_track_excludes_other_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = post(client, login("admin_a"), "/api/common/query/gps.json", {"deviceId.in": [demo.a.device_id, demo.b.device_id]})
    assert ids(reply, "deviceId") == {demo.a.device_id}


def test_count_excludes_other_enterprises(client: FlaskClient, login: Login, demo: Demo) -> None:
    def count(user: str, **params: Any) -> int:
        reply: Any = client.post("/api/common/count/carView.json", headers=login(user), json={}, query_string=params)
        return int(reply.json["data"])

    a, b, parent_own = count("admin_a"), count("admin_b"), count("admin", isParent="false")
    assert a > 0 and b > 0 and parent_own > 0
    assert count("admin_a", isParent="true") == count("admin_a", isParent="false") == a
    assert count("admin", isParent="true") == count("admin") == a + b + parent_own


def test_parent_lists_subsidiaries_unless_it_asks_for_its_own_only(client: FlaskClient, login: Login, demo: Demo) -> None:
    own = ids(post(client, login("admin"), "/api/common/query/carView.json", isParent="false"), "carId")
    assert demo.parent.car_id in own and demo.a.car_id not in own and demo.b.car_id not in own
    for subtree in ({}, {"isParent": "true"}):
        tree = ids(post(client, login("admin"), "/api/common/query/carView.json", **subtree), "carId")
        assert {demo.parent.car_id, demo.a.car_id, demo.b.car_id} <= tree


def test_enterprise_filter_cannot_escape_the_scope(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = post(client, login("admin_a"), "/api/common/query/carView.json", {"enterpriseId": demo.enterprises["b"]})
    assert ids(reply, "carId") == set()


# --- enterprise tree -------------------------------------------------------------------------


def test_parent_tree_lists_both_subsidiaries(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = get(client, login("admin"), "/api/aas/subsidiary.json", select="id,shortName,children")
    assert reply.json["code"] == 0
    (root,) = reply.json["data"]
    assert root["id"] == demo.enterprises["parent"] and root["shortName"] == "北京示范运输集团"
    # other tests add subsidiaries of their own: both demo subsidiaries are there
    assert {demo.enterprises["a"], demo.enterprises["b"]} <= {c["id"] for c in root["children"]}
    assert set(root) == {"id", "shortName", "children"}


def test_returns_404_for_subsidiary_tree_of_another_enterprise(client: FlaskClient, login: Login, demo: Demo) -> None:
    assert_not_found(get(client, login("admin_a"), "/api/aas/subsidiary.json", enterpriseId=demo.enterprises["b"]))
    assert_not_found(get(client, login("admin_a"), "/api/aas/subsidiary.json", enterpriseId=demo.enterprises["parent"]))
    (root,) = get(client, login("admin_a"), "/api/aas/subsidiary.json").json["data"]
    assert root["id"] == demo.enterprises["a"]
    assert not {c["id"] for c in root["children"]} & {demo.enterprises["b"], demo.enterprises["parent"]}


def test_cars_of_an_enterprise_are_those_of_the_named_enterprise_inside_the_callers_tree(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    """platform-spec §7 POST /api/car/enterprise.json?enterpriseId=: the parent names a subsidiary and
    gets its cars only with isParent=false, its subtree by default; a subsidiary naming its parent or
    sibling gets a 404."""
    root, a = login("admin"), login("admin_a")
    path = "/api/car/enterprise.json"
    of_a = ids(post(client, root, path, enterpriseId=demo.enterprises["a"]), "carId")
    assert demo.a.car_id in of_a and not of_a & {demo.b.car_id, demo.parent.car_id}
    own = ids(post(client, root, path, isParent="false"), "carId")
    assert demo.parent.car_id in own and demo.a.car_id not in own
    tree = ids(post(client, root, path, enterpriseId=demo.enterprises["parent"]), "carId")
    assert {demo.a.car_id, demo.b.car_id, demo.parent.car_id} <= tree
    filtered = ids(post(client, root, path, {"plateNumber.like": "no such plate"}, enterpriseId=demo.enterprises["a"]),
                   "carId")
    assert filtered == set()
    for foreign in (demo.enterprises["parent"], demo.enterprises["b"]):
        assert_not_found(post(client, a, path, enterpriseId=foreign))
