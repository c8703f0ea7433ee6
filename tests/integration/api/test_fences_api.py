"""Fences, label points, bindings, district outlines and the area vehicle search through the real app.

The generic entity rules (create-then-read, other enterprise 404, missing action 403, bad values 400) run over
``fence`` and ``labelPoint`` in test_entities_api.py; here: each shape, the geometry rules, the attribute bit
set, binding many cars (only of the fence's subtree), the spreadsheet import, geoMapData and the area search.
Every test makes its own fences and cars (the demo's stay untouched).
"""

from __future__ import annotations

import io
import json
import math
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.query.entities import WRITABLE
from fleet.alarm_catalog import describe
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_entities_api import create
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
SQUARE = [[116.30, 39.90], [116.32, 39.90], [116.32, 39.92], [116.30, 39.92]]
HOLE = [[116.305, 39.905], [116.315, 39.905], [116.315, 39.915], [116.305, 39.915]]
ROUTE = {"segments": [
    {"points": [[116.30, 39.90], [116.31, 39.90]], "width": 50, "minTime": 30, "maxTime": 600, "speedLimit": 60},
    {"points": [[116.31, 39.90], [116.31, 39.91]], "width": 50},
    {"points": [[116.31, 39.91], [116.32, 39.91]], "width": 80, "overspeedDuration": 10, "speedLimit": 40},
]}


def fence_body(**extra: Any) -> dict[str, Any]:
    return {"name": f"f{uuid.uuid4().hex[:10]}", "fenceType": 2, "businessType": 1, "shape": "circle",
            "geometry": {"center": [116.397, 39.909], "radius": 300}, **extra}


def new_fence(client: FlaskClient, headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    reply = client.post("/api/common/fence.json", headers=headers, json=fence_body(**extra))
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[no-any-return,index]


@pytest.fixture
def fences_made(client: FlaskClient, login: Login) -> Iterator[list[tuple[str, int]]]:
    """(login, fence id) of the fences a test makes, deleted afterwards (their bindings cascade)."""
    made: list[tuple[str, int]] = []
    yield made
    for user, fence_id in made:
        client.delete(f"/api/common/fence/{fence_id}.json", headers=login(user))


@pytest.mark.parametrize(("shape", "fence_type", "business_type", "geometry"), [
    ("circle", 2, 1, {"center": [116.397, 39.909], "radius": 500}),
    ("rectangle", 3, 2, {"topLeft": [116.30, 39.92], "bottomRight": [116.32, 39.90]}),
    ("polygon", 2, 1, {"rings": [SQUARE, HOLE]}),
    ("polygon", 2, 2, {"rings": [SQUARE + [SQUARE[0]]]}),
    ("route", 4, 2, ROUTE),
    ("district", 2, 1, {"districtId": "110101"}),
])
def test_creates_each_shape(client: FlaskClient, login: Login, fences_made: list[tuple[str, int]], shape: str,
                            fence_type: int, business_type: int, geometry: dict[str, Any]) -> None:
    headers = login("admin_a")
    made = new_fence(client, headers, shape=shape, fenceType=fence_type, businessType=business_type,
                     geometry=geometry, speedLimit=50)
    fences_made.append(("admin_a", made["id"]))
    assert (made["shape"], made["geometry"], made["bindCount"]) == (shape, geometry, 0)
    assert made["enterpriseName"]


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"shape": "polygon", "geometry": {"rings": [[[116.30, 39.90], [116.32, 39.92], [116.32, 39.90],
                                                  [116.30, 39.92]]]}}, "geometry", "Self-intersection"),
    ({"geometry": {"center": [116.397, 39.909], "radius": 0}}, "geometry", "radius"),
    ({"geometry": {"center": [116.397, 39.909], "radius": -5}}, "geometry", "radius"),
    ({"shape": "route", "fenceType": 4, "geometry": {"segments": []}}, "geometry", "at least one segment"),
    ({"geometry": {"center": [2.35, 48.85], "radius": 100}}, "geometry", "outside China"),
    ({"geometry": {"center": [39.909, 116.397], "radius": 100}}, "geometry", "outside China"),
    ({"geometry": {"centre": [116.397, 39.909], "radius": 100}}, "geometry", "missing center"),
    ({"shape": "polygon", "geometry": {"rings": [[[116.3, 39.9], [116.31, 39.9]]]}}, "geometry", "three"),
    ({"shape": "route", "fenceType": 2, "geometry": ROUTE}, "shape", "route"),
    ({"shape": "circle", "fenceType": 4}, "shape", "route"),
    ({"shape": "district", "businessType": 2, "geometry": {"districtId": "110101"}}, "shape", "terminal"),
    ({"shape": "district", "geometry": {"districtId": "999999"}}, "geometry", "adcode"),
    ({"shape": "polygon", "businessType": 2, "geometry": {"rings": [SQUARE, HOLE]}}, "geometry", "holes"),
    ({"fenceType": 3}, "speedLimit", "speed limit"),
    ({"fenceType": 1}, "stayLimit", "stay"),
    ({"startTime": "2030-01-02T00:00:00Z", "endTime": "2030-01-01T00:00:00Z"}, "endTime", "after the start"),
    ({"dailyStart": "07:00"}, "dailyStart", "both ends"),
    ({"attributes": [6]}, "attributes", "attributes"),
])
def test_refuses_bad_geometry_and_rules_with_a_clear_400(client: FlaskClient, login: Login, change: dict[str, Any],
                                                          field: str, words: str) -> None:
    reply = client.post("/api/common/fence.json", headers=login("admin_a"), json=fence_body(**change))
    assert reply.status_code == 400, reply.json
    assert reply.json["data"] == {"field": field}  # type: ignore[index]
    message = error_text(reply, "en-US")  # the Chinese message alone; the English text under an English console
    assert words in message and f"'{field}'" in message, message


