"""Vehicles, terminals, SIM cards, drivers and groups beyond the generic entity tests
(test_entities_api.py): clashes, references across enterprises, a car's devices and master device,
soft delete keeping history, the group query of platform-spec §7, disable / enable, the current
driver of a terminal, driver photos. Every test makes its own rows."""

from __future__ import annotations

import base64
import io
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.query.entities import WRITABLE
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_entities_api import national_id
from tests.integration.api.test_spreadsheets_api import finished, make_file, upload
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _digits(n: int) -> str:
    return str(uuid.uuid4().int)[:n]


def post(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any]) -> Any:
    return client.post(f"/api/common/{entity}.json", headers=headers, json=body)


def make(client: FlaskClient, headers: dict[str, str], entity: str, **body: Any) -> dict[str, Any]:
    defaults: dict[str, dict[str, Any]] = {
        "device": {"phone": _digits(12), "deviceSn": f"SN{_digits(10)}"},
        "car": {"plateNumber": f"京Z{_digits(6)}"},
        "group": {"name": f"车队{_digits(8)}"},
        "driver": {"name": "测试司机"},
        "sim": {"msisdn": _digits(13)},
    }
    reply = post(client, headers, entity, {**defaults[entity], **body})
    assert reply.status_code == 200, reply.json
    data: dict[str, Any] = reply.json["data"]
    return data


def get(client: FlaskClient, headers: dict[str, str], entity: str, record_id: int) -> Any:
    return client.get(f"/api/common/{entity}/{record_id}.json", headers=headers)


def patch(client: FlaskClient, headers: dict[str, str], entity: str, record_id: int, body: dict[str, Any]) -> Any:
    return client.patch(f"/api/common/{entity}/{record_id}.json", headers=headers, json=body)


def test_vin_plate_phone_serial_and_national_id_clashes_are_409_naming_the_field(
    client: FlaskClient, login: Login
) -> None:
    a = login("admin_a")
    car = make(client, a, "car", vin=f"LZZ{_digits(14)}")
    device = make(client, a, "device")
    driver = make(client, a, "driver", nationalId=national_id(f"t{uuid.uuid4().hex[:12]}"))
    for entity, field, value in (("car", "vin", car["vin"]), ("car", "plateNumber", car["plateNumber"]),
                                 ("device", "phone", device["phone"]), ("device", "deviceSn", device["deviceSn"]),
                                 ("driver", "nationalId", driver["nationalId"])):
        fresh = make(client, a, entity)
        reply = patch(client, a, entity, fresh["id"], {field: value})
        assert reply.status_code == 409, reply.json
        assert reply.json["data"] == {"field": field} and field in error_text(reply, "en-US")


def test_a_terminal_phone_is_unique_across_enterprises(client: FlaskClient, login: Login) -> None:
    device = make(client, login("admin_a"), "device")
    reply = post(client, login("admin_b"), "device", {"phone": device["phone"], "deviceSn": "SNB1"})
    assert reply.status_code == 409 and reply.json["data"] == {"field": "phone"}


