"""GET /api/car/{id}/detail.json: the vehicle detail page's one read, scoped like carView."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.routes.car_detail import local_midnight
from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]


@dataclass(frozen=True)
class Detailed:
    car_id: int
    master_id: int
    spare_id: int
    plate: str
    photo_id: int


def _id(conn: Any, query: str, params: tuple[Any, ...]) -> int:
    return int(conn.execute(query + " RETURNING id", params).fetchone()[0])


@pytest.fixture(scope="module")
def detailed(pg_url: str, demo: Demo) -> Detailed:
    """A car of enterprise A with a driver (and photo), an online master device with a SIM card and
    today's track (alarms, odometer), a spare device, and a point yesterday that must not count."""
    tag = uuid.uuid4().hex[:8]
    ent = demo.enterprises["a"]
    with connect(pg_url) as conn:
        photo = _id(conn, "INSERT INTO media (enterprise_id, content_type, content) VALUES (%s, 'image/png', %s)",
                    (ent, b"\x89PNG"))
        driver = _id(conn, "INSERT INTO driver (enterprise_id, name, phone, license_no, photo_id) VALUES (%s, %s, %s, %s, %s)",
                     (ent, f"详情司机{tag}", "13900000000", f"LN{tag}", photo))
        plate = f"粤B{tag[:5].upper()}"
        car = _id(conn, "INSERT INTO car (enterprise_id, plate_number, vin, driver_id) VALUES (%s, %s, %s, %s)",
                  (ent, plate, f"LDET{tag}", driver))
        devices = []
        for n, (state, acc) in enumerate(((3, 1), (2, 0))):
            devices.append(_id(conn, "INSERT INTO device (enterprise_id, car_id, phone, device_sn, state, biz_state, acc)"
                                     " VALUES (%s, %s, %s, %s, %s, 1, %s)",
                               (ent, car, f"0{int(tag, 16) % 10**10:010d}{n}", f"SN{tag}{n}", state, acc)))
        master, spare = devices
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (master, car))
        conn.execute("INSERT INTO sim (enterprise_id, iccid, msisdn, device_id) VALUES (%s, %s, %s, %s)",
                     (ent, f"8986{tag}", f"1440{int(tag, 16) % 10**9:09d}", master))
        midnight = local_midnight()
        points = [(midnight - timedelta(hours=1), 900.0, 1),  # yesterday: neither mileage nor alarm counts
                  (midnight + timedelta(minutes=1), 1000.0, 0),
                  (midnight + timedelta(minutes=2), 1001.5, 0b101),
                  (midnight + timedelta(minutes=3), 1002.5, 1 << 1)]
        for at, km, alarm in points:
            conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, mileage_km,"
                         " alarm_flags, status_flags) VALUES (%s, %s, %s, %s, 114.0579, 22.5431, 40, %s, %s, 3)",
                         (master, at, car, ent, km, alarm))
        conn.execute("INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, speed_kmh, mileage_km,"
                     " alarm_flags, status_flags) VALUES (%s, %s, %s, %s, 114.0579, 22.5431, 40, 1002.5, 2, 1)",
                     (master, car, ent, points[-1][0]))
        conn.commit()
    return Detailed(car, master, spare, plate, photo)


def _detail(client: FlaskClient, headers: dict[str, str], car_id: int, **query: Any) -> Any:
    return client.get(f"/api/car/{car_id}/detail.json", query_string=query, headers=headers)


def test_detail_shows_the_car_its_devices_sim_driver_state_position_and_today(
    client: FlaskClient, login: Login, detailed: Detailed
) -> None:
    reply = _detail(client, login("admin_a"), detailed.car_id)
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["car"]["plateNumber"] == detailed.plate and data["car"]["masterDeviceId"] == detailed.master_id
    assert data["driver"]["name"].startswith("详情司机") and data["driver"]["photoId"] == detailed.photo_id
    assert [d["id"] for d in data["devices"]] == [detailed.master_id, detailed.spare_id]  # master first
    master, spare = data["devices"]
    assert (master["master"], master["online"], spare["online"]) == (True, 1, 0)
    assert master["sim"]["iccid"].startswith("8986") and spare["sim"] is None
    assert data["deviceId"] == detailed.master_id and data["protocol"] == "jt808"
    assert data["state"] == {"online": 1, "deviceState": 3, "bizState": 1, "acc": 1}
    assert data["position"]["address"]["address"] == "广东省深圳市福田区"
    assert (data["position"]["speed"], data["position"]["alarmType"], data["position"]["acc"]) == (40, 2, 1)
    today = data["today"]
    # today's mileage is the fleet figure: the sane odometer deltas since midnight (1.5 + 1.0 km)
    assert (today["mileageKm"], today["points"], today["alarmCount"]) == (2.5, 3, 2)
    assert [a["bits"] for a in today["alarms"]] == [[1], [0, 2]]  # newest first
    assert [(p["id"], p["source"]) for p in data["photos"]] == [(detailed.photo_id, "driver")]


def test_device_id_picks_the_shown_device(client: FlaskClient, login: Login, detailed: Detailed, demo: Demo) -> None:
    data = _detail(client, login("admin_a"), detailed.car_id, deviceId=detailed.spare_id).json["data"]
    assert data["deviceId"] == detailed.spare_id and data["state"]["online"] == 0
    assert data["position"] is None and data["today"]["points"] == 0
    other = _detail(client, login("admin_a"), detailed.car_id, deviceId=demo.a.device_id)
    assert other.status_code == 404 and "is not a device of this car" in error_text(other, "en-US")


def test_another_enterprises_car_is_a_404_and_the_parent_sees_it_unless_own_only(
    client: FlaskClient, login: Login, detailed: Detailed
) -> None:
    assert _detail(client, login("admin_b"), detailed.car_id).status_code == 404
    assert _detail(client, login("admin_b"), detailed.car_id, isParent="true").status_code == 404
    assert _detail(client, login("admin"), detailed.car_id, isParent="false").status_code == 404
    assert _detail(client, login("admin"), detailed.car_id).status_code == 200
    assert _detail(client, login("admin"), detailed.car_id, isParent="true").status_code == 200


def test_a_car_without_devices_has_no_state_nor_position(client: FlaskClient, login: Login, pg_url: str,
                                                         demo: Demo) -> None:
    with connect(pg_url) as conn:
        car = _id(conn, "INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s)",
                  (demo.enterprises["a"], f"粤Z{uuid.uuid4().hex[:5].upper()}"))
        conn.commit()
    data = _detail(client, login("admin_a"), car).json["data"]
    assert (data["devices"], data["state"], data["position"], data["driver"], data["photos"]) == ([], None, None, None, [])
    assert data["today"]["alarms"] == [] and data["today"]["mileageKm"] is None


def test_bad_device_id_is_a_400(client: FlaskClient, login: Login, detailed: Detailed) -> None:
    reply = _detail(client, login("admin_a"), detailed.car_id, deviceId="x")
    assert reply.status_code == 400 and "deviceId" in error_text(reply, "en-US")


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