def test_update_is_checked_against_the_stored_shape(client: FlaskClient, login: Login,
                                                    fences_made: list[tuple[str, int]]) -> None:
    headers = login("admin_a")
    made = new_fence(client, headers)
    fences_made.append(("admin_a", made["id"]))
    item = f"/api/common/fence/{made['id']}.json"
    reply = client.patch(item, headers=headers, json={"geometry": {"rings": [SQUARE]}})  # still a circle
    assert reply.status_code == 400 and reply.json["data"] == {"field": "geometry"}  # type: ignore[index]
    reply = client.patch(item, headers=headers, json={"shape": "polygon", "geometry": {"rings": [SQUARE]}})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["updatedAt"] >= made["updatedAt"]  # type: ignore[index]


def test_attributes_are_numbers_in_the_api_and_a_bit_set_in_the_table(
        client: FlaskClient, login: Login, pg_url: str, fences_made: list[tuple[str, int]]) -> None:
    made = new_fence(client, login("admin_a"), attributes=[15, 2, 3, 2], remark=None)
    fences_made.append(("admin_a", made["id"]))
    assert made["attributes"] == [2, 3, 15]
    with connect(pg_url) as conn:
        bits = conn.execute("SELECT attributes FROM fence WHERE id = %s", (made["id"],)).fetchone()
    assert bits == ((1 << 2) | (1 << 3) | (1 << 15),)


