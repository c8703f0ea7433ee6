"""The gb32960 charging log (gb32960ChargingLog), the latest NEV state (nevState) and the readings over time
(nevReading), read-only declared entities over migration 0049, through the real app and PostgreSQL: the
caller's vehicles' rows with the plate, none of another enterprise, the ``car`` permission guarding all three,
nothing writable; the readings only for one vehicle and a bounded time range."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from psycopg.types.json import Jsonb

from tests.integration.api.conftest import Demo, Vehicle
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

START = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)


def _rows(conn: Any, v: Vehicle, soc: int) -> None:
    conn.execute("INSERT INTO charging_session (device_id, start_at, car_id, enterprise_id, vin, charging_state, end_at,"
                 " soc_from, soc_to, energy_kwh, lat, lng, last_at) VALUES (%s, %s, %s, %s, %s, 1, %s, %s, %s, 12.5,"
                 " 22.54, 114.05, %s)", (v.device_id, START, v.car_id, v.enterprise_id, v.vin or "VIN",
                                         START + timedelta(minutes=45), soc, soc + 40, START + timedelta(minutes=45)))
    conn.execute("INSERT INTO nev_state (device_id, car_id, enterprise_id, protocol, frame_protocol, vin, collected_at,"
                 " received_at, vehicle_at, soc_pct, total_voltage_v, cells_at, cell_voltages) VALUES (%s, %s, %s,"
                 " 'gb32960', 'gb32960-2016', %s, %s, %s, %s, %s, 351.5, %s, %s)",
                 (v.device_id, v.car_id, v.enterprise_id, v.vin or "VIN", START, START, START, soc, START,
                  Jsonb([{"number": 1, "cell_voltages_v": [3.3, 3.31]}])))
    for minute in range(3):  # a reading a minute: SOC rising while charging (negative current)
        conn.execute("INSERT INTO nev_reading (device_id, collected_at, car_id, enterprise_id, soc_pct, total_voltage_v,"
                     " total_current_a) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                     (v.device_id, START + timedelta(minutes=minute), v.car_id, v.enterprise_id, soc + minute,
                      350.5 + minute, -40.5))


@pytest.fixture
def gb_rows(pg_url: str, demo: Demo) -> Iterator[None]:
    with connect(pg_url) as conn:
        _rows(conn, demo.a, 30)
        _rows(conn, demo.b, 50)
        conn.commit()
    yield
    with connect(pg_url) as conn:
        for table in ("charging_session", "nev_state", "nev_reading"):
            conn.execute(f"DELETE FROM {table} WHERE device_id = ANY(%s)",  # noqa: S608 - fixed table names
                         ([demo.a.device_id, demo.b.device_id],))
        conn.commit()


def _reader(client: FlaskClient, pg_url: str, enterprise_id: int, permissions: dict[str, list[str]]) -> dict[str, str]:
    return bearer(client, make_user(pg_url, enterprise_id, permissions).name)


def test_the_charging_log_lists_the_callers_sessions_with_plate_soc_energy_and_duration(
        client: FlaskClient, pg_url: str, demo: Demo, gb_rows: None) -> None:
    headers = _reader(client, pg_url, demo.enterprises["a"], {"car": ["query"]})
    reply = client.post("/api/common/query/gb32960ChargingLog.json", headers=headers, json={},
                        query_string={"countable": "true"})
    assert reply.status_code == 200, reply.json
    rows = reply.json["data"]["list"]
    assert [{k: r[k] for k in ("carId", "chargingState", "socFrom", "socTo", "energyKwh", "durationS", "lat")}
            for r in rows] == [{"carId": demo.a.car_id, "chargingState": 1, "socFrom": 30, "socTo": 70,
                                "energyKwh": 12.5, "durationS": 2700, "lat": 22.54}]
    assert rows[0]["plateNumber"] and rows[0]["id"] == f"{demo.a.device_id}:{int(START.timestamp() * 1000)}"


def test_the_nev_state_of_a_vehicle_and_none_of_another_enterprise(
        client: FlaskClient, pg_url: str, demo: Demo, gb_rows: None) -> None:
    headers = _reader(client, pg_url, demo.enterprises["a"], {"car": ["query"]})
    mine = client.post("/api/common/query/nevState.json", headers=headers, json={"carId": demo.a.car_id})
    assert mine.status_code == 200, mine.json
    assert [(r["socPct"], r["totalVoltageV"], r["cellVoltages"]) for r in mine.json["data"]["list"]] == [
        (30, 351.5, [{"number": 1, "cell_voltages_v": [3.3, 3.31]}])]
    other = client.post("/api/common/query/nevState.json", headers=headers, json={"carId": demo.b.car_id})
    assert other.status_code == 200 and other.json["data"]["list"] == []
    log = client.post("/api/common/query/gb32960ChargingLog.json", headers=headers, json={"carId": demo.b.car_id})
    assert log.status_code == 200 and log.json["data"]["list"] == []


def test_the_car_permission_guards_both_and_neither_is_writable(
        client: FlaskClient, pg_url: str, demo: Demo, gb_rows: None) -> None:
    without = _reader(client, pg_url, demo.enterprises["a"], {"fence": ["query"]})
    for entity in ("gb32960ChargingLog", "nevState", "nevReading"):
        assert client.post(f"/api/common/query/{entity}.json", headers=without, json={}).status_code == 403
    writer = _reader(client, pg_url, demo.enterprises["a"], {"car": ["query", "add", "update", "delete"]})
    for entity in ("gb32960ChargingLog", "nevState", "nevReading"):
        assert client.post(f"/api/common/{entity}.json", headers=writer, json={"socPct": 1}).status_code in (400, 404, 405)

