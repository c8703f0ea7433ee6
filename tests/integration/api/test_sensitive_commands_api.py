"""Commands that can take a terminal off the platform, over HTTP on the real PostgreSQL and Kafka: every
8103 parameter is range-checked in one typed form, before the offline check; link and identity
parameters, tracking without an end and delete-after-upload need the sensitive-command permission, a
confirmation and leave an audit line (credentials masked); photo bursts are capped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY
from protocols.jt808.messages.t8801_camera_shoot import CameraShoot
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_commands_api import Downlinked, Login, make_vehicle, rows
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

OPERATOR = {"command": ["cmd", "query", "get"]}


@pytest.fixture(scope="module")
def kafka_app(app: Flask, kafka_bootstrap: str) -> Iterator[Flask]:
    previous = app.extensions.get(DOWNLINKS_KEY)
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    yield app
    app.extensions.pop(DOWNLINKS_KEY).close()
    if previous is not None:
        app.extensions[DOWNLINKS_KEY] = previous


@pytest.fixture
def downlinked(kafka_bootstrap: str) -> Iterator[Downlinked]:
    reader = Downlinked(kafka_bootstrap)
    yield reader
    reader.consumer.close()


def post(client: FlaskClient, headers: dict[str, str], device_id: int, code: str, body: Any) -> Any:
    return client.post(f"/api/device/{device_id}/command/{code}.json", headers=headers, json=body)


@pytest.mark.parametrize(("item", "field"), [
    ({"id": "0001", "value": 0}, "0001"),  # heartbeat 0: a flood of heartbeats
    ({"id": "0029", "value": 0xFFFFFFFF}, "0029"),  # report every 136 years
    ({"id": "0001", "value": "30"}, "0001"),  # text for a number: was read as hex 0x30
    ({"id": "0055", "value": "0000003C"}, "0055"),  # the old hex-as-value form
    ({"id": "F123", "value": "AB" * 255}, "F123"),  # an id outside the table, 255 bytes
    ({"id": "F123", "hex": "AB" * 255}, "F123"),
    ({"id": "0042", "value": b"10086;reset".hex()}, "0042"),  # a phone number that is not one
    ({"id": "0013", "value": "78" * 65}, "0013"),  # a server address longer than the table allows
    ({"id": "0084", "value": 200}, "0084"),  # plate colour outside JT/T 415
])
def test_8103_refuses_values_outside_the_parameter_table_before_the_offline_check(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str, item: dict[str, Any], field: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    reply = post(client, login("admin_a"), target.device_id, "8103", {"paramList": [item], "confirm": True})
    assert reply.status_code == 400, reply.json
    assert reply.json["data"]["field"] == field
    assert rows(pg_url, target.device_id) == []


def test_8103_to_an_offline_car_is_validated_first_a_bad_value_is_400_not_409(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    url = f"/api/command/{target.car_id}/8103.json"
    for item, field in (({"id": "0001", "value": "30"}, "0001"), ({"id": "0013", "value": 30}, "0013"),
                        ({"id": "0032", "value": "08001800"}, "0032")):
        reply = client.post(url, headers=login("admin_a"), json={"paramList": [item]})
        assert reply.status_code == 400 and reply.json["data"]["field"] == field, reply.json
    good = client.post(url, headers=login("admin_a"), json={"paramList": [{"id": "0001", "value": 30}]})
    assert good.status_code == 409  # a valid payload: only then is the terminal's state what refuses it
    assert rows(pg_url, target.device_id) == []


def test_8103_takes_numbers_as_numbers_text_as_text_and_bytes_only_as_hex(
        kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo, pg_url: str, downlinked: Downlinked) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    reply = post(client, login("admin_a"), target.device_id, "8103", {"paramList": [
        {"id": "0055", "value": 60}, {"id": "0029", "value": 30}, {"id": "0032", "hex": "08001800"}]})
    assert reply.status_code == 200, reply.json
    [(_, value)] = downlinked.read({str(reply.json["data"]["id"])})
    assert value["body_hex"] == "03" "00000055" "04" "0000003c" "00000029" "04" "0000001e" "00000032" "04" "08001800"
    [(_, _, _, payload, _)] = rows(pg_url, target.device_id)
    assert payload == {"paramList": [{"id": "0055", "value": 60}, {"id": "0029", "value": 30},
                                     {"id": "0032", "hex": "08001800"}]}


@pytest.mark.parametrize(("code", "body"), [
    ("8103", {"paramList": [{"id": "0013", "value": "203.0.113.9"}]}),  # main server address
    ("8103", {"paramList": [{"id": "0018", "value": 7000}]}),  # server TCP port
    ("8103", {"paramList": [{"id": "0010", "value": "cmnet"}]}),  # APN
    ("8103", {"paramList": [{"id": "0042", "value": "13800000000"}]}),  # factory-reset phone
    ("8103", {"paramList": [{"id": "0083", "value": "京A12345"}]}),  # the terminal's plate (identity)
    ("8202", {"interval": 5, "validity": 0}),  # tracking without an end
    ("8202", {"interval": 5, "validity": 0xFFFFFFFF}),
    ("8803", {"mediaType": 0, "channelId": 1, "eventCode": 0, "deleteFlag": 1}),  # upload, then delete
    ("8500", {"lock": 0}),  # vehicle control: unlock the doors
    ("8500", {"lock": 1}),
])
def test_sensitive_commands_need_their_own_permission(kafka_app: Flask, client: FlaskClient, demo: Demo, pg_url: str,
                                                      code: str, body: dict[str, Any]) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    operator = bearer(client, make_user(pg_url, demo.enterprises["a"], OPERATOR).name)
    reply = post(client, operator, target.device_id, code, body | {"confirm": True})
    assert reply.status_code == 403, reply.json
    assert reply.json["data"]["permission"] == "sensitiveCommand:cmd" and reply.json["data"]["sensitive"]
    assert rows(pg_url, target.device_id) == []


def test_an_operator_still_sends_ordinary_parameters_and_bounded_tracking(
        kafka_app: Flask, client: FlaskClient, demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    operator = bearer(client, make_user(pg_url, demo.enterprises["a"], OPERATOR).name)
    assert post(client, operator, target.device_id, "8103",
                {"paramList": [{"id": "0055", "value": 90}]}).status_code == 200
    assert post(client, operator, target.device_id, "8202", {"interval": 5, "validity": 600}).status_code == 200
    assert post(client, operator, target.device_id, "8202", {"interval": 0}).status_code == 200  # stop tracking


@pytest.mark.parametrize(("code", "body"), [
    ("8103", {"paramList": [{"id": "0013", "value": "203.0.113.9"}]}),
    ("8202", {"interval": 5, "validity": 0}),
    ("8803", {"mediaType": 0, "channelId": 1, "eventCode": 0, "deleteFlag": 1}),
    ("8500", {"lock": 0}),
])
def test_sensitive_commands_need_an_explicit_confirmation(kafka_app: Flask, client: FlaskClient, login: Login,
                                                          demo: Demo, pg_url: str, code: str,
                                                          body: dict[str, Any]) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    for confirm in ({}, {"confirm": False}, {"confirm": "true"}):
        reply = post(client, login("admin_a"), target.device_id, code, body | confirm)
        assert reply.status_code == 400, reply.json
        assert reply.json["data"]["field"] == "confirm" and "confirm: true" in error_text(reply, "en-US")
    assert rows(pg_url, target.device_id) == []
    assert post(client, login("admin_a"), target.device_id, code, body | {"confirm": True}).status_code == 200


def test_a_server_change_is_audited_with_old_and_new_values_and_the_password_masked(
        kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo, pg_url: str, downlinked: Downlinked) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    with connect(pg_url) as conn:  # the terminal's last 0x0104: the current address and password
        conn.execute("INSERT INTO device_param (device_id, param_id, value_hex) VALUES (%s, 19, %s), (%s, 18, %s)",
                     (target.device_id, b"10.0.0.1".hex().upper(), target.device_id, b"old-secret".hex().upper()))
        conn.commit()
    body = {"paramList": [{"id": "0013", "value": "203.0.113.9"}, {"id": "0012", "value": "new-secret"}],
            "confirm": True}
    reply = post(client, login("admin_a"), target.device_id, "8103", body)
    assert reply.status_code == 200, reply.json
    command_id = reply.json["data"]["id"]
    [(_, value)] = downlinked.read({str(command_id)})
    assert b"new-secret".hex() in value["body_hex"]  # the terminal gets the real value
    with connect(pg_url) as conn:
        [(user, changes)] = conn.execute("SELECT user_name, changes FROM audit_log WHERE entity = 'command'"
                                         " AND record_id = %s", (command_id,)).fetchall()
        stored = conn.execute("SELECT payload FROM command WHERE id = %s", (command_id,)).fetchone()[0]  # type: ignore[index]
    assert user == "admin_a"
    assert changes["deviceId"] == target.device_id and changes["phone"] == target.phone
    assert changes["confirmed"] is True and len(changes["sensitive"]) == 2
    assert changes["params"] == [
        {"id": "0013", "name": "main_server_address", "old": "10.0.0.1", "new": "203.0.113.9"},
        {"id": "0012", "name": "main_server_dial_password", "old": "******", "new": "******"},
    ]
    for kept in (json.dumps(changes), json.dumps(stored)):
        assert "secret" not in kept  # neither the old nor the new password is kept in clear


def test_8801_photo_bursts_are_capped_with_a_clear_error(kafka_app: Flask, client: FlaskClient, login: Login,
                                                         demo: Demo, pg_url: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    reply = post(client, login("admin_a"), target.device_id, "8801",
                 {"channelId": 1, "commandType": 2, "totalPicture": 65534})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "totalPicture"}, reply.json
    assert "totalPicture must be an integer from 0 to 10" in error_text(reply, "en-US")


@pytest.mark.parametrize(("version", "lock", "body"), [("2013", 1, "01"), ("2019", 0, "0001000100")])
def test_8500_locks_or_unlocks_the_doors_in_the_terminals_version(
        kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo, pg_url: str, downlinked: Downlinked,
        version: str, lock: int, body: str) -> None:
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET protocol_version = %s WHERE id = %s", (version, target.device_id))
        conn.commit()
    reply = post(client, login("admin_a"), target.device_id, "8500", {"lock": lock, "confirm": True})
    assert reply.status_code == 200, reply.json
    [(_, record)] = downlinked.read({str(reply.json["data"]["id"])})
    assert record["msg_id"] == 0x8500 and record["body_hex"] == body
    for bad in ({"lock": 2}, {"lock": True}, {}):
        refused = post(client, login("admin_a"), target.device_id, "8500", bad | {"confirm": True})
        assert refused.status_code == 400 and refused.json["data"]["field"] == "lock", refused.json


def test_8801_without_capture_settings_takes_the_console_spec_defaults(
        kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo, pg_url: str, downlinked: Downlinked) -> None:
    """Console-spec §7 capture payload: commandType 2, totalPicture 1, executionTime 0, saveFlag 0, resolution 2,
    quality 1, luminance 127, saturation 1, chromaticity 1."""
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
    reply = post(client, login("admin_a"), target.device_id, "8801", {"channelId": 3})
    assert reply.status_code == 200, reply.json
    [(_, record)] = downlinked.read({str(reply.json["data"]["id"])})
    shot = CameraShoot.decode(bytes.fromhex(record["body_hex"]), "2019")
    assert (shot.channel, shot.command, shot.interval_s, shot.save_flag) == (3, 1, 0, 0)
    assert (shot.resolution, shot.quality, shot.brightness, shot.saturation, shot.chroma) == (2, 1, 127, 1, 1)
    assert shot.contrast == 64  # not in the spec: the mid value


def test_8103_alarm_range_past_the_terminals_word_names_the_real_maximum_in_the_consoles_unit(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    """Console-spec §5 lets the form send 100000 km/h as overspeed warning difference (0x005B, 1/10 km/h on the
    wire); a WORD carries at most 6553.5 km/h: refused, never clamped."""
    [target] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    body = {"paramList": [{"id": "005B", "value": 100_000 * 10}]}
    english = post(client, login("admin_a") | {"X-Fleet-Language": "en-US"}, target.device_id, "8103", body)
    assert english.status_code == 400 and english.json["data"] == {"field": "005B"}, english.json
    assert english.json["localMessage"] == ("overspeed warning difference must be 0.1 to 6553.5 km/h:"
                                            " the terminal parameter is a WORD, at most 6553.5 km/h")
    chinese = post(client, login("admin_a") | {"X-Fleet-Language": "zh-CN"}, target.device_id, "8103", body)
    assert chinese.json["localMessage"] == "超时报警预警差值范围 0.1~6553.5 km/h，终端参数为 WORD，最大 6553.5 km/h"
    assert rows(pg_url, target.device_id) == []


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