def test_label_points_take_a_point_or_an_area_by_type(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    for point_type, geometry in ((1, {"point": [116.4, 39.9]}), (4, {"rings": [SQUARE]})):
        body = {"name": f"p{uuid.uuid4().hex[:10]}", "pointType": point_type, "businessType": 1, "geometry": geometry,
                "remark": None}  # null: stored empty
        reply = client.post("/api/common/labelPoint.json", headers=headers, json=body)
        assert reply.status_code == 200, reply.json
        assert client.delete(f"/api/common/labelPoint/{reply.json['data']['id']}.json",  # type: ignore[index]
                             headers=headers).status_code == 200
    bad = {"name": "p-bad", "pointType": 1, "businessType": 1, "geometry": {"point": [200, 39.9]}}
    reply = client.post("/api/common/labelPoint.json", headers=headers, json=bad)
    assert reply.status_code == 400 and reply.json["data"] == {"field": "geometry"}  # type: ignore[index]


def own_car(client: FlaskClient, headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    return create(client, headers, WRITABLE["car"], **extra)


def test_binds_and_unbinds_many_cars_of_the_fences_subtree(
        client: FlaskClient, login: Login, fences_made: list[tuple[str, int]]) -> None:
    headers = login("admin_a")
    fence = new_fence(client, headers)
    fences_made.append(("admin_a", fence["id"]))
    cars = [own_car(client, headers)["id"] for _ in range(2)]
    url = f"/api/fence/{fence['id']}"
    reply = client.post(f"{url}/bind.json", headers=headers, json={"carIds": cars})
    assert reply.json == {"code": 0, "message": "ok", "data": {"bound": 2, "total": 2}}
    assert client.post(f"{url}/bind.json", headers=headers, json={"carIds": cars}).json["data"]["bound"] == 0  # type: ignore[index]
    page = client.post("/api/common/query/fenceBinding.json", headers=headers, json={"fenceId": fence["id"]})
    assert sorted(r["carId"] for r in page.json["data"]["list"]) == sorted(cars)  # type: ignore[index]
    assert client.get(f"/api/common/fence/{fence['id']}.json", headers=headers).json["data"]["bindCount"] == 2  # type: ignore[index]

    reply = client.post(f"{url}/unbind.json", headers=headers, json={"carIds": [cars[0]]})
    assert reply.json["data"] == {"unbound": 1}  # type: ignore[index]
    page = client.post("/api/common/query/fenceBinding.json", headers=headers, json={"fenceId": fence["id"]})
    assert [r["carId"] for r in page.json["data"]["list"]] == [cars[1]]  # type: ignore[index]


def test_binding_another_enterprises_car_is_404_and_binds_nothing(
        client: FlaskClient, login: Login, fences_made: list[tuple[str, int]]) -> None:
    headers = login("admin_a")
    fence = new_fence(client, headers)
    fences_made.append(("admin_a", fence["id"]))
    mine, theirs = own_car(client, headers)["id"], own_car(client, login("admin_b"))["id"]
    for ids in ([mine, theirs], [999_999_999]):
        reply = client.post(f"/api/fence/{fence['id']}/bind.json", headers=headers, json={"carIds": ids})
        assert reply.status_code == 404 and reply.json["data"]["field"] == "carIds", reply.json  # type: ignore[index]
    assert client.get(f"/api/common/fence/{fence['id']}.json", headers=headers).json["data"]["bindCount"] == 0  # type: ignore[index]
    for bad in ({}, {"carIds": []}, {"carIds": ["1"]}, {"carIds": [True]}):
        assert client.post(f"/api/fence/{fence['id']}/bind.json", headers=headers, json=bad).status_code == 400


def test_another_enterprises_fence_is_404_for_binding_and_the_parent_reaches_it(
        client: FlaskClient, login: Login, fences_made: list[tuple[str, int]]) -> None:
    fence = new_fence(client, login("admin_b"))
    fences_made.append(("admin_b", fence["id"]))
    car = own_car(client, login("admin_b"))["id"]
    for action in ("bind", "unbind"):
        reply = client.post(f"/api/fence/{fence['id']}/{action}.json", headers=login("admin_a"), json={"carIds": [car]})
        assert reply.status_code == 404, reply.json
    reply = client.post(f"/api/fence/{fence['id']}/bind.json", headers=login("admin"), json={"carIds": [car]})
    assert reply.json["data"] == {"bound": 1, "total": 1}  # type: ignore[index]


def test_a_role_without_the_fence_permission_is_403(client: FlaskClient, demo: Demo, pg_url: str,
                                                    login: Login, fences_made: list[tuple[str, int]]) -> None:
    fence = new_fence(client, login("admin_a"))
    fences_made.append(("admin_a", fence["id"]))
    reader = bearer(client, make_user(pg_url, demo.enterprises["a"], {"car": ["query", "get"]}).name)
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"fence": ["query", "get"]}).name)
    calls = [("POST", "/api/common/query/fence.json", {}), ("POST", "/api/common/query/labelPoint.json", {}),
             ("POST", "/api/common/query/fenceBinding.json", {}), ("GET", f"/api/common/fence/{fence['id']}.json", None),
             ("GET", "/api/common/geoMapData/110101.json", None), ("GET", "/api/common/districtTree.json", None),
             ("POST", "/api/fence/areaSearch.json", {"geometry": {"rings": [SQUARE]}})]
    for method, url, body in calls:
        reply = client.open(url, method=method, headers=reader, json=body)
        assert reply.status_code == 403 and reply.json["data"]["permission"].startswith("fence:"), (url, reply.json)  # type: ignore[index]
    # holding the list but not the "platform fence" action: no binding
    reply = client.post(f"/api/fence/{fence['id']}/bind.json", headers=lister, json={"carIds": [1]})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "fence:fence"  # type: ignore[index]


