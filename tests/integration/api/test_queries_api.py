"""Query endpoints on real data: track order, ranges, paging, reply shapes, errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import TRACK_START, Demo, error_text

Login = Callable[[str], dict[str, str]]


def query(client: FlaskClient, headers: dict[str, str], entity: str, body: Any = None, **params: Any) -> Any:
    return client.post(f"/api/common/query/{entity}.json", headers=headers, json=body, query_string=params)


def data_of(client: FlaskClient, path: str, headers: dict[str, str]) -> Any:
    reply: Any = client.get(path, headers=headers)
    return reply.json["data"]


def test_gps_track_is_ordered_by_time_ascending(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = query(client, login("admin_a"), "gps", {"deviceId": demo.a.device_id})
    times = [row["time"] for row in reply.json["data"]["list"]]
    assert len(times) == 4 and times == sorted(times)
    assert times[0] == TRACK_START.isoformat()


def test_gps_track_desc_and_range_conditions(client: FlaskClient, login: Login, demo: Demo) -> None:
    body = {
        "deviceId.eq": demo.a.device_id,
        "rangeConditions": [
            {"fieldName": "time", "start": "2026-03-01T02:01:00Z", "end": "2026-03-01T10:03:00+08:00", "type": "closedOpen"}
        ],
    }
    reply = query(client, login("admin_a"), "gps", body, desc="true", select="time,speed,acc")
    rows = reply.json["data"]["list"]
    assert [r["speed"] for r in rows] == [20.0, 10.0]
    assert set(rows[0]) == {"time", "speed", "acc"}


def test_page_reply_shape_and_countable_total(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = query(client, login("admin"), "carView", {}, isParent="true", countable="true", pageNo=2, pageSize=5,
                  orderBy="plateNumber")
    data = reply.json["data"]
    assert set(data) == {"list", "pageNo", "pageSize", "total"}
    assert data["pageNo"] == 2 and data["pageSize"] == 5 and len(data["list"]) == 5 and data["total"] >= 20
    plates = [row["plateNumber"] for row in data["list"]]
    assert plates == sorted(plates)


def test_vehicle_view_rows_use_the_spec_field_names(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = query(client, login("admin_a"), "carView", {"carId": demo.a.car_id})
    (row,) = reply.json["data"]["list"]
    for name in ("carId", "masterDeviceId", "plateNumber", "masterDeviceBizState", "driverName", "hasVideo",
                 "hasPhoto", "hasMicrophone", "videoChannel", "talkChannel", "lastOnlineTime",
                 "masterDeviceState", "enterpriseId", "plateColor", "vin", "masterDeviceSn"):
        assert name in row
    assert row["masterDeviceId"] == demo.a.device_id and row["plateNumber"].startswith("京")
    assert "total" not in reply.json["data"]


def test_video_filter_from_the_channel_tree(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = query(client, login("admin"), "carView", {"hasVideo.gt": 0}, isParent="true",
                  select="carId,videoChannel,talkChannel", orderBy="masterDeviceState")
    rows = reply.json["data"]["list"]
    assert rows and all(r["videoChannel"] == "1,2,3,4" for r in rows)


def test_unknown_field_answers_400_naming_it(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = query(client, login("admin_a"), "device", {"authCode.eq": "x"})
    assert reply.status_code == 400 and reply.json["code"] == 400 and "authCode" in error_text(reply, "en-US")
    reply = query(client, login("admin_a"), "device", {}, orderBy="authCode")
    assert reply.status_code == 400 and "authCode" in error_text(reply, "en-US")


def test_invalid_json_answers_400(client: FlaskClient, login: Login) -> None:
    reply: Any = client.post("/api/common/query/carView.json", headers=login("admin_a"), data="{\"a\":",
                        content_type="application/json")
    assert reply.status_code == 400 and "not valid JSON" in error_text(reply, "en-US")


def test_page_size_above_cap_answers_400(client: FlaskClient, login: Login) -> None:
    reply = query(client, login("admin_a"), "carView", {}, pageSize=5000)
    assert reply.status_code == 400 and "maximum 1000" in error_text(reply, "en-US")


def test_last_position_reply(client: FlaskClient, login: Login, demo: Demo) -> None:
    by_device = data_of(client, f"/api/gps/device/{demo.a.device_id}/last.json", login("admin_a"))
    by_car = data_of(client, f"/api/gps/car/{demo.a.car_id}/last.json", login("admin_a"))
    by_vin = data_of(client, f"/api/gps/vin/{demo.a.vin}/last.json", login("admin_a"))
    assert by_device == by_car == by_vin
    assert by_device["deviceId"] == demo.a.device_id and by_device["carId"] == demo.a.car_id
    assert (by_device["lng"], by_device["lat"], by_device["speed"], by_device["direction"]) == (116.4, 39.9, 42.5, 90)
    assert by_device["acc"] == 1 and by_device["alarmType"] == 5 and by_device["a0"] == 1 and by_device["a2"] == 1


def test_last_position_is_null_before_the_first_fix(client: FlaskClient, login: Login, demo: Demo) -> None:
    rows = query(client, login("admin_a"), "device", {"id.nin": [demo.a.device_id]}, pageSize=1).json["data"]["list"]
    reply = client.get(f"/api/gps/device/{rows[0]['id']}/last.json", headers=login("admin_a"))
    assert reply.json == {"code": 0, "message": "ok", "data": None}


def test_state_lists(client: FlaskClient, login: Login, demo: Demo) -> None:
    state = data_of(client, f"/api/device/{demo.a.device_id}/state.json", login("admin_a"))
    biz = data_of(client, f"/api/car/{demo.a.car_id}/bizState.json", login("admin_a"))
    assert state == [{"state": 0}] and biz == [{"state": 4}]


def test_device_car_link(client: FlaskClient, login: Login, demo: Demo) -> None:
    data = data_of(client, f"/api/common/deviceCar/{demo.a.device_id}.json", login("admin_a"))
    assert data["carId"] == demo.a.car_id and data["master"] is True and data["phone"] == "13800000001"


def test_health_reports_database_ok(client: FlaskClient) -> None:
    assert client.get("/api/health.json").json == {"code": 0, "message": "ok", "data": {"db": "ok"}}


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
