"""The administrator's "reset registration" (issue 13 §1): scoped, audited, clears code and identity."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo
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
        assert missing["code"] == 404 and missing["message"].endswith("(does not exist)")
        assert _identity(pg_url, demo.b.device_id)[0] == "CODE-B"
    finally:  # the session database is shared: leave B's demo terminal free to register (test_pipeline)
        _unregister(pg_url, demo.b.device_id)


def test_reset_registration_needs_a_signed_in_user(client: FlaskClient, demo: Demo) -> None:
    reply = client.post(f"/api/device/{demo.a.device_id}/resetRegistration.json")
    body: Any = reply.json
    assert reply.status_code == 401 and body["code"] == 40002
