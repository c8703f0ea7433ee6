"""What the heavy-diesel and new-energy console reads besides ``nevState``, through the real app and PostgreSQL:

- the track point's ``gbAlarm`` (console-spec §3 "Track point", platform-spec §3: the alarm as an object of
  battery / motor / engine / other fault lists, the 18-bit general flags): a GB fix's alarm object as the GB
  steps store it (``streams.gb_frames.alarm_object``), on the point read from gps and from a closed day's
  summary alike; null on every other point; another enterprise's car is a 404;
- ``nevReading``: a terminal's chart readings of a bounded range, oldest first, only the caller's vehicles
  (another enterprise's terminal reads as empty), the range and the terminal required.

The track: the bulk loader's model, a fix every 10 s over 2026-09-14 20:00 - 09-16 02:00 UTC (09-15 a whole
closed day, so a long read takes it from its summary), alarm objects written into two fixes' extras.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from streams.gb_frames import GbAlarm, alarm_object
from tests.integration.api.conftest import Demo
from tests.integration.api.test_track_api import _make_car, _ms
from warehouse.db import connect
from warehouse.history import HistoryVehicle, load_history

Login = Callable[[str], dict[str, str]]
START = datetime(2026, 9, 14, 20, tzinfo=UTC)
END = datetime(2026, 9, 16, 2, tzinfo=UTC)
# (fix time, the frame's alarm): a 32960 fault frame inside the whole day, a 17691 MIL frame after it.
BATTERY = (datetime(2026, 9, 15, 4, 0, 10, tzinfo=UTC),
           GbAlarm(3, 0b101, {"battery": [0x1001, 0x1002], "motor": [0x2001], "engine": [], "other": [7]}))
OBD = (datetime(2026, 9, 16, 1, 0, 20, tzinfo=UTC), GbAlarm(None, 0, {"obd": [0x00A1B2C3]}, mil=True))


@dataclass(frozen=True)
class GbCar:
    car_id: int
    device_id: int


@pytest.fixture(scope="module")
def gb_car(pg_url: str, demo: Demo) -> GbCar:
    enterprise = demo.enterprises["a"]
    car = _make_car(pg_url, enterprise)
    with connect(pg_url) as conn:
        load_history(conn, [HistoryVehicle(car.device_id, car.car_id, enterprise)], START, END, 10, seed=17691)
        for at, alarm in (BATTERY, OBD):
            extras = {"gb_protocol": "gb32960-2016", "gb_alarm": alarm_object(alarm)}
            updated = conn.execute("UPDATE gps SET extras = %s::jsonb WHERE device_id = %s AND fix_at = %s",
                                   (orjson.dumps(extras).decode(), car.device_id, at)).rowcount
            assert updated == 1, at
        conn.commit()
    return GbCar(car.car_id, car.device_id)


def _points(client: FlaskClient, headers: dict[str, str], car_id: int, max_points: int) -> dict[int, dict[str, Any]]:
    reply = client.get(f"/api/gps/car/{car_id}/track.json", headers=headers,
                       query_string={"start": _ms(START), "end": _ms(END), "maxPoints": max_points})
    assert reply.status_code == 200, reply.data[:300]
    data = reply.json["data"]  # type: ignore[index]
    assert data["fields"][-1] == "gbAlarm"
    return {row[0]: dict(zip(data["fields"], row, strict=True)) for row in data["rows"]}


def test_a_gb_fix_carries_its_alarm_object_with_the_fault_lists(client: FlaskClient, login: Login, gb_car: GbCar) -> None:
    points = _points(client, login("admin_a"), gb_car.car_id, 0)
    battery, obd = points[_ms(BATTERY[0])], points[_ms(OBD[0])]
    assert battery["gbAlarm"] == {"alarm": 0b101, "level": 3, "battery": [0x1001, 0x1002], "motor": [0x2001],
                                  "engine": [], "other": [7]}
    assert obd["gbAlarm"] == {"alarm": 0, "level": None, "obd": [0x00A1B2C3], "mil": 1}
    assert battery["alarmInfo"] and obd["alarmInfo"]
    assert all(p["gbAlarm"] is None for at, p in points.items() if at not in (_ms(BATTERY[0]), _ms(OBD[0])))


def test_a_long_read_from_the_day_summary_keeps_the_alarm_object(client: FlaskClient, login: Login, gb_car: GbCar) -> None:
    headers = login("admin_a")
    every = _points(client, headers, gb_car.car_id, 0)
    thinned = _points(client, headers, gb_car.car_id, 300)
    assert len(thinned) < len(every)
    for at in (_ms(BATTERY[0]), _ms(OBD[0])):
        assert thinned[at] == every[at], at


def test_another_enterprise_gets_404_for_the_gb_track(client: FlaskClient, login: Login, gb_car: GbCar) -> None:
    reply = client.get(f"/api/gps/car/{gb_car.car_id}/track.json", headers=login("admin_b"),
                       query_string={"start": _ms(START), "end": _ms(END), "isParent": "true"})
    assert reply.status_code == 404


READ_AT = datetime(2026, 9, 20, 1, 0, tzinfo=UTC)


@pytest.fixture
def readings(pg_url: str, demo: Demo) -> Iterator[None]:
    rows = [(v.device_id, READ_AT + timedelta(seconds=10 * i), v.car_id, v.enterprise_id, 420.0 + i + offset,
             35.0 + i, 60.5 - i) for v, offset in ((demo.a, 0), (demo.b, 100)) for i in range(3)]
    with connect(pg_url) as conn:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO nev_reading (device_id, collected_at, car_id, enterprise_id, nox_upstream_ppm,"
                            " nox_downstream_ppm, reagent_level_pct) VALUES (%s, %s, %s, %s, %s, %s, %s)", rows)
        conn.commit()
    yield
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM nev_reading WHERE device_id = ANY(%s)", ([demo.a.device_id, demo.b.device_id],))
        conn.commit()


def _read(client: FlaskClient, headers: dict[str, str], device_id: int, **body: Any) -> Any:
    return client.post("/api/common/query/nevReading.json", headers=headers, query_string={"pageSize": "10000"}, json={
        "deviceId.eq": device_id, "rangeConditions": [{"fieldName": "collectedAt", "start": READ_AT.isoformat(),
                                                       "end": (READ_AT + timedelta(hours=1)).isoformat()}], **body})


def test_readings_of_the_callers_terminal_oldest_first_and_none_of_another_enterprise(
        client: FlaskClient, login: Login, demo: Demo, readings: None) -> None:
    headers = login("admin_a")
    mine = _read(client, headers, demo.a.device_id)
    assert mine.status_code == 200, mine.json
    assert [(r["noxUpstreamPpm"], r["noxDownstreamPpm"], r["reagentLevelPct"]) for r in mine.json["data"]["list"]] == [
        (420.0, 35.0, 60.5), (421.0, 36.0, 59.5), (422.0, 37.0, 58.5)]
    other = _read(client, headers, demo.b.device_id)
    assert other.status_code == 200 and other.json["data"]["list"] == []


def test_readings_need_a_terminal_and_a_range(client: FlaskClient, login: Login, demo: Demo, readings: None) -> None:
    headers = login("admin_a")
    assert client.post("/api/common/query/nevReading.json", headers=headers, json={}).status_code == 400
    no_range = client.post("/api/common/query/nevReading.json", headers=headers, json={"deviceId.eq": demo.a.device_id})
    assert no_range.status_code == 400
