"""The fence screen's sync state (entity fenceSync, read only) and its resend action through the real app and
PostgreSQL: rows of the caller's subtree with the vehicle's plate and terminal phone, none of another
enterprise, the ``fence`` permission guarding both, and a resend that only moves failed rows back to pending."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from psycopg.types.json import Jsonb

from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

QUERY = "/api/common/query/fenceSync.json"
RESEND = "/api/fenceSync/resend.json"
SQUARE = [[121.40, 31.20], [121.50, 31.20], [121.50, 31.30], [121.40, 31.20]]


@pytest.fixture
def synced(pg_url: str, demo: Demo) -> Iterator[dict[str, Any]]:
    """A terminal fence of enterprise a bound to two new vehicles (terminals offline, so nothing is sent):
    one row acknowledged, one failed with the terminal's result 1. Removed afterwards."""
    tag = uuid.uuid4().hex[:8]
    ent = demo.enterprises["a"]
    with connect(pg_url) as conn:
        fence, version = conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry)"
            " VALUES (%s, %s, 2, 2, 'polygon', %s) RETURNING id, updated_at",
            (ent, f"sync {tag}", Jsonb({"rings": [SQUARE]}))).fetchone()  # type: ignore[misc]
        vehicles = []
        for index, (state, result) in enumerate((("acknowledged", 0), ("failed", 1))):
            car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                               (ent, f"FS{tag}{index}")).fetchone()[0]  # type: ignore[index]
            phone = f"18{uuid.uuid4().int % 10**9:09d}"
            device = conn.execute("INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s)"
                                  " RETURNING id", (ent, car, phone, f"FS{tag}{index}")).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
            conn.execute("INSERT INTO fence_binding (fence_id, car_id, enterprise_id) VALUES (%s, %s, %s)",
                         (fence, car, ent))
            conn.execute("INSERT INTO fence_sync (fence_id, device_id, enterprise_id, wanted, state, version, result,"
                         " shape) VALUES (%s, %s, %s, 'set', %s, %s, %s, 'polygon')",
                         (fence, device, ent, state, version, result))
            vehicles.append({"car": car, "device": device, "phone": phone, "plate": f"FS{tag}{index}"})
        conn.commit()
    yield {"fence": fence, "enterprise": ent, "acknowledged": vehicles[0], "failed": vehicles[1]}
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM fence WHERE id = %s", (fence,))
        conn.execute("DELETE FROM fence_sync WHERE fence_id = %s", (fence,))
        for v in vehicles:
            conn.execute("UPDATE car SET master_device_id = NULL WHERE id = %s", (v["car"],))
            conn.execute("DELETE FROM device WHERE id = %s", (v["device"],))
            conn.execute("DELETE FROM car WHERE id = %s", (v["car"],))
        conn.commit()


def _headers(client: FlaskClient, pg_url: str, enterprise_id: int, actions: list[str]) -> dict[str, str]:
    return bearer(client, make_user(pg_url, enterprise_id, {"fence": actions}).name)


def _state(pg_url: str, fence: int, device: int) -> tuple[Any, ...]:
    with connect(pg_url) as conn:
        return conn.execute("SELECT state, result, error FROM fence_sync WHERE fence_id = %s AND device_id = %s",
                            (fence, device)).fetchone()  # type: ignore[return-value]


def test_the_fence_screen_lists_each_vehicles_sync_state_with_plate_and_phone(
        client: FlaskClient, pg_url: str, demo: Demo, synced: dict[str, Any]) -> None:
    headers = _headers(client, pg_url, demo.enterprises["parent"], ["query"])
    reply = client.post(QUERY, headers=headers, json={"fenceId": synced["fence"]}, query_string={"orderBy": "deviceId"})
    assert reply.status_code == 200, reply.json
    rows = reply.json["data"]["list"]
    ack, failed = synced["acknowledged"], synced["failed"]
    assert [{k: r[k] for k in ("fenceId", "carId", "plateNumber", "deviceId", "phone", "wanted", "state", "result",
                                "error")} for r in rows] == [
        {"fenceId": synced["fence"], "carId": ack["car"], "plateNumber": ack["plate"], "deviceId": ack["device"],
         "phone": ack["phone"], "wanted": "set", "state": "acknowledged", "result": 0, "error": None},
        {"fenceId": synced["fence"], "carId": failed["car"], "plateNumber": failed["plate"],
         "deviceId": failed["device"], "phone": failed["phone"], "wanted": "set", "state": "failed", "result": 1,
         "error": None}]
    assert all(isinstance(r["updatedAt"], str) for r in rows)


def test_another_enterprise_sees_none_of_the_rows_and_cannot_resend_them(
        client: FlaskClient, pg_url: str, demo: Demo, synced: dict[str, Any]) -> None:
    headers = _headers(client, pg_url, demo.enterprises["b"], ["query", "update"])
    reply = client.post(QUERY, headers=headers, json={"fenceId": synced["fence"]})
    assert reply.status_code == 200 and reply.json["data"]["list"] == []
    reply = client.post(RESEND, headers=headers, json={"fenceId": synced["fence"]})
    assert reply.status_code == 404, reply.json
    assert _state(pg_url, synced["fence"], synced["failed"]["device"]) == ("failed", 1, None)


def test_the_fence_permission_guards_the_list_and_the_resend(
        client: FlaskClient, pg_url: str, demo: Demo, synced: dict[str, Any]) -> None:
    without = bearer(client, make_user(pg_url, demo.enterprises["a"], {"car": ["query"]}).name)
    assert client.post(QUERY, headers=without, json={}).status_code == 403
    read_only = _headers(client, pg_url, demo.enterprises["a"], ["query"])
    assert client.post(RESEND, headers=read_only, json={"fenceId": synced["fence"]}).status_code == 403


def test_resend_moves_only_failed_rows_back_to_pending(
        client: FlaskClient, pg_url: str, demo: Demo, synced: dict[str, Any]) -> None:
    headers = _headers(client, pg_url, demo.enterprises["a"], ["query", "update"])
    reply = client.post(RESEND, headers=headers, json={"fenceId": synced["fence"]})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"] == {"fenceId": synced["fence"], "deviceIds": [synced["failed"]["device"]]}
    assert _state(pg_url, synced["fence"], synced["failed"]["device"]) == ("pending", None, None)
    assert _state(pg_url, synced["fence"], synced["acknowledged"]["device"]) == ("acknowledged", 0, None)
    again = client.post(RESEND, headers=headers, json={"fenceId": synced["fence"],
                                                       "deviceIds": [synced["acknowledged"]["device"]]})
    assert again.status_code == 200 and again.json["data"]["deviceIds"] == []


@pytest.mark.parametrize("body", [{}, {"fenceId": 0}, {"fenceId": "1"}, {"fenceId": 1, "deviceIds": []},
                                  {"fenceId": 1, "deviceIds": [True]}, {"fenceId": 1, "other": 1}, [1]])
def test_a_bad_resend_body_is_a_400_naming_the_field(client: FlaskClient, pg_url: str, demo: Demo,
                                                      body: Any) -> None:
    headers = _headers(client, pg_url, demo.enterprises["a"], ["update"])
    reply = client.post(RESEND, headers=headers, json=body)
    assert reply.status_code == 400, reply.json
