"""History logs (api/query/entities_logs.py) through the generic query, count and
export routes: GPS, online, ACC state, parking and idling logs. Each test uses its own vehicle of
enterprise A with a crafted track, so the session database's other rows do not matter."""

from __future__ import annotations

import csv
import io
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
# 23:40 UTC: the track crosses midnight, so it spans two daily gps partitions.
T0 = datetime(2026, 4, 10, 23, 40, tzinfo=UTC)
LNG, LAT = 116.39, 39.91
RANGE = {"start": T0.isoformat(), "end": (T0 + timedelta(hours=1)).isoformat()}


@dataclass(frozen=True)
class Car:
    car_id: int
    device_id: int
    plate: str


def at(minute: float) -> datetime:
    return T0 + timedelta(minutes=minute)


def crafted_track() -> list[tuple[int, float, bool, float]]:
    """(minute, speed, acc, north offset in degrees): drive 0-14; stop 15-30 (ACC on 15-18, across
    midnight); drive 31-40; stop 41-50 with the engine running; drive 51-55; stop 56-60 (still going)."""
    points: list[tuple[int, float, bool, float]] = []
    north = 0.0
    for minute in range(61):
        stopped = 15 <= minute <= 30 or 41 <= minute <= 50 or minute >= 56
        if not stopped:
            north += 0.006  # about 670 m a minute: 40 km/h
        acc = (not stopped) or 15 <= minute <= 18 or 41 <= minute <= 50
        points.append((minute, 0.0 if stopped else 40.0, acc, north))
    return points


def make_car(pg_url: str, enterprise_id: int) -> Car:
    tag = uuid.uuid4().hex[:8]
    with connect(pg_url) as conn:
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise_id, f"测L{tag[:5]}")).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, car_id, f"9{int(tag, 16) % 10**11:011d}", f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
        points = crafted_track()
        random.Random(7).shuffle(points)  # stored out of fix-time order, as a late 0x0704 backlog is
        for minute, speed, acc, north in points:
            conn.execute(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (device_id, at(minute), car_id, enterprise_id, LNG, LAT + north, speed, 3 if acc else 2))
        for minute, state in ((0, 1), (30, 0), (35, 1)):
            conn.execute("INSERT INTO device_online_log (device_id, at, state, enterprise_id, reason)"
                         " VALUES (%s, %s, %s, %s, %s)", (device_id, at(minute), state, enterprise_id, "test"))
        for minute, state in ((19, 0), (40, 1)):
            conn.execute("INSERT INTO acc_state_log (device_id, create_time, state, car_id, enterprise_id, lng, lat)"
                         " VALUES (%s, %s, %s, %s, %s, %s, %s)", (device_id, at(minute), state, car_id, enterprise_id,
                                                                  LNG, LAT))
        conn.commit()
    return Car(int(car_id), int(device_id), f"测L{tag[:5]}")


@pytest.fixture(scope="module")
def car(pg_url: str, demo: Demo) -> Car:
    return make_car(pg_url, demo.enterprises["a"])


def query(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any],
          **params: str) -> Any:
    return client.post(f"/api/common/query/{entity}.json", headers=headers, json=body,
                       query_string={"countable": "true", **params})


def page(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any], **params: str) -> dict[str, Any]:
    reply = query(client, headers, entity, body, **params)
    assert reply.status_code == 200, reply.json
    data: dict[str, Any] = reply.json["data"]
    return data


def window(car: Car, field: str = "time", **bounds: str) -> dict[str, Any]:
    return {"carId.eq": car.car_id, "rangeConditions": [{"fieldName": field, **(bounds or RANGE)}]}


def test_gps_log_lists_the_vehicles_fixes_oldest_first_with_its_plate(client: FlaskClient, login: Login,
                                                                      car: Car) -> None:
    data = page(client, login("admin_a"), "gpsLog", window(car))
    assert data["total"] == 61 and len(data["list"]) == 10  # platform-spec §9: 10 a page
    times = [r["time"] for r in data["list"]]
    assert times == sorted(times) and times[0] == T0.isoformat()
    first = data["list"][0]
    assert first["plateNumber"] == car.plate and first["deviceId"] == car.device_id
    assert first["acc"] == 1 and first["state"] == 3 and first["speed"] == 40.0


