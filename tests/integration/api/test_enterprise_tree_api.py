"""A parent acts on its subtree (platform-spec §6 as the product runs it, api/query/values.py
``subtree_requested``): generated from the route map and the entity declarations, so a new route or
entity about a vehicle is covered by existing.

- every route naming a vehicle (its car, terminal, alarm, command, stream or file) answers the group's
  administrator, without ``isParent``, what it answers the subsidiary's own administrator: the same
  record for a read, the same outcome (never a 404) for an action;
- every list of a vehicle-bound entity gives the parent the subsidiary vehicle's rows, and every count
  of the parent is the sum of its own enterprise's (``isParent=false``) and its subsidiaries';
- the dashboard's alarm counts and the bell count the group's vehicles;
- a subsidiary still never reaches its parent's or its sibling's vehicle (test_route_guards_api and
  test_tenancy_api hold the other-enterprise cases).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from api.db import get_db
from api.query.entities import COUNTABLE, QUERYABLE, WRITABLE
from api.query.grammar import EntitySpec
from tests.integration.api.conftest import TRACK_START, Demo, Vehicle
from tests.integration.api.test_entities_api import valid_body
from tests.integration.api.test_media_api import upload

Login = Callable[[str], dict[str, str]]
PARENT, SUBSIDIARY, SIBLING = "admin", "admin_a", "admin_b"
# Route arguments that name a vehicle or something of one vehicle.
VEHICLE_ARGUMENTS = {"car_id", "device_id", "vin", "alarm_id", "command_id", "device_sn", "stream_ids",
                     "file_id", "object_key"}
# Writable entities whose records are a vehicle or its terminal (their generic item routes).
VEHICLE_RECORDS = {"car", "device", "sim"}
# The stream status of a video route carries the moment of the call.
VOLATILE = {"currentTime", "updateTime"}
_ARGUMENT = re.compile(r"<(?:(\w+):)?(\w+)>")


def _method(rule: Rule) -> str:
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})[0]


def vehicle_rules(app: Flask) -> list[Rule]:
    """Guarded routes about one vehicle, from Flask's url_map."""
    found = []
    for rule in app.url_map.iter_rules():
        if not getattr(app.view_functions[rule.endpoint], "required_permission", None):
            continue
        entity = re.match(r"/api/common/(\w+)/<int:record_id>", rule.rule)
        if set(rule.arguments) & VEHICLE_ARGUMENTS or (entity and entity.group(1) in VEHICLE_RECORDS):
            found.append(rule)
    return sorted(found, key=lambda r: (r.rule, _method(r)))


def vehicle_key(entity: EntitySpec) -> str | None:
    """The filter naming one vehicle of a declared entity (None: the entity is not about vehicles)."""
    return next((k for k in ("carId", "deviceId") if k in entity.fields and entity.fields[k].filterable), None)


def vehicle_body(entity: EntitySpec, car: Vehicle) -> dict[str, Any]:
    """A filter on ``car`` (and, for a history entity, a window around the demo track)."""
    key = vehicle_key(entity)
    assert key is not None
    body: dict[str, Any] = {f"{key}.eq": car.car_id if key == "carId" else car.device_id}
    if entity.window is not None:
        body[f"{entity.window.key}.eq"] = car.car_id if entity.window.key == "carId" else car.device_id
        body["rangeConditions"] = [{"fieldName": entity.window.time, "start": (TRACK_START - timedelta(hours=1)).isoformat(),
                                    "end": (TRACK_START + timedelta(hours=1)).isoformat()}]
    return body


