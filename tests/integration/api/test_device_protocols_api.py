"""A device's protocol: jt808 or one of the GB gateway's (gb32960, gb17691, hj1239, db4403t363), each with its own
protocol versions (fleet.enums.DEVICE_PROTOCOL_VERSIONS), on the device form and the spreadsheet import."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from flask.testing import FlaskClient

from api.query.entities import WRITABLE
from tests.integration.api.test_fleet_api import get, make, patch, post
from tests.integration.api.test_spreadsheets_api import finished, make_file, upload

Login = Callable[[str], dict[str, str]]


def _phone() -> str:
    return "13" + str(uuid.uuid4().int)[:9]


def test_a_gb_device_takes_its_protocols_default_version_and_keeps_a_valid_one(
        client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    assert make(client, a, "device", protocol="gb32960")["protocolVersion"] == "2016"
    assert make(client, a, "device", protocol="gb32960", protocolVersion="2025")["protocolVersion"] == "2025"
    assert make(client, a, "device", protocol="gb17691")["protocolVersion"] == "2018"
    assert make(client, a, "device", protocol="hj1239")["protocolVersion"] == "2021"
    assert make(client, a, "device", protocol="db4403t363")["protocolVersion"] == "2021"
    assert make(client, a, "device")["protocol"] == "jt808"


def test_rejects_a_version_of_another_protocol_naming_protocol_version(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    for protocol, version in (("jt808", "2016"), ("gb32960", "2013"), ("hj1239", "2018")):
        reply = post(client, a, "device", {"phone": _phone(), "deviceSn": f"SN{uuid.uuid4().hex[:10]}",
                                            "protocol": protocol, "protocolVersion": version})
        assert reply.status_code == 400 and reply.json["data"] == {"field": "protocolVersion"}, (protocol, version)
    reply = post(client, a, "device", {"phone": _phone(), "deviceSn": f"SN{uuid.uuid4().hex[:10]}",
                                        "protocol": "gb99999"})
    assert reply.status_code == 400


def test_changing_the_protocol_moves_the_version_to_the_new_protocols_default(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    device = make(client, a, "device", protocolVersion="2019")
    changed = patch(client, a, "device", device["id"], {"protocol": "gb17691"})
    assert changed.status_code == 200, changed.json
    assert (changed.json["data"]["protocol"], changed.json["data"]["protocolVersion"]) == ("gb17691", "2018")
    wrong = patch(client, a, "device", device["id"], {"protocolVersion": "2013"})  # a jt808 version
    assert wrong.status_code == 400 and wrong.json["data"] == {"field": "protocolVersion"}
    assert get(client, a, "device", device["id"]).json["data"]["protocolVersion"] == "2018"


def test_the_import_accepts_gb_protocols_and_refuses_a_mismatched_version_row(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    entity = WRITABLE["device"]
    good, bad = _phone(), _phone()
    content = make_file([["phone", "deviceSn", "protocol", "protocolVersion"],
                         [good, f"SN{uuid.uuid4().hex[:10]}", "gb32960", "2025"],
                         [bad, f"SN{uuid.uuid4().hex[:10]}", "gb32960", "2019"]], "csv")
    reply = upload(client, a, entity, content, "devices.csv")
    assert reply.status_code == 200, reply.json
    job = finished(client, a, entity, reply.json["data"]["jobId"])
    rows = client.post("/api/common/query/device.json?countable=false", headers=a,
                       json={"phone.in": [good, bad]}).json["data"]["list"]  # type: ignore[index]
    assert [(r["phone"], r["protocol"], r["protocolVersion"]) for r in rows] == [(good, "gb32960", "2025")], job
