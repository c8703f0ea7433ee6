"""Commands to terminals over HTTP on the real PostgreSQL and Kafka: the send routes write
the row and put the downlink on jt808.downlink.v1; offline refusal; validation; tenant isolation of car,
device and command; state.json; params.json; the batch text; Kafka down."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY
from fleet.enums import DeviceState
from fleet.topics import JT808_DOWNLINK
from tests.integration.api.conftest import ENGLISH, Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
OFFLINE = "终端不在线，不能发送指令！"


@dataclass(frozen=True)
class Target:
    car_id: int
    device_id: int
    phone: str
    plate: str


def make_vehicle(pg_url: str, enterprise_id: int, *, online: bool, devices: int = 1) -> list[Target]:
    """A car of ``enterprise_id`` with ``devices`` devices (the first is its master)."""
    tag = uuid.uuid4().int % 10**8
    plate = f"京C{tag:08d}"[:12]
    with connect(pg_url) as conn:
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise_id, plate)).fetchone()[0]  # type: ignore[index]
        out = []
        for index in range(devices):
            phone = f"17{tag:08d}{index}"
            device_id = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn, state, protocol_version)"
                " VALUES (%s, %s, %s, %s, %s, '2013') RETURNING id",
                (enterprise_id, car_id, phone, f"CMD{tag}{index}",
                 int(DeviceState.ONLINE if online else DeviceState.OFFLINE))).fetchone()[0]  # type: ignore[index]
            out.append(Target(car_id, device_id, phone, plate))
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (out[0].device_id, car_id))
        conn.commit()
    return out


class Downlinked:
    """Records put on jt808.downlink.v1 from now on."""

    def __init__(self, bootstrap: str) -> None:
        from kafka import KafkaConsumer, TopicPartition

        self.consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        tps = [TopicPartition(JT808_DOWNLINK, p) for p in sorted(self.consumer.partitions_for_topic(JT808_DOWNLINK) or ())]
        self.consumer.assign(tps)
        self.consumer.seek_to_end(*tps)
        for tp in tps:
            self.consumer.position(tp)

    def read(self, command_ids: set[str], polls: int = 20) -> list[tuple[str, dict[str, Any]]]:
        found: list[tuple[str, dict[str, Any]]] = []
        for _ in range(polls):
            for batch in self.consumer.poll(timeout_ms=500).values():
                found.extend((r.key.decode(), json.loads(r.value)) for r in batch)
            if command_ids <= {value["command_id"] for _, value in found}:
                break
        return [item for item in found if item[1]["command_id"] in command_ids]


@pytest.fixture(scope="module")
def kafka_app(app: Flask, kafka_bootstrap: str) -> Iterator[Flask]:
    previous = app.extensions.get(DOWNLINKS_KEY)
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    yield app
    app.extensions[DOWNLINKS_KEY].close()
    if previous is None:
        app.extensions.pop(DOWNLINKS_KEY, None)
    else:
        app.extensions[DOWNLINKS_KEY] = previous


@pytest.fixture
def downlinked(kafka_bootstrap: str) -> Iterator[Downlinked]:
    reader = Downlinked(kafka_bootstrap)
    yield reader
    reader.consumer.close()


def rows(pg_url: str, device_id: int) -> list[tuple[Any, ...]]:
    with connect(pg_url) as conn:
        return conn.execute("SELECT id, msg_id, state, payload, created_by_name FROM command WHERE device_id = %s"
                            " ORDER BY id", (device_id,)).fetchall()


def test_car_command_writes_the_row_and_the_downlink(kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                                     pg_url: str, downlinked: Downlinked) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    reply = client.post(f"/api/command/{target.car_id}/8104.json", headers=login("admin_a"), json={})
    assert reply.status_code == 200, reply.json
    body = reply.json
    assert body["message"] == "指令已下发，等待网关处理中"
    data = body["data"]
    assert data == {"id": data["id"], "carId": target.car_id, "deviceId": target.device_id, "msgId": 0x8104,
                    "state": "created"}
    assert rows(pg_url, target.device_id) == [(data["id"], 0x8104, "created", {}, "admin_a")]
    [(key, value)] = downlinked.read({str(data["id"])})
    assert key == target.phone.lstrip("0")
    assert value | {"created_at": None} == {"phone": key, "msg_id": 0x8104, "body_hex": "",
                                            "command_id": str(data["id"]), "created_at": None}
    with connect(pg_url) as conn:
        audit = conn.execute("SELECT user_name, action, changes FROM audit_log WHERE entity = 'command'"
                             " AND record_id = %s", (data["id"],)).fetchall()
    assert audit == [("admin_a", "create", {"msgId": "8104", "deviceId": target.device_id, "payload": {}})]

    state = client.get(f"/api/command/{data['id']}/state.json", headers=login("admin_a")).json["data"]
    assert state["state"] == "created" and state["plateNumber"] == target.plate and state["msgId"] == 0x8104
    assert state["createdByName"] == "admin_a" and isinstance(state["createdAt"], int) and state["sentAt"] is None


def test_device_command_8103_validated_and_encoded(kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                                   pg_url: str, downlinked: Downlinked) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    url = f"/api/device/{target.device_id}/command/8103.json"
    bad = client.post(url, headers={**login("admin_a"), **ENGLISH}, json={"paramList": [{"id": "0055", "value": 200}]})
    assert bad.status_code == 400 and bad.json["message"] == "最高速度范围 1~180 km/h"
    assert "must be 1 to 180 km/h" in error_text(bad, "en-US")
    assert bad.json["data"] == {"field": "0055"}
    empty = client.post(url, headers=login("admin_a"), json={"paramList": [{"id": "0056", "value": None}]})
    assert empty.status_code == 400 and empty.json["message"].startswith("持续时间不能为空")
    assert rows(pg_url, target.device_id) == []  # nothing written for a refused payload
    good = client.post(url, headers=login("admin_a"),
                       json={"paramList": [{"id": "0055", "value": 60}, {"id": "0056", "value": 10}]})
    assert good.status_code == 200, good.json
    [(_, value)] = downlinked.read({str(good.json["data"]["id"])})
    assert value["msg_id"] == 0x8103 and value["body_hex"] == "02" "00000055" "04" "0000003c" "00000056" "04" "0000000a"


def test_offline_terminal_is_refused_before_anything_is_written(kafka_app: Flask, client: FlaskClient, login: Login,
                                                                demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    for url in (f"/api/command/{target.car_id}/8300.json", f"/api/device/{target.device_id}/command/8300.json"):
        reply = client.post(url, headers=login("admin_a"), json={"content": "hello"})
        assert reply.status_code == 409 and reply.json["message"].startswith(OFFLINE), reply.json
    assert rows(pg_url, target.device_id) == []


def test_car_command_to_a_named_device_of_that_car_only(kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                                        pg_url: str) -> None:
    master, second = make_vehicle(pg_url, demo.enterprises["a"], online=True, devices=2)
    [other] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    reply = client.post(f"/api/command/{master.car_id}/8201.json", headers=login("admin_a"),
                        json={"deviceId": second.device_id})
    assert reply.status_code == 200 and reply.json["data"]["deviceId"] == second.device_id
    foreign = client.post(f"/api/command/{master.car_id}/8201.json", headers=login("admin_a"),
                          json={"deviceId": other.device_id})
    assert foreign.status_code == 404
    unsupported = client.post(f"/api/command/{master.car_id}/9999.json", headers=login("admin_a"), json={})
    assert unsupported.status_code == 404  # only the commands api/commands.py builds have routes


def test_another_enterprises_car_device_and_command_do_not_exist(kafka_app: Flask, client: FlaskClient, login: Login,
                                                                 demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    sent = client.post(f"/api/device/{target.device_id}/command/8104.json", headers=login("admin_a"), json={})
    command_id = sent.json["data"]["id"]
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO device_param (device_id, param_id, value_hex) VALUES (%s, 85, '0000003C')",
                     (target.device_id,))
        conn.commit()
    b = login("admin_b")
    for subtree in ({}, {"isParent": "true"}):
        for method, url in (("POST", f"/api/command/{target.car_id}/8104.json"),
                            ("POST", f"/api/device/{target.device_id}/command/8104.json"),
                            ("GET", f"/api/command/{command_id}/state.json"),
                            ("GET", f"/api/device/{target.device_id}/terminal/params.json")):
            reply = client.open(url, method=method, headers=b, query_string=subtree,
                                json={} if method == "POST" else None)
            assert reply.status_code == 404, (url, reply.json)
    batch = client.post("/api/batch/command/8300.json", headers=b, json={"deviceIds": [target.device_id], "content": "x"})
    assert batch.json["data"]["commands"][0]["id"] is None
    assert [r[0] for r in rows(pg_url, target.device_id)] == [command_id]  # B sent nothing
    # the owner reads them; the parent enterprise's administrator too, with isParent
    params = client.get(f"/api/device/{target.device_id}/terminal/params.json", headers=login("admin_a"))
    assert params.json["data"] == {"0055": "0000003C"}
    parent = client.get(f"/api/command/{command_id}/state.json", headers=login("admin"), query_string={"isParent": "true"})
    assert parent.status_code == 200 and parent.json["data"]["id"] == command_id


def test_params_json_is_empty_before_any_0104(client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    reply = client.get(f"/api/device/{target.device_id}/terminal/params.json", headers=login("admin_a"))
    assert reply.status_code == 200 and reply.json["data"] == {}


def test_batch_text_lists_each_device_with_its_outcome(kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                                       pg_url: str, downlinked: Downlinked) -> None:
    [online] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    [offline] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    payload = {"deviceIds": [online.device_id, offline.device_id, online.device_id], "content": "注意安全",
               "tts": True}
    reply = client.post("/api/batch/command/8300.json", headers=login("admin_a"), json=payload)
    assert reply.status_code == 200, reply.json
    first, second = reply.json["data"]["commands"]  # a repeated id is sent once
    assert first["deviceId"] == online.device_id and isinstance(first["id"], int)
    assert second == {"deviceId": offline.device_id, "id": None, "message": OFFLINE, "localMessage": OFFLINE}
    english = client.post("/api/batch/command/8300.json", headers={**login("admin_a"), **ENGLISH}, json=payload)
    assert english.json["data"]["commands"][1]["message"] == OFFLINE
    assert english.json["data"]["commands"][1]["localMessage"] == "the terminal is offline; the command was not sent"
    [(_, value)] = downlinked.read({str(first["id"])})
    assert value["msg_id"] == 0x8300 and value["body_hex"] == "08" + "注意安全".encode("gbk").hex()
    empty = client.post("/api/batch/command/8300.json", headers=login("admin_a"), json=payload | {"content": ""})
    assert empty.status_code == 400 and empty.json["message"].startswith("下发内容不能为空")


def test_kafka_down_answers_503_and_fails_the_row(app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                                  pg_url: str, free_port: Callable[[], int]) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    previous = app.extensions.get(DOWNLINKS_KEY)
    app.extensions[DOWNLINKS_KEY] = Downlinks(f"127.0.0.1:{free_port()}", 1.0)  # nobody listens there
    headers = login("admin_a")
    try:
        started = time.monotonic()
        reply = client.post(f"/api/device/{target.device_id}/command/8201.json", headers=headers, json={})
        waited = time.monotonic() - started
    finally:
        app.extensions[DOWNLINKS_KEY].close()
        if previous is None:
            app.extensions.pop(DOWNLINKS_KEY, None)
        else:
            app.extensions[DOWNLINKS_KEY] = previous
    assert reply.status_code == 503, reply.json
    # the send timeout (1 s here) bounds the wait, the first contact with the broker included: an API worker
    # is not held for kafka-python's 30 s bootstrap
    assert waited < 10, waited
    [(_, _, state, _, _)] = rows(pg_url, target.device_id)
    assert state == "failed"


def test_sending_needs_command_cmd(client: FlaskClient, demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    reader = make_user(pg_url, demo.enterprises["a"], {"command": ["query", "get"]})
    headers = bearer(client, reader.name)
    reply = client.post(f"/api/device/{target.device_id}/command/8104.json", headers=headers, json={})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "command:cmd"
    assert client.get(f"/api/device/{target.device_id}/terminal/params.json", headers=headers).status_code == 200
