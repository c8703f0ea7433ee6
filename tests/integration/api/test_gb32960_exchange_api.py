"""The GB/T 32960 exchange's entities through the real app (platform-spec §2, the gb32960 exchange's
superiorPlatform and car): gb32960SuperiorPlatform (write-only password, the login's byte limits, encryption rule
and version checked, its link state read from gb32960_link_state) and gb32960ExchangeCar (a vehicle of the caller's
tree added to a platform of it, read with plate, VIN and link state, once only), and tenancy."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
SECRET = "s3cr3t-32960"


def body(**extra: Any) -> dict[str, Any]:
    return {"name": f"g{uuid.uuid4().hex[:10]}", "host": "127.0.0.1", "port": 19960, "username": "fleet32960",
            "password": SECRET, "version": "2016", **extra}


def test_platform_password_is_write_only_and_the_login_fields_are_checked(client: FlaskClient, login: Login,
                                                                          pg_url: str) -> None:
    headers = login("admin_a")
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body())
    assert reply.status_code == 200, reply.json
    created = reply.json["data"]  # type: ignore[index]
    assert "password" not in created and created["encryption"] == 1 and created["linkState"] == "disconnected"
    with connect(pg_url) as conn:
        assert conn.execute("SELECT password FROM gb32960_superior_platform WHERE id = %s",
                            (created["id"],)).fetchone() == (SECRET,)
        conn.execute("INSERT INTO gb32960_link_state (platform_id, state, since, sent, backfilled, last_error) "
                     "VALUES (%s, 'connected', now(), 12, 3, NULL)", (created["id"],))
        conn.commit()
    detail = client.get(f"/api/common/gb32960SuperiorPlatform/{created['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (detail["linkState"], detail["sent"], detail["backfilled"]) == ("connected", 12, 3)
    assert "password" not in detail
    assert client.post("/api/common/query/gb32960SuperiorPlatform.json?select=password", headers=headers,
                       json={}).status_code == 400
    # GB/T 32960.3-2016 table 17: username 12 bytes, password 20; encryption rule 1-3; version 2016 / 2025
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body(username="用户名五个字"))
    assert reply.status_code == 400 and "12" in error_text(reply)
    for bad in ({"encryption": 4}, {"version": "2019"}, {"port": 0}, {"password": "x" * 21}):
        reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body(**bad))
        assert reply.status_code == 400, (bad, reply.json)
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{created['id']}.json", headers=headers,
                       json={"version": None})
    assert reply.status_code == 400


def test_a_platforms_cars_are_the_callers_vehicles_listed_with_the_link_state(client: FlaskClient, login: Login,
                                                                              demo: Demo) -> None:
    headers, other = login("admin_a"), login("admin_b")
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers,
                        json=body(version="2025", carIds=[demo.a.car_id]))
    assert reply.status_code == 200, reply.json
    platform = reply.json["data"]  # type: ignore[index]
    assert platform["carIds"] == [demo.a.car_id]
    rows = client.post("/api/common/query/gb32960ExchangeCar.json", headers=headers,
                       json={"platformId": platform["id"]}).json["data"]["list"]  # type: ignore[index]
    assert [(r["carId"], r["vin"], r["platformName"], r["version"], r["linkState"]) for r in rows] == [
        (demo.a.car_id, demo.a.vin, platform["name"], "2025", "disconnected")]
    assert rows[0]["plateNumber"]
    # another tree's vehicle answers as missing, naming the field; a list of something else is refused
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": [demo.a.car_id, demo.b.car_id]})
    assert reply.status_code == 404 and reply.json["data"]["field"] == "carIds"  # type: ignore[index]
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": ["x"]})
    assert reply.status_code == 400 and "交换车辆不合法" in error_text(reply)
    # the list is replaced; the other tree sees neither the platform nor its vehicles
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": []})
    assert reply.status_code == 200 and reply.json["data"]["carIds"] == []  # type: ignore[index]
    assert client.post("/api/common/query/gb32960ExchangeCar.json", headers=headers,
                       json={"platformId": platform["id"]}).json["data"]["list"] == []  # type: ignore[index]
    client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                 json={"carIds": [demo.a.car_id]})
    assert client.get(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=other).status_code == 404
    assert platform["name"] not in str(client.post("/api/common/query/gb32960ExchangeCar.json", headers=other,
                                                   json={}).json)
    assert client.post("/api/common/gb32960ExchangeCar.json", headers=headers, json={}).status_code in (404, 405)


def test_an_inferior_platforms_password_is_write_only_and_its_username_names_one_account(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    headers, other = login("admin_a"), login("admin_b")
    username = f"u{uuid.uuid4().hex[:11]}"
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers,
                        json={"name": f"i{uuid.uuid4().hex[:8]}", "username": username, "password": "relay-pw"})
    assert reply.status_code == 200, reply.json
    created = reply.json["data"]  # type: ignore[index]
    assert "password" not in created and created["enabled"] is True and created["username"] == username
    with connect(pg_url) as conn:
        assert conn.execute("SELECT password FROM gb32960_inferior_platform WHERE id = %s",
                            (created["id"],)).fetchone() == ("relay-pw",)
    # the login names the account: a username is one platform's, whoever's enterprise
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=other,
                        json={"name": f"i{uuid.uuid4().hex[:8]}", "username": username, "password": "x"})
    assert reply.status_code == 409 and reply.json["data"]["field"] == "username"  # type: ignore[index]
    assert client.get(f"/api/common/gb32960InferiorPlatform/{created['id']}.json", headers=other).status_code == 404


def test_an_inferior_platform_with_a_wrongly_typed_field_is_a_400_naming_it(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    good = {"name": f"i{uuid.uuid4().hex[:10]}", "username": f"u{uuid.uuid4().hex[:8]}", "password": SECRET}
    for field in ("name", "username", "password", "enabled", "remark", "enterpriseId"):
        reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers, json={**good, field: ["x"]})
        assert reply.status_code in (400, 404), (field, reply.status_code, reply.json)
        assert (reply.json or {}).get("data", {}).get("field") in (field, None), (field, reply.json)
