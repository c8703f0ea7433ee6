"""The TPMS log (platform-spec §2 Logs "tpms", api/query/entities_logs.py ``tpmsLog``) through the generic
query, count and export routes over fixes stored as the position sink stores them: gps.extras holding the
codec's decoded tyre items (tests/support/tyre_items.py, a hand-built 0x66 and 0x05)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from protocols.jt808.extras import decode_items
from tests.integration.api.conftest import ENGLISH, Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_logs_api import Car
from tests.support.tyre_items import EXPECTED_ROWS, tyre_items
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
T0 = datetime(2026, 4, 10, 0, 0, tzinfo=UTC)
RANGE = {"start": T0.isoformat(), "end": (T0 + timedelta(hours=1)).isoformat()}
FIELDS = ("item", "tyre", "pressure", "pressureRaw", "temperature", "battery", "alarmType")


def _tyre_extras() -> dict[str, Any]:
    extras, unknown = decode_items(tyre_items())
    assert unknown == ()
    return extras


def make_tyre_car(pg_url: str, enterprise_id: int) -> Car:
    """A vehicle with three fixes: 00:00 and 00:10 carry both tyre items, 00:05 none; 00:20 a tpms item
    whose events are not a list and a 0x05 list holding text (a bad row must not break the log)."""
    tag = uuid.uuid4().hex[:8]
    plate = f"测T{tag[:5]}"
    with connect(pg_url) as conn:
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise_id, plate)).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, car_id, f"8{int(tag, 16) % 10**11:011d}", f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
        odd = {"tpms_alarm": {"events": "none"}, "tyre_pressure_raw": ["x", {"a": 1}]}
        for minute, extras in ((0, _tyre_extras()), (5, {}), (10, _tyre_extras()), (20, odd)):
            conn.execute(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags, extras)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb)",
                (device_id, T0 + timedelta(minutes=minute), car_id, enterprise_id, 116.39, 39.91, 60.0, 3,
                 json.dumps(extras)))
        conn.commit()
    return Car(int(car_id), int(device_id), plate)


@pytest.fixture(scope="module")
def car(pg_url: str, demo: Demo) -> Car:
    return make_tyre_car(pg_url, demo.enterprises["a"])


def window(car: Car, **bounds: str) -> dict[str, Any]:
    return {"carId.eq": car.car_id, "rangeConditions": [{"fieldName": "time", **(bounds or RANGE)}]}


def query(client: FlaskClient, headers: dict[str, str], body: dict[str, Any], **params: str) -> Any:
    return client.post("/api/common/query/tpmsLog.json", headers=headers, json=body,
                       query_string={"countable": "true", "pageSize": "100", **params})


def rows(client: FlaskClient, headers: dict[str, str], body: dict[str, Any], **params: str) -> list[dict[str, Any]]:
    reply = query(client, headers, body, **params)
    assert reply.status_code == 200, reply.json
    found: list[dict[str, Any]] = reply.json["data"]["list"]
    return found


def test_lists_one_row_per_tyre_reading_with_units_and_alarm_names_oldest_first(
        client: FlaskClient, login: Login, car: Car) -> None:
    found = rows(client, login("admin_a"), window(car))
    expected = [(*row[:7], row[7]) for row in EXPECTED_ROWS]
    assert [(*(r[f] for f in FIELDS), r["alarmNames"]) for r in found] == expected * 2
    assert [r["time"] for r in found] == [T0.isoformat()] * 4 + [(T0 + timedelta(minutes=10)).isoformat()] * 4
    assert {r["plateNumber"] for r in found} == {car.plate} and {r["deviceId"] for r in found} == {car.device_id}


@pytest.mark.parametrize(("language", "column"), [("en-US", 8), ("zh-HK", None)])
def test_names_the_alarm_types_in_the_callers_language(client: FlaskClient, login: Login, car: Car,
                                                       language: str, column: int | None) -> None:
    found = rows(client, {**login("admin_a"), "X-Fleet-Language": language}, window(car))
    names = [r["alarmNames"] for r in found[:4]]
    if column is not None:
        assert names == [row[column] for row in EXPECTED_ROWS]
    else:
        assert names == [None, None, "胎壓定時上報", "胎壓過低報警,電池電量低報警"]


def test_filters_by_item_and_pages(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    events = rows(client, headers, {**window(car), "item": 102})
    assert [(r["tyre"], r["pressure"]) for r in events] == [(0, 230), (5, 150)] * 2
    second = query(client, headers, window(car), pageNo="2", pageSize="3").json["data"]
    assert second["total"] == 8 and [(r["item"], r["tyre"]) for r in second["list"]] == [(102, 5), (5, 0), (5, 1)]
    count = client.post("/api/common/count/tpmsLog.json", headers=headers, json=window(car))
    assert count.json["data"] == 8


def test_needs_a_vehicle_and_a_time_range(client: FlaskClient, login: Login, car: Car) -> None:
    headers = {**login("admin_a"), **ENGLISH}
    no_car = query(client, headers, {"rangeConditions": [{"fieldName": "time", **RANGE}]})
    assert no_car.status_code == 400 and "carId" in error_text(no_car, "en-US")
    assert query(client, headers, {"carId.eq": car.car_id}).status_code == 400


def test_another_enterprises_vehicle_has_no_rows_and_the_parent_sees_its_subsidiarys(
        client: FlaskClient, login: Login, car: Car) -> None:
    assert query(client, login("admin_b"), window(car)).json["data"]["total"] == 0
    assert query(client, login("admin"), window(car), isParent="true").json["data"]["total"] == 8


def test_needs_its_own_permission(client: FlaskClient, pg_url: str, demo: Demo, car: Car) -> None:
    gps_only = bearer(client, make_user(pg_url, demo.enterprises["a"], {"gpsLog": ["query", "export"]}).name)
    assert query(client, gps_only, window(car)).status_code == 403
    reader = bearer(client, make_user(pg_url, demo.enterprises["a"], {"tpmsLog": ["query"]}).name)
    assert query(client, reader, window(car)).status_code == 200
    assert client.post("/api/common/export/tpmsLog.csv", headers=reader, json=window(car)).status_code == 403


def test_exports_the_rows_as_shown(client: FlaskClient, login: Login, car: Car) -> None:
    reply = client.post("/api/common/export/tpmsLog.csv", headers=login("admin_a"), json=window(car))
    assert reply.status_code == 200
    table = list(csv.reader(io.StringIO(reply.data.decode("utf-8-sig"))))
    header = table[0]
    for label in ("附加信息", "轮胎位置", "胎压(kPa)", "胎温(°C)", "电池电量(%)", "报警类型"):
        assert label in header
    body = [dict(zip(header, r, strict=True)) for r in table[1:]]
    assert len(body) == 8
    low = body[3]
    assert (low["附加信息"], low["轮胎位置"], low["胎压(kPa)"], low["胎温(°C)"], low["电池电量(%)"], low["报警类型"]) == (
        "0x66 胎压监测", "5", "150", "40", "15", "胎压过低报警,电池电量低报警")
    assert body[0]["附加信息"] == "0x05 胎压" and body[0]["胎压(原始值)"] == "112"
