"""Bulk last positions (contract A), a car's track with thinning and stops (contract B), its exports.

Every test writes its own rows: vehicles of its own (unique phones and plates) in the demo
enterprises, and positions in days no other test uses.
"""

from __future__ import annotations

import csv
import io
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from fleet.enums import DeviceState
from tests.integration.api.conftest import ENGLISH, Demo, error_text
from warehouse.db import connect
from warehouse.history import HistoryVehicle, load_history
from warehouse.partitions import ensure_gps_partitions

Login = Callable[[str], dict[str, str]]
DAY = date(2026, 5, 10)
MIDNIGHT = datetime(2026, 5, 11, tzinfo=UTC)  # the track below crosses it: two daily partitions
LAST = "/api/gps/last.json"


@dataclass(frozen=True)
class Car:
    car_id: int
    device_id: int
    plate: str


def _make_car(pg_url: str, enterprise_id: int, *, state: int = DeviceState.OFFLINE, biz_state: int = 4,
              plate: str | None = None) -> Car:
    tag = uuid.uuid4().int % 10**8
    plate = plate or f"测{tag:08d}"
    with connect(pg_url) as conn:
        device = conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, state, biz_state) VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (enterprise_id, f"0199{tag:08d}", f"T{tag:08d}", state, biz_state)).fetchone()
        car = conn.execute(
            "INSERT INTO car (enterprise_id, plate_number, vin, master_device_id) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, plate, f"VIN{tag:014d}", device[0])).fetchone()  # type: ignore[index]
        conn.execute("UPDATE device SET car_id = %s WHERE id = %s", (car[0], device[0]))  # type: ignore[index]
        conn.commit()
    return Car(car[0], device[0], plate)  # type: ignore[index]


def _put_last(pg_url: str, car: Car, enterprise_id: int, at: datetime, alarm: int = 0) -> None:
    with connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, altitude_m, speed_kmh,"
            " direction_deg, mileage_km, fuel_l, alarm_flags, status_flags) VALUES"
            " (%s, %s, %s, %s, 116.5, 39.5, 12, 33.5, 270, 99.5, 41, %s, 3)",
            (car.device_id, car.car_id, enterprise_id, at, alarm))
        conn.commit()


def _insert_points(pg_url: str, car: Car, enterprise_id: int, points: list[tuple[datetime, float, float, float, int, int]]) -> None:
    """(fix_at, lng, lat, speed, alarm, status) rows, inserted in reverse (the read must order them)."""
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, DAY, 2)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg,"
                " mileage_km, fuel_l, alarm_flags, status_flags) VALUES (%s, %s, %s, %s, %s, %s, 20, %s, 90, 500, 60, %s, %s)",
                [(car.device_id, at, car.car_id, enterprise_id, lng, lat, speed, alarm, status)
                 for at, lng, lat, speed, alarm, status in reversed(points)])
        conn.commit()


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


@pytest.fixture(scope="module")
def a_car(pg_url: str, demo: Demo) -> Car:
    """A's vehicle with a track from 23:00 to 01:00 across midnight, one fix every 10 s: driving east,
    parked (ACC off) 23:30-23:50, idling (ACC on) 00:20-00:25, an alarm at 00:40."""
    car = _make_car(pg_url, demo.enterprises["a"])
    points = []
    start = MIDNIGHT - timedelta(hours=1)
    lng = 116.0
    for i in range(720):
        at = start + timedelta(seconds=10 * i)
        minute = i // 6
        parked, idling = 30 <= minute < 50, 80 <= minute < 85
        speed = 0.0 if parked or idling else 40.0
        lng += 0 if speed == 0 else 0.001
        alarm = 2 if i == 100 * 6 else 0
        points.append((at, round(lng, 6), 39.9 + (0.001 * (i % 7) if speed else 0), speed, alarm, 2 if parked else 3))
    _insert_points(pg_url, car, demo.enterprises["a"], points)
    return car


def _track(client: FlaskClient, headers: dict[str, str], car_id: int, fmt: str = "json", **params: Any) -> Any:
    query = {"start": _ms(MIDNIGHT - timedelta(hours=1)), "end": _ms(MIDNIGHT + timedelta(hours=1)), **params}
    return client.get(f"/api/gps/car/{car_id}/track.{fmt}", headers=headers, query_string=query)


# --- contract A: bulk last positions ------------------------------------------------------------------