def test_gps_log_pages_filters_and_sorts(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    last = page(client, headers, "gpsLog", window(car), pageNo="7", pageSize="10")
    assert [r["time"] for r in last["list"]] == [at(60).isoformat()]
    moving = page(client, headers, "gpsLog", {**window(car), "speed.gt": 30}, pageSize="100")
    assert moving["total"] == 30 and {r["speed"] for r in moving["list"]} == {40.0}
    newest = page(client, headers, "gpsLog", window(car), orderBy="time", desc="true", pageSize="1")
    assert newest["list"][0]["time"] == at(60).isoformat()
    count = client.post("/api/common/count/gpsLog.json", headers=headers, json=window(car))
    assert count.json["data"] == 61


def test_gps_log_needs_a_vehicle_and_at_most_31_days(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    no_car = query(client, headers, "gpsLog", {"rangeConditions": [{"fieldName": "time", **RANGE}]})
    assert no_car.status_code == 400 and "carId" in error_text(no_car, "en-US")
    open_ended = query(client, headers, "gpsLog", window(car, start=T0.isoformat()))
    assert open_ended.status_code == 400 and "请选择车辆和时间范围" in open_ended.json["message"]
    too_long = query(client, headers, "gpsLog", window(car, start=T0.isoformat(),
                                                        end=(T0 + timedelta(days=31, seconds=1)).isoformat()))
    assert too_long.status_code == 400
    assert too_long.json["message"] == "查询时间范围不能超过 31 天"
    assert error_text(too_long, "en-US") == "the time range may not exceed 31 days"
    month = query(client, headers, "gpsLog", window(car, start=T0.isoformat(), end=(T0 + timedelta(days=31)).isoformat()))
    assert month.status_code == 200


def test_logs_of_another_enterprises_vehicle_are_empty(client: FlaskClient, login: Login, car: Car) -> None:
    other = login("admin_b")
    assert page(client, other, "gpsLog", window(car))["total"] == 0
    assert page(client, other, "onlineLog", window(car))["total"] == 0
    assert page(client, other, "accStateLog", window(car, "createTime"))["total"] == 0
    assert page(client, other, "parkLog", window(car, "startTime"))["total"] == 0
    assert page(client, other, "idlingLog", window(car, "startTime"))["total"] == 0
    # the parent enterprise sees its subsidiary's vehicle with isParent
    assert page(client, login("admin"), "parkLog", window(car, "startTime"), isParent="true")["total"] == 3


def test_online_log_is_newest_first_and_filters_by_state(client: FlaskClient, login: Login, car: Car,
                                                         demo: Demo) -> None:
    headers = login("admin_a")
    data = page(client, headers, "onlineLog", window(car))
    assert [(r["time"], r["state"]) for r in data["list"]] == [
        (at(35).isoformat(), 1), (at(30).isoformat(), 0), (at(0).isoformat(), 1)]
    assert {r["plateNumber"] for r in data["list"]} == {car.plate}
    assert page(client, headers, "onlineLog", {**window(car), "state": 0})["total"] == 1
    # without a vehicle: the whole enterprise's transitions in the range
    everyone = page(client, headers, "onlineLog", {"rangeConditions": [{"fieldName": "time", **RANGE}]}, pageSize="100")
    assert {r["deviceId"] for r in everyone["list"]} >= {car.device_id}
    assert all(r["enterpriseId"] == demo.enterprises["a"] for r in everyone["list"])


def test_acc_state_log_default_order_is_create_time_descending(client: FlaskClient, login: Login, car: Car) -> None:
    data = page(client, login("admin_a"), "accStateLog", {"carId": car.car_id})
    assert [(r["createTime"], r["state"]) for r in data["list"]] == [(at(40).isoformat(), 1), (at(19).isoformat(), 0)]
    assert data["list"][0]["plateNumber"] == car.plate


def test_park_log_finds_the_stops_of_a_crafted_track(client: FlaskClient, login: Login, car: Car) -> None:
    data = page(client, login("admin_a"), "parkLog", window(car, "startTime"))
    rows = data["list"]
    assert [(r["startTime"], r["endTime"], r["durationS"], r["ongoing"]) for r in rows] == [
        (at(56).isoformat(), at(60).isoformat(), 240, True),
        (at(41).isoformat(), at(50).isoformat(), 540, False),
        (at(15).isoformat(), at(30).isoformat(), 900, False),  # one stop across midnight
    ]
    assert {r["plateNumber"] for r in rows} == {car.plate}
    assert rows[2]["address"].startswith("北京市")
    assert rows[2]["lng"] == pytest.approx(LNG)


def test_idling_log_is_stopped_with_acc_on(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    rows = page(client, headers, "idlingLog", window(car, "startTime"))["list"]
    assert [(r["startTime"], r["durationS"]) for r in rows] == [(at(41).isoformat(), 540), (at(15).isoformat(), 180)]
    longer = page(client, headers, "idlingLog", {**window(car, "startTime"), "durationS.gte": 300})
    assert [r["durationS"] for r in longer["list"]] == [540]
    second = page(client, headers, "idlingLog", window(car, "startTime"), pageNo="2", pageSize="1", orderBy="startTime")
    assert second["total"] == 2 and second["list"][0]["startTime"] == at(41).isoformat()


def test_park_log_range_limit_and_vehicle_are_required(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    too_long = query(client, headers, "parkLog", window(car, "startTime", start=T0.isoformat(),
                                                         end=(T0 + timedelta(days=32)).isoformat()))
    assert too_long.status_code == 400
    assert too_long.json["message"] == "查询时间范围不能超过 31 天"
    assert error_text(too_long, "en-US") == "the time range may not exceed 31 days"
    assert query(client, headers, "idlingLog", {"carId": car.car_id}).status_code == 400


def test_park_log_exports_its_rows(client: FlaskClient, login: Login, car: Car) -> None:
    reply = client.post("/api/common/export/parkLog.csv", headers=login("admin_a"), json=window(car, "startTime"))
    assert reply.status_code == 200
    rows = list(csv.reader(io.StringIO(reply.data.decode("utf-8-sig"))))
    assert rows[0][:3] == ["开始时间", "结束时间", "时长(秒)"]
    assert [r[2] for r in rows[1:]] == ["240", "540", "900"]


def test_logs_need_their_own_permission(client: FlaskClient, pg_url: str, demo: Demo, car: Car) -> None:
    user = make_user(pg_url, demo.enterprises["a"], {"gps": ["query"], "parkLog": ["query"]})
    headers = bearer(client, user.name)
    assert query(client, headers, "gpsLog", window(car)).status_code == 403
    assert query(client, headers, "parkLog", window(car, "startTime")).status_code == 200
    assert client.post("/api/common/export/parkLog.csv", headers=headers, json=window(car, "startTime")).status_code == 403


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