def test_imports_bindings_from_a_spreadsheet_with_a_per_row_report(
        client: FlaskClient, login: Login, fences_made: list[tuple[str, int]]) -> None:
    headers = login("admin_a")
    fence = new_fence(client, headers)
    fences_made.append(("admin_a", fence["id"]))
    car = own_car(client, headers)
    other = own_car(client, login("admin_b"))
    text = (f"围栏名称,车牌号\n{fence['name']},{car['plateNumber']}\nno such fence,{car['plateNumber']}\n"
            f"{fence['name']},{other['plateNumber']}\n{fence['name']},\n")
    reply = client.post("/api/fence/binding/import.json", headers=headers,
                        data={"file": (io.BytesIO(text.encode()), "bindings.csv")}, content_type="multipart/form-data")
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    assert (data["total"], data["bound"]) == (4, 1)
    assert [e["row"] for e in data["errors"]] == [3, 4, 5]
    # each reason as an error reply gives it: message the Chinese text, localMessage this client's en-US
    assert data["errors"][0]["message"] == "围栏不存在：no such fence" and "no fence named" in data["errors"][0]["localMessage"]
    assert "of the fence's enterprise" in data["errors"][1]["localMessage"]
    hk = client.post("/api/fence/binding/import.json", headers={**headers, "X-Fleet-Language": "zh-HK"},
                     data={"file": (io.BytesIO(text.encode()), "bindings.csv")}, content_type="multipart/form-data")
    assert hk.json["data"]["errors"][0]["localMessage"] == "圍欄不存在：no such fence"  # type: ignore[index]
    reply = client.post("/api/fence/binding/import.json", headers=headers,
                        data={"file": (io.BytesIO(b"a,b\n1,2\n"), "x.csv")}, content_type="multipart/form-data")
    assert reply.status_code == 400 and "围栏名称" in reply.json["message"]  # type: ignore[index]


def test_geo_map_data_answers_the_district_outline_or_null(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    data = client.get("/api/common/geoMapData/110101.json", headers=headers).json["data"]  # type: ignore[index]
    assert data["data"].startswith("MULTIPOLYGON ((") and data["name"] == "东城区"
    assert abs(data["centerLat"] - 39.92) < 0.1 and abs(data["centerLng"] - 116.41) < 0.1
    assert client.get("/api/common/geoMapData/999999.json", headers=headers).json == {
        "code": 0, "message": "ok", "data": None}
    assert client.get("/api/common/geoMapData/abc.json", headers=headers).status_code == 400


def test_district_tree_lists_each_province_city_and_district_the_outlines_know(client: FlaskClient,
                                                                               login: Login) -> None:
    headers = login("admin_a")
    reply = client.get("/api/common/districtTree.json", headers=headers)
    assert reply.status_code == 200, reply.json
    tree = reply.json["data"]  # type: ignore[index]
    by_code = {p["adcode"]: p for p in tree}
    assert [p["adcode"] for p in tree] == sorted(by_code) and len(tree) == 34
    beijing = by_code["110000"]  # a municipality: its districts directly under it
    assert beijing["name"] == "北京市" and {"adcode": "110101", "name": "东城区"} in beijing["children"]
    cities = {c["adcode"]: c for c in by_code["440000"]["children"]}
    assert {"adcode": "440305", "name": "南山区"} in cities["440300"]["children"]
    assert "children" not in by_code["710000"]  # no city in the data
    # a region is an area when geoMapData outlines it: a district, a city without districts, not Shenzhen
    for adcode, name in (("440305", "南山区"), ("441900", "东莞市")):
        assert client.get(f"/api/common/geoMapData/{adcode}.json", headers=headers).json["data"]["name"] == name  # type: ignore[index]
    assert cities["440300"]["outline"] is False and "outline" not in cities["441900"]
    assert client.get("/api/common/geoMapData/440300.json", headers=headers).json["data"] is None  # type: ignore[index]


AREA = {"rings": [[[121.40, 31.20], [121.42, 31.20], [121.42, 31.22], [121.40, 31.22]]]}
T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def test_area_search_lists_each_visit_of_the_callers_vehicles(client: FlaskClient, login: Login, pg_url: str,
                                                               demo: Demo) -> None:
    headers = login("admin_a")
    car = own_car(client, headers)
    device_id = 900_000_000 + uuid.uuid4().int % 1_000_000
    # out, in, in, out (inside the box, outside the triangle's hypotenuse test is not needed), in
    track = [(0, 121.30, 31.21), (1, 121.41, 31.21), (2, 121.411, 31.211), (3, 121.43, 31.21), (4, 121.415, 31.215)]
    with connect(pg_url) as conn:
        for minute, lng, lat in track:
            conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat)"
                         " VALUES (%s, %s, %s, %s, %s, %s)",
                         (device_id, T0 + timedelta(minutes=minute), car["id"], demo.enterprises["a"], lng, lat))
        conn.commit()
    body = {"geometry": AREA, "startTime": T0.isoformat(), "endTime": (T0 + timedelta(hours=1)).isoformat()}
    rows = client.post("/api/fence/areaSearch.json", headers=headers, json=body).json["data"]["list"]  # type: ignore[index]
    mine = [r for r in rows if r["carId"] == car["id"]]
    assert [(r["enterTime"], r["exitTime"]) for r in mine] == [
        ((T0 + timedelta(minutes=1)).isoformat(), (T0 + timedelta(minutes=2)).isoformat()),
        ((T0 + timedelta(minutes=4)).isoformat(), (T0 + timedelta(minutes=4)).isoformat())]
    assert mine[0]["plateNumber"] == car["plateNumber"] and mine[0]["enterpriseName"]
    other = client.post("/api/fence/areaSearch.json", headers=login("admin_b"), json=body).json["data"]["list"]  # type: ignore[index]
    assert all(r["carId"] != car["id"] for r in other)
    circle = {**body, "geometry": {"center": [121.41, 31.21], "radius": 300}}
    rows = client.post("/api/fence/areaSearch.json", headers=headers, json=circle).json["data"]["list"]  # type: ignore[index]
    assert len([r for r in rows if r["carId"] == car["id"]]) == 1  # the fix at 121.415 lies 600 m off


