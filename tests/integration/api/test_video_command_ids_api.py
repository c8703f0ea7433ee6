"""``POST /api/command/{id}/9101.json`` and ``9102.json`` read ``{id}`` as console-spec §7's device id when the
body names that device, and as platform-spec §7's car id otherwise: with the device id of one vehicle equal
to the car id of another, each form reaches its own terminal (the 0x9101 / 0x9102 on jt808.downlink.v1,
real Kafka, keyed by that terminal's phone), and another enterprise's user reaches neither."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.media import MEDIA_KEY, MediaClient
from api.services import DOWNLINKS_KEY
from fleet.enums import DeviceState
from fleet.phones import canonical_phone
from fleet.settings import MediaServerSettings
from tests.integration.api.conftest import Demo
from tests.integration.api.test_commands_api import Downlinked
from tests.integration.api.test_console_api import bearer, make_user
from tests.support.media import ThreadedMediaServer
from warehouse.db import connect

pytestmark = pytest.mark.timeout(120)
SECRET = b"video-ids-secret"
VIDEO_USER = {"command": ["cmd", "get", "query"]}


@dataclass(frozen=True)
class Vehicle:
    car_id: int
    device_id: int
    phone: str


def _vehicle(conn: Any, enterprise_id: int, *, car_id: int | None = None, device_id: int | None = None) -> Vehicle:
    """An online camera vehicle with one device; ``car_id`` / ``device_id`` chosen when given."""
    tag = uuid.uuid4().int % 10**8
    car = conn.execute("INSERT INTO car (id, enterprise_id, plate_number) VALUES (COALESCE(%s, nextval('car_id_seq')),"
                       " %s, %s) RETURNING id", (car_id, enterprise_id, f"京D{tag:08d}"[:12])).fetchone()[0]
    phone = f"16{tag:08d}0"
    device = conn.execute(
        "INSERT INTO device (id, enterprise_id, car_id, phone, device_sn, state, protocol_version, has_video,"
        " video_channel, session_address) VALUES (COALESCE(%s, nextval('device_id_seq')), %s, %s, %s, %s, %s,"
        " '2013', 1, '1,2', '127.0.0.1') RETURNING id",
        (device_id, enterprise_id, car, phone, f"IDS{tag}", int(DeviceState.ONLINE))).fetchone()[0]
    conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
    return Vehicle(int(car), int(device), phone)


@pytest.fixture(scope="module")
def shared_id(pg_url: str, demo: Demo) -> tuple[int, Vehicle, Vehicle]:
    """(n, the vehicle whose device id is n, the vehicle whose car id is n): n is free in both tables."""
    with connect(pg_url) as conn:
        n = int(conn.execute("SELECT GREATEST((SELECT max(id) FROM car), (SELECT max(id) FROM device)) + 1000"
                             " + (random() * 100000)::int").fetchone()[0])  # type: ignore[index]
        # the other two ids chosen too, so that no further id of the four coincides (the sequences are low)
        by_device = _vehicle(conn, demo.enterprises["a"], car_id=n + 1, device_id=n)
        by_car = _vehicle(conn, demo.enterprises["a"], car_id=n, device_id=n + 2)
        # ids taken outside the sequences: the sequences move past them, or a later module's inserts (thousands of
        # devices) would run into them
        for sequence, taken in (("device_id_seq", n + 2), ("car_id_seq", n + 1)):
            conn.execute("SELECT setval(%s::regclass, GREATEST(%s, COALESCE(pg_sequence_last_value(%s::regclass), 0)))",
                         (sequence, taken, sequence))
        conn.commit()
    return n, by_device, by_car


@pytest.fixture(scope="module")
def video_app(app: Flask, kafka_bootstrap: str) -> Iterator[Flask]:
    media = ThreadedMediaServer(SECRET)
    saved = {key: app.extensions.get(key) for key in (MEDIA_KEY, DOWNLINKS_KEY)}
    settings = MediaServerSettings(port=media.port, internal_url=f"http://127.0.0.1:{media.port}",
                                   public_host="127.0.0.1")
    app.extensions[MEDIA_KEY] = MediaClient(settings, SECRET)
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    try:
        yield app
    finally:
        app.extensions[DOWNLINKS_KEY].close()
        for key, value in saved.items():
            if value is None:
                app.extensions.pop(key, None)
            else:
                app.extensions[key] = value
        media.close()


@pytest.fixture
def downlinked(kafka_bootstrap: str) -> Iterator[Downlinked]:
    reader = Downlinked(kafka_bootstrap)
    yield reader
    reader.consumer.close()


def _sent(client: FlaskClient, headers: dict[str, str], downlinked: Downlinked, url: str,
          body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The reply's data and the Kafka key (the terminal's phone) of the downlink it put on the topic."""
    reply = client.post(url, headers=headers, json=body)
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    found = downlinked.read({str(data["id"])})
    assert len(found) == 1, found
    return data, found[0][0]