def _last_rows(client: FlaskClient, headers: dict[str, str], body: Any = None, **query: str) -> dict[int, dict[str, Any]]:
    reply = client.post(LAST, headers=headers, json=body if body is not None else {}, query_string=query)
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    assert data["fields"][:3] == ["carId", "deviceId", "plateNumber"] and len(data["fields"]) == 15
    assert isinstance(data["serverTime"], int)
    return {row[0]: dict(zip(data["fields"], row, strict=True)) for row in data["rows"]}


def test_last_positions_cover_the_callers_subtree_and_with_is_parent_false_its_enterprise_only(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    own = _last_rows(client, login("admin"), isParent="false")
    assert demo.parent.car_id in own and demo.a.car_id not in own and demo.b.car_id not in own
    assert set(_last_rows(client, login("admin"), isParent="true")) == set(_last_rows(client, login("admin")))
    tree = _last_rows(client, login("admin"))
    assert {demo.parent.car_id, demo.a.car_id, demo.b.car_id} <= set(tree)
    row = tree[demo.a.car_id]
    assert row["deviceId"] == demo.a.device_id
    assert (row["lng"], row["lat"], row["speed"], row["direction"], row["mileage"], row["alarmType"], row["status"]) == (
        116.4, 39.9, 42.5, 90, 1234.5, 5, 3)
    assert isinstance(row["time"], int) and row["time"] > 0


def test_last_positions_never_return_another_enterprises_vehicles(client: FlaskClient, login: Login, demo: Demo) -> None:
    for is_parent in ("false", "true"):
        rows = _last_rows(client, login("admin_a"), {"carIds": [demo.a.car_id, demo.b.car_id, demo.parent.car_id]},
                          isParent=is_parent)
        assert set(rows) == {demo.a.car_id}


def test_last_positions_filter_by_car_ids(client: FlaskClient, login: Login, demo: Demo) -> None:
    rows = _last_rows(client, login("admin"), {"carIds": [demo.b.car_id]}, isParent="true")
    assert set(rows) == {demo.b.car_id}
    assert _last_rows(client, login("admin"), {"carIds": []}, isParent="true") == {}


def test_online_comes_from_the_device_state_not_from_having_a_position(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str
) -> None:
    a = demo.enterprises["a"]
    online_no_fix = _make_car(pg_url, a, state=DeviceState.ONLINE, biz_state=1)
    offline_with_fix = _make_car(pg_url, a, state=DeviceState.OFFLINE)
    _put_last(pg_url, offline_with_fix, a, datetime.now(UTC) - timedelta(minutes=1))
    rows = _last_rows(client, login("admin_a"), {"carIds": [online_no_fix.car_id, offline_with_fix.car_id]})
    assert rows[online_no_fix.car_id]["online"] == 1 and rows[online_no_fix.car_id]["bizState"] == 1
    assert rows[online_no_fix.car_id]["time"] is None and rows[online_no_fix.car_id]["lng"] is None
    assert rows[offline_with_fix.car_id]["online"] == 0 and rows[offline_with_fix.car_id]["lng"] == 116.5


@pytest.mark.parametrize("body", [
    {"carIds": "1"}, {"carIds": None}, {"carIds": [1, "2"]}, {"carIds": [0]}, {"carIds": [True]}, {"carId": [1]}, [1, 2],
    {"carIds": list(range(1, 10_002))},
])
def test_last_positions_bad_bodies_are_400(client: FlaskClient, login: Login, body: Any) -> None:
    reply = client.post(LAST, headers={**login("admin"), **ENGLISH}, json=body)
    assert reply.status_code == 400 and reply.json["code"] == 400, reply.json  # type: ignore[index]
    error_text(reply, "en-US")  # the Chinese message alone, an English localMessage


# --- contract B: track -----------------------------------------------------------------------------------


def test_track_rows_are_in_time_order_across_midnight_with_the_contract_fields(
    client: FlaskClient, login: Login, a_car: Car
) -> None:
    reply = _track(client, login("admin_a"), a_car.car_id, maxPoints=0)
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    assert data["fields"] == ["time", "lng", "lat", "speed", "direction", "altitude", "mileage", "oilmass", "acc",
                              "alarmType", "status", "alarmInfo", "adasAlarm", "dsmAlarm", "tpmAlarm", "bsdAlarm",
                              "videoAlarm", "gbAlarm"]
    assert (data["carId"], data["deviceId"], data["plateNumber"]) == (a_car.car_id, a_car.device_id, a_car.plate)
    assert data["total"] == data["returned"] == len(data["rows"]) == 720 and data["thinned"] is False
    times = [row[0] for row in data["rows"]]
    assert times == sorted(times) and times[0] == _ms(MIDNIGHT - timedelta(hours=1))
    assert times[-1] == _ms(MIDNIGHT + timedelta(hours=1) - timedelta(seconds=10))
    assert any(t < _ms(MIDNIGHT) for t in times) and any(t >= _ms(MIDNIGHT) for t in times)
    first = dict(zip(data["fields"], data["rows"][0], strict=True))
    assert first == {"time": times[0], "lng": 116.001, "lat": 39.9, "speed": 40.0, "direction": 90, "altitude": 20.0,
                     "mileage": 500.0, "oilmass": 60.0, "acc": 1, "alarmType": 0, "status": 3, "alarmInfo": None,
                     "adasAlarm": None, "dsmAlarm": None, "tpmAlarm": None, "bsdAlarm": None, "videoAlarm": None, "gbAlarm": None}
    overspeed = dict(zip(data["fields"], data["rows"][600], strict=True))
    assert overspeed["alarmType"] == 2 and overspeed["alarmInfo"] == "超速报警"  # bit 1


def test_track_reports_the_park_and_the_idle(client: FlaskClient, login: Login, a_car: Car) -> None:
    stops = _track(client, login("admin_a"), a_car.car_id).json["data"]["stops"]  # type: ignore[index]
    kinds = [(s["kind"], s["start"]) for s in stops]
    park_start = _ms(MIDNIGHT - timedelta(minutes=30))
    idle_start = _ms(MIDNIGHT + timedelta(minutes=20))
    assert ("park", park_start) in kinds and ("idle", idle_start) in kinds
    park = next(s for s in stops if s["kind"] == "park" and s["start"] == park_start)
    assert park["end"] == _ms(MIDNIGHT - timedelta(minutes=10, seconds=10)) and park["durationS"] == 1190


def test_thinning_keeps_alarm_points_and_stop_boundaries_within_the_budget(
    client: FlaskClient, login: Login, a_car: Car
) -> None:
    data = _track(client, login("admin_a"), a_car.car_id, maxPoints=40).json["data"]  # type: ignore[index]
    assert data["thinned"] is True and data["total"] == 720
    times = [row[0] for row in data["rows"]]
    assert times == sorted(times) and data["returned"] == len(times)
    alarm_at = _ms(MIDNIGHT + timedelta(minutes=40))
    assert alarm_at in times and data["rows"][times.index(alarm_at)][9] == 2
    for stop in data["stops"]:
        assert stop["start"] in times and stop["end"] in times
    forced = 1 + 2 * len(data["stops"])
    assert len(times) <= 40 + forced


def test_track_of_another_enterprises_car_is_404(client: FlaskClient, login: Login, a_car: Car) -> None:
    for is_parent in ("false", "true"):
        for fmt in ("json", "csv", "gpx", "kml"):
            reply = _track(client, login("admin_b"), a_car.car_id, fmt, isParent=is_parent)
            assert reply.status_code == 404 and reply.json["code"] == 404, (fmt, reply.json)  # type: ignore[index]


def test_the_parent_reads_a_subsidiary_track_unless_it_asks_for_its_own_only(
    client: FlaskClient, login: Login, a_car: Car
) -> None:
    assert _track(client, login("admin"), a_car.car_id, isParent="false").status_code == 404
    assert _track(client, login("admin"), a_car.car_id).json["data"]["total"] == 720  # type: ignore[index]


def test_range_longer_than_the_limit_is_400_with_the_spec_message(client: FlaskClient, login: Login, a_car: Car) -> None:
    reply = client.get(f"/api/gps/car/{a_car.car_id}/track.json", headers={**login("admin_a"), **ENGLISH},
                       query_string={"start": "2026-04-01T00:00:00+08:00", "end": "2026-05-02T00:00:01+08:00"})
    assert reply.status_code == 400
    assert reply.json["message"] == "查询时间范围不能超过 31 天"
    assert error_text(reply, "en-US") == "the time range may not exceed 31 days"  # type: ignore[index]


@pytest.mark.parametrize("query", [
    {}, {"start": "yesterday", "end": "2026-05-11T00:00:00Z"}, {"start": 1, "end": 1},
    {"start": "2026-05-11T00:00:00Z", "end": "2026-05-10T00:00:00Z"},
    {"start": "2026-05-10T00:00:00Z", "end": "2026-05-11T00:00:00Z", "maxPoints": "1"},
    {"start": "2026-05-10T00:00:00Z", "end": "2026-05-11T00:00:00Z", "maxPoints": "-5"},
    {"start": "2026-05-10T00:00:00Z", "end": "2026-05-11T00:00:00Z", "maxPoints": "many"},
])
def test_bad_track_parameters_are_400(client: FlaskClient, login: Login, a_car: Car, query: dict[str, Any]) -> None:
    reply = client.get(f"/api/gps/car/{a_car.car_id}/track.json", headers=login("admin_a"), query_string=query)
    assert reply.status_code == 400 and reply.json["code"] == 400, reply.json  # type: ignore[index]


def test_iso_times_without_offset_are_beijing_time(client: FlaskClient, login: Login, a_car: Car) -> None:
    reply = client.get(f"/api/gps/car/{a_car.car_id}/track.json", headers=login("admin_a"),
                       query_string={"start": "2026-05-11T07:00:00", "end": "2026-05-11T08:00:00"})
    data = reply.json["data"]  # type: ignore[index]
    assert data["start"] == _ms(MIDNIGHT - timedelta(hours=1)) and data["total"] == 360


# --- exports --------------------------------------------------------------------------------------------------


def test_csv_export_has_the_header_and_every_point(client: FlaskClient, login: Login, a_car: Car) -> None:
    reply = _track(client, login("admin_a"), a_car.car_id, "csv")
    assert reply.status_code == 200 and reply.mimetype == "text/csv"
    assert "attachment" in reply.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(reply.get_data(as_text=True).lstrip("\ufeff"))))
    assert rows[0] == ["time", "lng", "lat", "speed", "direction", "altitude", "mileage", "oilmass", "acc", "alarmType",
                       "status", "alarmInfo"]
    assert len(rows) == 721
    assert rows[1][0] == "2026-05-11T07:00:00+08:00" and rows[1][1] == "116.001" and rows[1][8] == "1"