def _records(app: Flask, client: FlaskClient, login: Login, demo: Demo) -> Callable[[Rule], dict[str, Any]]:
    """For a vehicle route: its arguments naming a record of subsidiary A's vehicle (fresh records for the
    generic item routes, so a delete by one caller leaves the other its own)."""
    made: dict[str, Any] = {}
    car = demo.a

    def fresh(entity: str) -> int:
        reply = client.post(f"/api/common/{entity}.json", headers=login(SUBSIDIARY), json=valid_body(WRITABLE[entity]))
        assert reply.status_code == 200, reply.json
        return int(reply.json["data"][WRITABLE[entity].id_field])  # type: ignore[index]

    def once(name: str, make: Callable[[], Any]) -> Any:
        if name not in made:
            made[name] = make()
        return made[name]

    def sql_one(statement: str, params: tuple[Any, ...]) -> Any:
        with get_db(app).connection() as conn:
            row = conn.execute(statement, params).fetchone()
        assert row is not None
        return row[0]

    def arguments(rule: Rule) -> dict[str, Any]:
        names = set(rule.arguments)
        entity = re.match(r"/api/common/(\w+)/<int:record_id>", rule.rule)
        if entity and names == {"record_id"}:
            return {"record_id": fresh(entity.group(1))}
        known: dict[str, Callable[[], Any]] = {
            "car_id": lambda: car.car_id,
            "device_id": lambda: car.device_id,
            "vin": lambda: car.vin,
            "device_sn": lambda: sql_one("SELECT device_sn FROM device WHERE id = %s", (car.device_id,)),
            "channel": lambda: 1,
            "stream_ids": lambda: f"{car.device_id}-1-live",
            "command_id": lambda: sql_one(
                "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id) SELECT enterprise_id, car_id, id,"
                " phone, 33028 FROM device WHERE id = %s RETURNING id", (car.device_id,)),
            "alarm_id": lambda: sql_one(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
                " SELECT enterprise_id, id, car_id, phone, 1, 'a0', now(), 1 FROM device WHERE id = %s RETURNING id",
                (car.device_id,)),
            "file_id": lambda: upload(app, car).id,
            "object_key": lambda: upload(app, car).key.lstrip("/"),
        }
        assert names <= set(known), (rule.rule, names - set(known))
        return {n: once(n, known[n]) for n in names}

    return arguments


def _url(rule: Rule, arguments: dict[str, Any]) -> str:
    url = rule.rule
    for name, value in arguments.items():
        url = re.sub(rf"<(?:\w+:)?{name}>", str(value), url)
    return url


def _comparable(reply: Any) -> Any:
    if not reply.is_json:
        return reply.data
    body = reply.json
    data = body.get("data")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in VOLATILE}
    return body.get("code"), data


def test_every_vehicle_route_answers_the_parent_as_it_answers_the_subsidiary(
    app: Flask, client: FlaskClient, login: Login, demo: Demo
) -> None:
    resolve = _records(app, client, login, demo)
    rules = vehicle_rules(app)
    assert len(rules) > 60  # commands by car and by terminal, alarms, tracks, video, files, records
    mismatched = []
    for rule in rules:
        method = _method(rule)
        body = {} if method in ("PATCH", "POST", "PUT") else None
        if method == "GET":
            url = _url(rule, resolve(rule))
            own = client.open(url, method=method, headers=login(SUBSIDIARY), json=body)
            group = client.open(url, method=method, headers=login(PARENT), json=body)
            if own.status_code != group.status_code or _comparable(own) != _comparable(group):
                mismatched.append((method, rule.rule, own.status_code, group.status_code))
        else:  # an action: each caller on a record of its own, so one's change does not decide the other's
            own = client.open(_url(rule, resolve(rule)), method=method, headers=login(SUBSIDIARY), json=body)
            group = client.open(_url(rule, resolve(rule)), method=method, headers=login(PARENT), json=body)
            if own.status_code != group.status_code or group.status_code == 404:
                mismatched.append((method, rule.rule, own.status_code, group.status_code))
    assert mismatched == [], "vehicle routes the group's administrator cannot use as the subsidiary's does"


def _vehicle_entities(declared: dict[str, EntitySpec]) -> list[str]:
    return sorted(name for name, entity in declared.items() if vehicle_key(entity) is not None)


@pytest.fixture(scope="module")
def subsidiary_rows(app: Flask, demo: Demo) -> None:
    """An alarm and a file of A's vehicle, so its lists are not empty (the track is the demo's)."""
    with get_db(app).connection() as conn:
        conn.execute("INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
                     " SELECT enterprise_id, id, car_id, phone, 1, 'a0', now(), 1 FROM device WHERE id = ANY(%s)",
                     ([demo.a.device_id, demo.b.device_id, demo.parent.device_id],))
    upload(app, demo.a)


@pytest.mark.parametrize("entity", _vehicle_entities(QUERYABLE))
def test_the_parent_lists_a_subsidiary_vehicles_rows(
    client: FlaskClient, login: Login, demo: Demo, subsidiary_rows: None, entity: str
) -> None:
    body = vehicle_body(QUERYABLE[entity], demo.a)
    params = {"pageSize": 100, "countable": "true"}
    own = client.post(f"/api/common/query/{entity}.json", headers=login(SUBSIDIARY), json=body, query_string=params)
    group = client.post(f"/api/common/query/{entity}.json", headers=login(PARENT), json=body, query_string=params)
    assert own.status_code == 200, own.json
    assert group.status_code == 200, group.json
    own_data, group_data = own.json["data"], group.json["data"]  # type: ignore[index]
    if QUERYABLE[entity].owner_column:  # per-user rows (followed cars): the same vehicles, each caller's own follow
        for row in [*own_data["list"], *group_data["list"]]:
            row.pop("userId"), row.pop("followTime")
    assert group_data == own_data


