"""What one tenant must not learn about another, or about the platform, through the API: a duplicate on
create answers the same whether the other record is the caller's own or another tenant's, with none of its
data; a subsidiary's administrator sees no platform-wide figures in the system monitor and the licence
detail; an open platform app's token writing alarm settings is a clear 403, not a 500."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_commands_api import Login, make_vehicle
from tests.integration.api.test_settings_more_api import app_headers, new_app
from warehouse.db import connect


def _device(pg_url: str, device_id: int) -> dict[str, Any]:
    with connect(pg_url) as conn:
        row = conn.execute("SELECT d.phone, d.device_sn, e.name FROM device d JOIN enterprise e ON e.id = d.enterprise_id"
                           " WHERE d.id = %s", (device_id,)).fetchone()
    assert row is not None
    return {"phone": row[0], "deviceSn": row[1], "enterprise": row[2]}


def test_a_duplicate_phone_answers_the_same_for_an_own_and_another_tenants_device(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    [own] = make_vehicle(pg_url, demo.enterprises["a"], online=False)
    [other] = make_vehicle(pg_url, demo.enterprises["b"], online=False)
    foreign = _device(pg_url, other.device_id)
    replies = []
    for phone in (own.phone, other.phone):
        body = {"phone": phone, "deviceSn": f"DUP{uuid.uuid4().hex[:10]}"}
        reply = client.post("/api/common/device.json", headers=login("admin_a"), json=body)
        replies.append((reply.status_code, reply.json["message"], reply.json["localMessage"], reply.json["data"]))
    assert replies[0] == replies[1], replies
    assert replies[0][0] == 409
    shown = repr(replies[1])
    for secret in (foreign["deviceSn"], foreign["enterprise"], str(other.car_id), other.plate):
        assert secret not in shown


def test_a_subsidiary_administrator_sees_no_platform_wide_monitor_figures(client: FlaskClient, login: Login) -> None:
    sub = client.get("/api/system/monitor.json", headers=login("admin_a")).json["data"]
    for section in ("gateway", "kafka", "database", "throughput"):
        assert sub[section]["available"] is False and "platform" in sub[section]["error"], sub[section]
        assert set(sub[section]) == {"available", "restricted", "error"} and sub[section]["restricted"] is True
    root = client.get("/api/system/monitor.json", headers=login("admin")).json["data"]
    assert root["database"]["available"] is True and "online" in root["gateway"]


def test_a_subsidiary_administrator_sees_its_own_vehicles_in_the_licence_detail(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    with connect(pg_url) as conn:
        everyone = conn.execute("SELECT count(*) FROM car WHERE record_state = 1").fetchone()[0]  # type: ignore[index]
        own = conn.execute("SELECT count(*) FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
                           " WHERE c.record_state = 1 AND e.path LIKE (SELECT path FROM enterprise WHERE id = %s) || '%%'",
                           (demo.enterprises["a"],)).fetchone()[0]  # type: ignore[index]
    assert own < everyone
    assert client.get("/api/license/detail.json", headers=login("admin_a")).json["data"]["vehiclesUsed"] == own
    assert client.get("/api/license/detail.json", headers=login("admin")).json["data"]["vehiclesUsed"] == everyone


def test_an_app_token_writing_alarm_settings_is_a_clear_403(client: FlaskClient, login: Login) -> None:
    headers = app_headers(client, new_app(client, login("admin_a"), apis="alarms"))
    reply = client.put("/api/alarm/notify/settings.json", headers=headers,
                       json={"alarmRule": {"a0": {"disabled": True}}})
    assert reply.status_code == 403, reply.json
    assert "open platform app" in error_text(reply, "en-US")


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