@pytest.mark.parametrize(("change", "field"), [
    ({"endTime": (T0 + timedelta(hours=24, seconds=1)).isoformat()}, "endTime"),
    ({"endTime": T0.isoformat()}, "endTime"),
    ({"startTime": None}, "startTime"),
    ({"geometry": {"topLeft": [121.42, 31.20], "bottomRight": [121.40, 31.22]}}, "geometry"),
    ({"geometry": {"segments": []}}, "geometry"),
    ({"geometry": {"center": [0, 0], "radius": 10}}, "geometry"),
    # more vertices than a hand-drawn area has (each is an SQL parameter of the inside test)
    ({"geometry": {"rings": [[[121.40 + 0.02 * math.cos(k / 3000 * math.tau), 31.21 + 0.02 * math.sin(k / 3000 * math.tau)]
                              for k in range(3000)]]}}, "geometry"),
])
def test_area_search_refuses_a_long_window_or_a_bad_area(client: FlaskClient, login: Login,
                                                          change: dict[str, Any], field: str) -> None:
    body = {"geometry": AREA, "startTime": T0.isoformat(), "endTime": (T0 + timedelta(hours=24)).isoformat(), **change}
    reply = client.post("/api/fence/areaSearch.json", headers=login("admin_a"), json=body)
    assert reply.status_code == 400 and reply.json["data"] == {"field": field}, reply.json  # type: ignore[index]


def test_in_out_alarms_gather_terminal_and_platform_fence_alarms_with_the_fence_name(
        client: FlaskClient, login: Login, pg_url: str, demo: Demo, fences_made: list[tuple[str, int]]) -> None:
    headers = login("admin_a")
    fence = new_fence(client, headers)
    fences_made.append(("admin_a", fence["id"]))
    device = create(client, headers, WRITABLE["device"])
    alarms = [(2, "a20", {}), (4, f"fence:{fence['id']}:enter", {"fenceId": fence["id"], "fenceName": fence["name"]}),
              (4, "x12", {"fenceId": 77, "fenceName": "终端区域", "kind": "leave"}), (2, "a0", {})]
    with connect(pg_url) as conn:
        for minute, (type_, key, details) in enumerate(alarms):
            conn.execute("INSERT INTO alarm (enterprise_id, device_id, phone, type, key, start_time, details)"
                         " VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb)",
                         (demo.enterprises["a"], device["id"], device["phone"], type_, key,
                          T0 + timedelta(minutes=minute), json.dumps(details)))
        conn.commit()
    # named like every alarm row: the catalogue's name of the kind, then the fence's name
    for language in ("zh-CN", "en-US", "zh-HK"):
        entered = f"{describe('fence:0:enter', None, language)} ({fence['name']})"
        reply = client.post("/api/common/query/inOutAlarm.json", headers={**headers, "X-Fleet-Language": language},
                            json={"deviceId": device["id"]}, query_string={"orderBy": "startTime"})
        rows = reply.json["data"]["list"]  # type: ignore[index]
        assert [(r["key"], r["source"], r["fenceName"]) for r in rows] == [
            ("a20", "terminal", None), (f"fence:{fence['id']}:enter", "platform", fence["name"]),
            ("x12", "terminal", "终端区域")]
        assert rows[1]["desc"] == entered and rows[1]["fenceId"] == fence["id"] and rows[2]["kind"] == "leave"
    other = client.post("/api/common/query/inOutAlarm.json", headers=login("admin_b"), json={"deviceId": device["id"]})
    assert other.json["data"]["list"] == []  # type: ignore[index]


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