@pytest.mark.parametrize(("fmt", "mime", "point"), [
    ("gpx", "application/gpx+xml", "{http://www.topografix.com/GPX/1/1}trkpt"),
    ("kml", "application/vnd.google-earth.kml+xml", "{http://www.google.com/kml/ext/2.2}coord"),
])
def test_gpx_and_kml_parse_as_xml_with_every_point_and_an_escaped_name(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str, fmt: str, mime: str, point: str
) -> None:
    car = _make_car(pg_url, demo.enterprises["a"], plate=f"<&\"{uuid.uuid4().hex[:5]}>")
    at = MIDNIGHT + timedelta(minutes=30)
    _insert_points(pg_url, car, demo.enterprises["a"], [(at + timedelta(seconds=s), 116.1, 39.1, 5, 0, 3) for s in range(0, 50, 5)])
    reply = _track(client, login("admin_a"), car.car_id, fmt)
    assert reply.status_code == 200 and reply.mimetype == mime
    root = ET.fromstring(reply.get_data())
    assert len(list(root.iter(point))) == 10
    names = [el.text for el in root.iter() if el.tag.endswith("name")]
    assert car.plate in names


def test_history_loader_rows_read_back_as_a_track(client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    car = _make_car(pg_url, demo.enterprises["a"])
    start = datetime(2026, 5, 12, tzinfo=UTC)
    with connect(pg_url) as conn:
        written = load_history(conn, [HistoryVehicle(car.device_id, car.car_id, demo.enterprises["a"])],
                               start, start + timedelta(hours=6), 30)
    assert written == 720
    data = client.get(f"/api/gps/car/{car.car_id}/track.json", headers=login("admin_a"), query_string={
        "start": _ms(start), "end": _ms(start + timedelta(hours=6)), "maxPoints": 0}).json["data"]  # type: ignore[index]
    assert data["total"] == 720
    mileage = [row[6] for row in data["rows"]]
    assert mileage == sorted(mileage) and mileage[-1] > mileage[0]
    last = _last_rows(client, login("admin_a"), {"carIds": [car.car_id]})[car.car_id]
    assert last["time"] == data["rows"][-1][0]


@pytest.mark.parametrize("fmt", ["track.json", "track.csv"])
@pytest.mark.parametrize(("start", "end"), [
    ("9999-12-31T00:00:00Z", "9999-12-31T12:00:00Z"),
    ("9999-12-30T00:00:00+08:00", "9999-12-31T23:59:59+08:00"),
    ("0001-01-01T00:00:00Z", "0001-01-02T00:00:00Z"),
])
def test_a_track_at_the_edge_of_the_calendar_is_a_400_with_a_clear_message(
        client: FlaskClient, login: Login, a_car: Car, fmt: str, start: str, end: str) -> None:
    reply = client.get(f"/api/gps/car/{a_car.car_id}/{fmt}", headers={**login("admin_a"), **ENGLISH},
                       query_string={"start": start, "end": end})
    assert reply.status_code == 400, reply.data[:300]
    assert "2000" in error_text(reply, "en-US") and "2099" in error_text(reply, "en-US")  # type: ignore[index]
