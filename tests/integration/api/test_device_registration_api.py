"""The administrator's "reset registration": scoped, audited, clears code and identity."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import ENGLISH, Demo, error_text
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
IDENTITY = ("SELECT auth_code, registered_terminal_id, registered_manufacturer_id, registered_terminal_model "
            "FROM device WHERE id = %s")


def _register(pg_url: str, device_id: int, code: str) -> None:
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET auth_code = %s, registered_terminal_id = '0000001', "
                     "registered_manufacturer_id = 'FLEET', registered_terminal_model = 'SIM-808', "
                     "registered_at = now() WHERE id = %s", (code, device_id))
        conn.commit()


def _unregister(pg_url: str, device_id: int) -> None:
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET auth_code = NULL, registered_terminal_id = NULL, registered_manufacturer_id = NULL, "
                     "registered_terminal_model = NULL, registered_at = NULL WHERE id = %s", (device_id,))
        conn.commit()


def _identity(pg_url: str, device_id: int) -> tuple[object, ...]:
    with connect(pg_url) as conn:
        row = conn.execute(IDENTITY, (device_id,)).fetchone()
    assert row is not None
    return tuple(row)


def test_reset_registration_clears_code_and_identity_and_is_audited(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    _register(pg_url, demo.a.device_id, "CODE-A")
    with caplog.at_level(logging.INFO, logger="fleet.api.audit"):
        reply = client.post(f"/api/device/{demo.a.device_id}/resetRegistration.json", headers=login("admin_a"))
    body: Any = reply.json
    assert reply.status_code == 200, body
    assert body["code"] == 0 and body["data"]["deviceId"] == demo.a.device_id
    assert body["data"]["resetAt"]
    assert _identity(pg_url, demo.a.device_id) == (None, None, None, None)
    [line] = [r.getMessage() for r in caplog.records if r.name == "fleet.api.audit"]
    assert f"device {demo.a.device_id}" in line and "by user admin_a" in line


def test_returns_404_for_reset_of_a_device_of_another_enterprise(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    _register(pg_url, demo.b.device_id, "CODE-B")
    try:
        reply = client.post(f"/api/device/{demo.b.device_id}/resetRegistration.json", headers=login("admin_a"))
        body: Any = reply.json
        assert reply.status_code == 404 and body["code"] == 404 and body["data"] is None
        missing: Any = client.post("/api/device/999999999/resetRegistration.json", headers=login("admin_a")).json
        assert missing["code"] == 404 and missing["message"] == "device 999999999 不存在"
        assert _identity(pg_url, demo.b.device_id)[0] == "CODE-B"
    finally:  # the session database is shared: leave B's demo terminal free to register (test_pipeline)
        _unregister(pg_url, demo.b.device_id)


def test_reset_registration_needs_a_signed_in_user(client: FlaskClient, demo: Demo) -> None:
    reply = client.post(f"/api/device/{demo.a.device_id}/resetRegistration.json")
    body: Any = reply.json
    assert reply.status_code == 401 and body["code"] == 40002


def test_expected_terminal_id_and_imei_are_recorded_and_checked_through_the_device_api(
        client: FlaskClient, login: Login) -> None:
    from tests.integration.api.test_fleet_api import get, make, patch

    a = login("admin_a")
    device = make(client, a, "device", expectedTerminalId="T808REAL", expectedImei="861234567890123")
    data = get(client, a, "device", device["id"]).json["data"]
    assert (data["expectedTerminalId"], data["expectedImei"]) == ("T808REAL", "861234567890123")
    bad = patch(client, {**a, **ENGLISH}, "device", device["id"], {"expectedImei": "86123"})
    assert bad.json["code"] == 400 and bad.json["data"] == {"field": "expectedImei"}
    assert "expectedImei" in error_text(bad, "en-US")
    assert patch(client, a, "device", device["id"], {"expectedImei": None}).status_code == 200
    assert get(client, a, "device", device["id"]).json["data"]["expectedImei"] is None


def _pending_request(pg_url: str, device_id: int) -> int:
    with connect(pg_url) as conn:
        row = conn.execute(
            "INSERT INTO registration_request (enterprise_id, device_id, phone, terminal_id, manufacturer_id, "
            "terminal_model, peer) SELECT enterprise_id, id, phone, '0000001', 'FLEET', 'SIM-808', '10.0.0.9:4000' "
            "FROM device WHERE id = %s RETURNING id", (device_id,)).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0])


def _request_state(pg_url: str, request_id: int) -> str:
    with connect(pg_url) as conn:
        row = conn.execute("SELECT state FROM registration_request WHERE id = %s", (request_id,)).fetchone()
    assert row is not None
    return str(row[0])


def test_a_pending_re_registration_is_approved_once_listed_and_audited(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    request_id = _pending_request(pg_url, demo.a.device_id)
    listed: Any = client.get("/api/device/registrationRequests.json", headers=login("admin_a")).json
    assert [r["peer"] for r in listed["data"] if r["id"] == request_id] == ["10.0.0.9:4000"]
    url = f"/api/device/{demo.a.device_id}/approveRegistration.json"
    assert client.post(url, headers=login("admin_a"), json={}).json["code"] == 400  # type: ignore[index]
    with caplog.at_level(logging.INFO, logger="fleet.api.audit"):
        reply: Any = client.post(url, headers=login("admin_a"), json={"requestId": request_id}).json
    assert reply["code"] == 0 and reply["data"] == {"requestId": request_id, "deviceId": demo.a.device_id,
                                                    "state": "approved"}
    assert _request_state(pg_url, request_id) == "approved"
    assert any("re-registration approved" in r.getMessage() and "by user admin_a" in r.getMessage()
               for r in caplog.records if r.name == "fleet.api.audit")
    again: Any = client.post(url.replace("approve", "refuse"), headers=login("admin_a"),
                             json={"requestId": request_id}).json
    assert again["code"] == 404  # decided once
    with connect(pg_url) as conn:  # leave demo A's terminal free of open requests
        conn.execute("UPDATE registration_request SET state = 'used' WHERE id = %s", (request_id,))
        conn.commit()


def test_returns_404_for_a_registration_request_of_another_enterprise(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    request_id = _pending_request(pg_url, demo.b.device_id)
    try:
        url = f"/api/device/{demo.b.device_id}/refuseRegistration.json"
        reply: Any = client.post(url, headers=login("admin_a"), json={"requestId": request_id}).json
        assert reply["code"] == 404 and _request_state(pg_url, request_id) == "pending"
        listed: Any = client.get("/api/device/registrationRequests.json", headers=login("admin_a")).json
        assert request_id not in [r["id"] for r in listed["data"]]
        refused: Any = client.post(url, headers=login("admin_b"), json={"requestId": request_id}).json
        assert refused["data"]["state"] == "refused"
    finally:
        with connect(pg_url) as conn:
            conn.execute("UPDATE registration_request SET state = 'used' WHERE id = %s", (request_id,))
            conn.commit()


def test_registration_policy_is_read_and_set_by_the_enterprise_administrator(
        client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    url = "/api/enterprise/registrationPolicy.json"
    try:
        put: Any = client.put(url, headers=a, json={"requireImei": True, "approveReregistration": True,
                                                    "approvalWindowMin": 30}).json
        assert put["code"] == 0 and put["data"] == {"requireImei": True, "approveReregistration": True,
                                                    "approvalWindowMin": 30, "inherited": False}
        assert client.get(url, headers=a).json["data"] == put["data"]
        for body in ({"requireImei": "yes", "approveReregistration": True, "approvalWindowMin": 30},
                     {"requireImei": True, "approveReregistration": True, "approvalWindowMin": -1},
                     {"requireImei": True}):
            bad: Any = client.put(url, headers=a, json=body).json
            assert bad["code"] == 400, body
        assert client.get(url, headers=login("admin_b")).json["data"]["requireImei"] is False
    finally:  # the session database is shared: back to the default behaviour
        client.put(url, headers=a, json={"requireImei": False, "approveReregistration": False, "approvalWindowMin": 10})
