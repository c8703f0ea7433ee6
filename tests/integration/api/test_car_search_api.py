"""The vehicle search of the live map (GET /api/car/search.json): plate, VIN, SIM (terminal phone, ICCID,
MSISDN), terminal id and driver name, each row telling what matched; the caller's tree only; the keyword
is data, never SQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]


def search(client: FlaskClient, headers: dict[str, str], keyword: str, **params: Any) -> Any:
    return client.get("/api/car/search.json", headers=headers, query_string={"keyword": keyword, **params})


def rows(reply: Any) -> list[dict[str, Any]]:
    assert reply.status_code == 200, reply.json
    return list(reply.json["data"])


@pytest.fixture(scope="module")
def marked(pg_url: str, demo: Demo) -> Iterator[dict[str, str]]:
    """Unique values on A's first vehicle: its VIN, terminal id, SIM card (ICCID, MSISDN) and driver.
    The demo vehicle is shared by other modules (its VIN and terminal id are looked up by them), so
    every value is put back afterwards."""
    def tag() -> str:  # a distinct tag per value: a keyword matches one field only
        return uuid.uuid4().hex[:8].upper()

    values = {"vin": f"LSV{tag()}0001", "terminalId": f"T{tag()}", "iccid": f"8986{tag()}",
              "msisdn": f"1440{int(tag(), 16) % 10**7:07d}", "driver": f"搜索司机{tag()}"}
    with connect(pg_url) as conn:
        before = conn.execute("SELECT c.vin, c.driver_id, d.device_sn, d.phone FROM car c, device d"
                              " WHERE c.id = %s AND d.id = %s", (demo.a.car_id, demo.a.device_id)).fetchone()
        assert before is not None
        vin, driver_id, device_sn, phone = before
        sims = [r[0] for r in conn.execute("SELECT id FROM sim WHERE device_id = %s AND record_state = 1",
                                           (demo.a.device_id,)).fetchall()]
        conn.execute("UPDATE car SET vin = %s WHERE id = %s", (values["vin"], demo.a.car_id))
        conn.execute("UPDATE device SET device_sn = %s WHERE id = %s", (values["terminalId"], demo.a.device_id))
        conn.execute("UPDATE sim SET record_state = 0 WHERE device_id = %s", (demo.a.device_id,))
        sim = conn.execute("INSERT INTO sim (enterprise_id, iccid, msisdn, device_id) VALUES (%s, %s, %s, %s)"
                           " RETURNING id", (demo.a.enterprise_id, values["iccid"], values["msisdn"],
                                             demo.a.device_id)).fetchone()
        driver = conn.execute("INSERT INTO driver (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                              (demo.a.enterprise_id, values["driver"])).fetchone()
        assert driver is not None and sim is not None
        conn.execute("UPDATE car SET driver_id = %s WHERE id = %s", (driver[0], demo.a.car_id))
        conn.commit()
    yield {**values, "phone": str(phone)}
    with connect(pg_url) as conn:
        conn.execute("UPDATE car SET vin = %s, driver_id = %s WHERE id = %s", (vin, driver_id, demo.a.car_id))
        conn.execute("UPDATE device SET device_sn = %s WHERE id = %s", (device_sn, demo.a.device_id))
        conn.execute("DELETE FROM sim WHERE id = %s", (sim[0],))
        conn.execute("UPDATE sim SET record_state = 1 WHERE id = ANY(%s)", (sims,))
        conn.execute("DELETE FROM driver WHERE id = %s", (driver[0],))
        conn.commit()


@pytest.mark.parametrize(("key", "field", "part"), [
    ("vin", "vin", slice(3, 11)),
    ("terminalId", "terminalId", slice(1, None)),
    ("iccid", "sim", slice(4, None)),
    ("msisdn", "sim", slice(None, None)),
    ("phone", "sim", slice(None, None)),
    ("driver", "driverName", slice(2, None)),
])
def test_finds_a_vehicle_by_vin_sim_terminal_id_and_driver_and_says_what_matched(
        client: FlaskClient, login: Login, demo: Demo, marked: dict[str, str], key: str, field: str, part: slice) -> None:
    keyword = marked[key][part].lower()
    found = rows(search(client, login("admin_a"), keyword))
    mine = [r for r in found if r["carId"] == demo.a.car_id]
    assert mine, found
    assert mine[0]["matchedField"] == field
    assert keyword in mine[0]["matchedValue"].lower()
    assert mine[0]["masterDeviceId"] == demo.a.device_id and mine[0]["plateNumber"]


def test_a_plate_matches_as_before(client: FlaskClient, login: Login, demo: Demo) -> None:
    reply = client.post("/api/common/query/carView.json", headers=login("admin_a"), json={"carId.eq": demo.a.car_id},
                        query_string={"pageSize": 1, "select": "carId,plateNumber"})
    plate = str(reply.json["data"]["list"][0]["plateNumber"])
    found = rows(search(client, login("admin_a"), plate[-4:]))
    assert any(r["carId"] == demo.a.car_id and r["matchedField"] == "plateNumber" for r in found)


def test_another_enterprise_finds_nothing_and_the_parent_finds_its_subsidiarys_vehicle(
        client: FlaskClient, login: Login, demo: Demo, marked: dict[str, str]) -> None:
    assert not [r for r in rows(search(client, login("admin_b"), marked["terminalId"])) if r["carId"] == demo.a.car_id]
    parent = rows(search(client, login("admin"), marked["terminalId"]))
    assert [r["carId"] for r in parent] == [demo.a.car_id]
    assert rows(search(client, login("admin"), marked["terminalId"], isParent="false")) == []


def test_like_metacharacters_and_quotes_are_matched_literally(client: FlaskClient, login: Login) -> None:
    assert rows(search(client, login("admin_a"), "%")) == []
    assert rows(search(client, login("admin_a"), "_")) == []
    assert rows(search(client, login("admin_a"), "' OR 1=1 --")) == []


@pytest.mark.parametrize("keyword", ["", "   ", "x" * 65])
def test_a_missing_or_overlong_keyword_is_a_clear_400(client: FlaskClient, login: Login, keyword: str) -> None:
    reply = search(client, login("admin_a"), keyword)
    assert reply.status_code == 400 and "keyword" in error_text(reply, "en-US")


def test_limit_bounds_the_rows_and_a_bad_limit_is_a_400(client: FlaskClient, login: Login) -> None:
    assert len(rows(search(client, login("admin"), "1", limit=3))) <= 3
    assert search(client, login("admin"), "1", limit=0).status_code == 400
    assert search(client, login("admin"), "1", limit=999).status_code == 400


def test_needs_a_token(client: FlaskClient) -> None:
    assert client.get("/api/car/search.json", query_string={"keyword": "x"}).status_code == 401


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