def test_an_invalid_national_id_is_400_with_the_spec_message(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    valid = national_id(f"t{uuid.uuid4().hex[:12]}")
    wrong_digit = valid[:17] + ("0" if valid[17] != "0" else "1")
    for bad in (wrong_digit, valid[:17], "110101199002301234"):
        reply = post(client, a, "driver", {"name": "张三", "nationalId": bad})
        assert reply.status_code == 400, bad
        assert reply.json["message"].startswith("身份证号码不合法") and reply.json["data"] == {"field": "nationalId"}


def test_another_enterprises_group_driver_or_device_is_404_naming_the_field(
    client: FlaskClient, login: Login
) -> None:
    a, b = login("admin_a"), login("admin_b")
    foreign = {"groupId": make(client, b, "group")["id"], "driverId": make(client, b, "driver")["id"],
               "masterDeviceId": make(client, b, "device")["id"], "deviceIds": [make(client, b, "device")["id"]]}
    for field, value in foreign.items():
        reply = post(client, a, "car", {"plateNumber": f"京Y{_digits(6)}", field: value})
        assert reply.status_code == 404, (field, reply.json)
        assert reply.json["data"] == {"field": field}
    reply = post(client, a, "sim", {"msisdn": _digits(13), "deviceId": foreign["masterDeviceId"]})
    assert reply.status_code == 404 and reply.json["data"] == {"field": "deviceId"}


def test_a_parent_admin_cannot_give_a_subsidiary_car_its_own_group(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    parent = login("admin")
    group = make(client, parent, "group")  # the parent's group, visible to the parent
    reply = post(client, parent, "car", {"plateNumber": f"京X{_digits(6)}", "enterpriseId": demo.enterprises["a"],
                                         "groupId": group["id"]})
    assert reply.status_code == 404 and reply.json["data"] == {"field": "groupId"}


def devices_of(client: FlaskClient, headers: dict[str, str], car_id: int) -> list[int]:
    reply = client.post("/api/common/query/device.json?countable=false&pageSize=1000", headers=headers,
                        json={"carId": car_id})
    return sorted(row["id"] for row in reply.json["data"]["list"])


def test_a_cars_devices_and_master_device(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    d1, d2, d3 = (make(client, a, "device")["id"] for _ in range(3))
    car = make(client, a, "car", deviceIds=[d1, d2], masterDeviceId=d2)
    assert car["masterDeviceId"] == d2 and devices_of(client, a, car["id"]) == sorted([d1, d2])

    reply = patch(client, a, "car", car["id"], {"masterDeviceId": d3, "deviceIds": [d1, d2]})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "masterDeviceId"}
    other = make(client, a, "car")
    reply = patch(client, a, "car", other["id"], {"deviceIds": [d1]})  # fitted to the first car
    assert reply.status_code == 409 and reply.json["data"] == {"field": "deviceIds"}

    # naming a new master fits it; dropping the master falls back to a remaining device
    assert patch(client, a, "car", car["id"], {"masterDeviceId": d3}).json["data"]["masterDeviceId"] == d3
    assert devices_of(client, a, car["id"]) == sorted([d1, d2, d3])
    updated = patch(client, a, "car", car["id"], {"deviceIds": [d1]}).json["data"]
    assert updated["masterDeviceId"] == d1 and devices_of(client, a, car["id"]) == [d1]
    assert patch(client, a, "car", other["id"], {"deviceIds": [d2]}).status_code == 200  # d2 was freed


def test_import_aliases_name_the_group_and_master_device_by_key(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    group, device = make(client, a, "group"), make(client, a, "device")
    car = make(client, a, "car", groupName=group["name"], masterDevicePhone=device["phone"])
    assert (car["groupId"], car["groupName"]) == (group["id"], group["name"])
    assert (car["masterDeviceId"], car["masterDevicePhone"]) == (device["id"], device["phone"])
    reply = post(client, a, "car", {"plateNumber": f"京W{_digits(6)}", "groupName": "没有这个车队"})
    assert reply.status_code == 404 and reply.json["data"] == {"field": "groupName"}


def test_deleting_a_car_keeps_its_gps_rows_frees_its_devices_and_leaves_the_car_view(
    client: FlaskClient, login: Login, pg_url: str, demo: Demo
) -> None:
    a = login("admin_a")
    device = make(client, a, "device")
    car = make(client, a, "car", masterDeviceId=device["id"])
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                     " VALUES (%s, now(), %s, %s, 116.3, 39.9, 20)", (device["id"], car["id"], demo.enterprises["a"]))
    view = client.post("/api/common/query/carView.json", headers=a, json={"carId": car["id"]}).json["data"]["list"]
    assert [row["masterDevicePhone"] for row in view] == [device["phone"]]

    assert client.delete(f"/api/common/car/{car['id']}.json", headers=a).status_code == 200
    assert client.post("/api/common/query/carView.json", headers=a, json={"carId": car["id"]}).json["data"]["list"] == []
    assert client.get(f"/api/common/carView/{car['id']}.json", headers=a).status_code == 404
    track = client.post("/api/common/query/gps.json", headers=a, json={"carId": car["id"]}).json["data"]["list"]
    assert [row["deviceId"] for row in track] == [device["id"]]  # the history stays
    assert get(client, a, "device", device["id"]).json["data"]["carId"] is None
    assert make(client, a, "car", deviceIds=[device["id"]])["masterDeviceId"] == device["id"]


def test_one_sim_card_per_terminal(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    device = make(client, a, "device")
    make(client, a, "sim", deviceId=device["id"], iccid=_digits(20), operator=1, expireDate="2030-12-31")
    reply = post(client, a, "sim", {"msisdn": _digits(13), "deviceId": device["id"]})
    assert reply.status_code == 409 and reply.json["data"] == {"field": "deviceId"}


def test_channels_and_dates_are_checked(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    for field, value in (("videoChannel", "1,1"), ("videoChannel", "14"), ("talkChannel", "1;2")):
        reply = post(client, a, "device", {"phone": _digits(12), "deviceSn": "SNX", field: value})
        assert reply.status_code == 400 and reply.json["data"] == {"field": field}, value
    assert make(client, a, "device", videoChannel="1,2,33,37", talkChannel="36")["videoChannel"] == "1,2,33,37"
    reply = post(client, a, "sim", {"msisdn": _digits(13), "expireDate": "2030-02-30"})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "expireDate"}


def test_group_tree_rules_and_the_spec_group_query(client: FlaskClient, login: Login, demo: Demo) -> None:
    a = login("admin_a")
    top = make(client, a, "group", type=1)
    child = make(client, a, "group", type=1, parentId=top["id"])
    reply = patch(client, a, "group", top["id"], {"parentId": child["id"]})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "parentId"}
    assert client.delete(f"/api/common/group/{top['id']}.json", headers=a).status_code == 409  # has a child

    reply = client.post("/api/common/query/group.json?select=id,name&countable=false&orderBy=createTime"
                        "&pageNo=1&pageSize=1000", headers=a,
                        json={"enterpriseId": demo.enterprises["a"], "type": 1, "parentId": top["id"]})
    assert reply.status_code == 200 and reply.json["data"]["list"] == [{"id": child["id"], "name": child["name"]}]


def test_disable_and_enable_a_terminal(client: FlaskClient, login: Login, pg_url: str) -> None:
    a = login("admin_a")
    device = make(client, a, "device")
    reply = client.post(f"/api/device/{device['id']}/disable.json", headers=a)
    assert reply.status_code == 200 and reply.json["data"] == {"id": device["id"], "state": 5}
    assert get(client, a, "device", device["id"]).json["data"]["state"] == 5
    assert patch(client, a, "device", device["id"], {"state": 0}).status_code == 400  # not a form field
    assert client.post(f"/api/device/{device['id']}/enable.json", headers=a).json["data"]["state"] == 0
    assert client.post(f"/api/device/{device['id']}/disable.json", headers=login("admin_b")).status_code == 404
    with connect(pg_url) as conn:
        actions = conn.execute("SELECT changes FROM audit_log WHERE entity = 'device' AND record_id = %s"
                               " AND action = 'update' ORDER BY id", (device["id"],)).fetchall()
    assert [row[0]["state"] for row in actions] == [{"before": 0, "after": 5}, {"before": 5, "after": 0}]


def test_the_current_driver_of_a_terminal(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    device = make(client, a, "device")
    assert client.get(f"/api/device/driver/{device['id']}.json", headers=a).json["data"] is None
    driver = make(client, a, "driver", name="李四")
    make(client, a, "car", masterDeviceId=device["id"], driverId=driver["id"])
    reply = client.get(f"/api/device/driver/{device['id']}.json", headers=a)
    assert reply.json["data"] == get(client, a, "driver", driver["id"]).json["data"]
    assert client.get(f"/api/device/driver/{device['id']}.json", headers=login("admin_b")).status_code == 404


def test_a_driver_photo_is_uploaded_linked_and_read_back(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    reply = client.post("/api/driver/photo.json", headers=a, data={"file": (io.BytesIO(PNG), "p.png")},
                        content_type="multipart/form-data")
    assert reply.status_code == 200, reply.json
    photo = reply.json["data"]["id"]
    driver = make(client, a, "driver", photo=photo)
    assert driver["photoId"] == photo
    image = client.get(f"/api/driver/photo/{photo}.json", headers=a).json["data"]
    assert image["contentType"] == "image/png" and base64.b64decode(image["content"]) == PNG
    assert client.get(f"/api/driver/photo/{photo}.json", headers=login("admin_b")).status_code == 404
    not_image = client.post("/api/driver/photo.json", headers=a, content_type="multipart/form-data",
                            data={"file": (io.BytesIO(b"GIF89a..."), "x.gif")})
    assert not_image.status_code == 400 and not_image.json["data"] == {"field": "file"}
    assert post(client, login("admin_b"), "driver", {"name": "王五", "photo": photo}).status_code == 404


def test_an_onboarding_sheet_names_group_and_master_terminal_by_their_keys(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    group = make(client, a, "group")
    phones = [_digits(12), _digits(12)]
    devices = make_file([["终端手机号", "终端编号"], *[[p, f"SN{p}"] for p in phones]], "csv")
    job = upload(client, a, WRITABLE["device"], devices, "devices.csv").json["data"]
    assert finished(client, a, WRITABLE["device"], job["jobId"])["created"] == 2
    plates = [f"京V{_digits(6)}", f"京V{_digits(6)}", f"京V{_digits(6)}"]
    cars = make_file([["车牌号", "车组名称", "主终端手机号"], [plates[0], group["name"], phones[0]],
                      [plates[1], group["name"], phones[1]], [plates[2], "没有这个车队", ""]], "csv")
    job = upload(client, a, WRITABLE["car"], cars, "cars.csv").json["data"]
    done = finished(client, a, WRITABLE["car"], job["jobId"])
    assert (done["created"], done["failed"]) == (2, 1)
    assert [(e["row"], e["field"]) for e in done["errors"]] == [(4, "groupName")]
    rows = client.post("/api/common/query/carView.json", headers=a,
                       json={"plateNumber.in": plates}).json["data"]["list"]
    assert sorted((r["plateNumber"], r["groupId"], r["masterDevicePhone"]) for r in rows) == sorted(
        [(plates[0], group["id"], phones[0]), (plates[1], group["id"], phones[1])])


def test_null_device_list_detaches_every_device(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    device = make(client, a, "device")
    car = make(client, a, "car", deviceIds=[device["id"]])
    assert make(client, a, "car", deviceIds=None)["masterDeviceId"] is None
    assert patch(client, a, "car", car["id"], {"deviceIds": None}).json["data"]["masterDeviceId"] is None
    assert devices_of(client, a, car["id"]) == []


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