@pytest.mark.parametrize("entity", ["alarm", "gpsLog", "deviceUploadFile", "carView"])
def test_the_subsidiary_vehicle_has_rows_to_compare(
    client: FlaskClient, login: Login, demo: Demo, subsidiary_rows: None, entity: str
) -> None:
    reply = client.post(f"/api/common/query/{entity}.json", headers=login(PARENT),
                        json=vehicle_body(QUERYABLE[entity], demo.a), query_string={"pageSize": 100})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["list"], entity  # type: ignore[index]


def _count(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any], **params: Any) -> int:
    reply = client.post(f"/api/common/count/{entity}.json", headers=headers, json=body, query_string=params)
    assert reply.status_code == 200, reply.json
    return int(reply.json["data"])  # type: ignore[index]


@pytest.mark.parametrize("entity", [e for e in _vehicle_entities(COUNTABLE) if COUNTABLE[e].window is None])
def test_a_parent_count_is_its_own_plus_its_subsidiaries(
    client: FlaskClient, login: Login, subsidiary_rows: None, entity: str
) -> None:
    group = _count(client, login(PARENT), entity, {})
    own = _count(client, login(PARENT), entity, {}, isParent="false")
    subsidiaries = _count(client, login(SUBSIDIARY), entity, {}) + _count(client, login(SIBLING), entity, {})
    assert group == own + subsidiaries


def test_dashboard_alarm_counts_and_the_bell_count_the_group(client: FlaskClient, login: Login, subsidiary_rows: None) -> None:
    def counts(user: str, **params: Any) -> dict[str, Any]:
        reply = client.get("/api/dashboard/alarmCounts.json", headers=login(user), query_string=params)
        assert reply.status_code == 200, reply.json
        return reply.json["data"]  # type: ignore[no-any-return]

    def bell(user: str) -> int:  # the bell's alarm number (bizType 6)
        reply = client.get("/api/notice/overView.json", headers=login(user))
        assert reply.status_code == 200, reply.json
        return sum(row["total"] for row in reply.json["data"] if row["bizType"] == 6)

    parts = [counts(PARENT, isParent="false"), counts(SUBSIDIARY), counts(SIBLING)]
    group = counts(PARENT)
    for figure in ("alarmingVehicles", "unhandled", "activeSafety"):
        assert group[figure] == sum(p[figure] for p in parts), figure
    assert group["unhandled"] > counts(PARENT, isParent="false")["unhandled"]
    assert bell(PARENT) == bell(SUBSIDIARY) + bell(SIBLING) + _count(
        client, login(PARENT), "alarm", {"state.eq": 0}, isParent="false")


def test_the_parent_handles_a_subsidiary_alarm_from_the_list(client: FlaskClient, login: Login, demo: Demo) -> None:
    with get_db(client.application).connection() as conn:
        alarm_id = conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
            " SELECT enterprise_id, id, car_id, phone, 1, 'a2', now(), 4 FROM device WHERE id = %s RETURNING id",
            (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
    reply = client.post(f"/api/common/alarm/{alarm_id}/confirm.json", headers=login(PARENT),
                        json={"state": 2, "opinion": f"已处理 {uuid.uuid4().hex[:6]}"})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["alarm"]["state"] == 2  # type: ignore[index]


@pytest.mark.parametrize("owner", ["parent", "b"])
def test_a_subsidiary_never_reaches_its_parents_or_siblings_vehicle(
    client: FlaskClient, login: Login, demo: Demo, owner: str
) -> None:
    car: Vehicle = getattr(demo, owner)
    for params in ({}, {"isParent": "true"}):
        assert client.get(f"/api/common/carView/{car.car_id}.json", headers=login(SUBSIDIARY),
                          query_string=params).status_code == 404
        rows = client.post("/api/common/query/alarm.json", headers=login(SUBSIDIARY), query_string=params,
                           json={"carId.eq": car.car_id}).json["data"]["list"]  # type: ignore[index]
        assert rows == []