def test_the_device_form_and_the_car_form_reach_their_own_terminals(
        video_app: Flask, pg_url: str, demo: Demo, shared_id: tuple[int, Vehicle, Vehicle],
        downlinked: Downlinked) -> None:
    n, by_device, by_car = shared_id
    client = video_app.test_client()
    headers = bearer(client, make_user(pg_url, demo.enterprises["a"], VIDEO_USER).name)
    url = f"/api/command/{n}/9101.json"
    # console-spec §7: the body's deviceId is the path's id -> device n, of the other vehicle
    data, key = _sent(client, headers, downlinked, url, {"deviceId": n, "channelId": 1, "dataType": 0, "streamType": 1,
                                                         "messageId": "9101", "desc": "live", "name": "live"})
    assert (data["deviceId"], data["carId"], data["streamId"]) == (n, by_device.car_id, f"{n}-1-live")
    assert key == canonical_phone(by_device.phone)
    # platform-spec §7: no deviceId -> car n's master device
    data, key = _sent(client, headers, downlinked, url, {"channelId": 1})
    assert (data["deviceId"], data["carId"]) == (by_car.device_id, n) and key == canonical_phone(by_car.phone)
    # platform-spec §7 with the car's own device named
    data, key = _sent(client, headers, downlinked, url, {"channelId": 2, "deviceId": by_car.device_id})
    assert (data["deviceId"], data["carId"]) == (by_car.device_id, n) and key == canonical_phone(by_car.phone)

    # 9102 (console-spec §7's body has no deviceId): a stream of device n -> device n; one of car n's device -> car n
    stop = {"channelId": 1, "command": 0, "commadType": 0, "streamType": 1}
    data, key = _sent(client, headers, downlinked, f"/api/command/{n}/9102.json", {**stop, "streamId": f"{n}-1-live"})
    assert (data["deviceId"], data["carId"], data["state"]) == (n, by_device.car_id, "created")
    assert key == canonical_phone(by_device.phone)
    data, key = _sent(client, headers, downlinked, f"/api/command/{n}/9102.json",
                      {**stop, "streamId": f"{by_car.device_id}-1-live"})
    assert (data["deviceId"], data["carId"]) == (by_car.device_id, n) and key == canonical_phone(by_car.phone)


def test_the_car_form_names_only_that_cars_devices(
        video_app: Flask, pg_url: str, demo: Demo, shared_id: tuple[int, Vehicle, Vehicle]) -> None:
    _, by_device, by_car = shared_id
    client = video_app.test_client()
    headers = bearer(client, make_user(pg_url, demo.enterprises["a"], VIDEO_USER).name)
    reply = client.post(f"/api/command/{by_device.car_id}/9101.json", headers=headers,
                        json={"deviceId": by_car.device_id, "channelId": 1})
    assert reply.status_code == 404, reply.json


def test_another_enterprise_reaches_neither_form(video_app: Flask, pg_url: str, demo: Demo,
                                                 shared_id: tuple[int, Vehicle, Vehicle]) -> None:
    n, _, _ = shared_id
    client = video_app.test_client()
    headers = bearer(client, make_user(pg_url, demo.enterprises["b"], VIDEO_USER).name)
    for body in ({"deviceId": n, "channelId": 1}, {"channelId": 1}):
        reply = client.post(f"/api/command/{n}/9101.json", headers=headers, json=body)
        assert reply.status_code == 404, (body, reply.json)
    reply = client.post(f"/api/command/{n}/9102.json", headers=headers,
                        json={"streamId": f"{n}-1-live", "channelId": 1, "command": 0})
    assert reply.status_code == 404


def test_a_malformed_device_id_or_stream_id_is_a_400_naming_it(video_app: Flask, pg_url: str, demo: Demo,
                                                              shared_id: tuple[int, Vehicle, Vehicle]) -> None:
    n, _, _ = shared_id
    client = video_app.test_client()
    headers = bearer(client, make_user(pg_url, demo.enterprises["a"], VIDEO_USER).name)
    reply = client.post(f"/api/command/{n}/9101.json", headers=headers, json={"deviceId": "x", "channelId": 1})
    assert reply.status_code == 400 and reply.json["data"]["field"] == "deviceId"  # type: ignore[index]
    reply = client.post(f"/api/command/{n}/9102.json", headers=headers, json={"streamId": "nope", "command": 0})
    assert reply.status_code == 400 and reply.json["data"]["field"] == "streamId"  # type: ignore[index]
