"""The TPMS log screen (platform-spec §2 Logs "tpms", ``/log/tpms``) in Chromium: a vehicle whose fixes of
today carry the hand-built tyre items (tests/support/tyre_items.py, stored as the position sink stores the
codec's output) shows one row per tyre reading, and the pressure, temperature, battery and tyre position
each row shows are the database's (``tpms_log_view``), with the alarm types named in zh-CN, en-US and zh-HK."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from fleet.alarm_catalog import describe
from protocols.jt808.extras import decode_items
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language, text
from tests.support.tyre_items import tyre_items
from warehouse.db import connect

BROWSER_ZONE = ZoneInfo("Asia/Shanghai")  # tests/e2e/conftest.py page fixture
SHOWN = ("tyre", "pressure", "temperature", "battery")  # the columns compared with the database, by field


@dataclass(frozen=True)
class TyreCar:
    car_id: int
    plate: str
    rows: list[dict[str, Any]]  # tpms_log_view's rows of the car, in the log's order


@pytest.fixture(scope="module")
def tyre_car(console_stack: ConsoleStack) -> TyreCar:
    """A vehicle of enterprise A with two fixes of today (as the browser counts it) carrying both tyre items."""
    start = (datetime.now(BROWSER_ZONE).replace(hour=0, minute=0, second=0, microsecond=0)
             + timedelta(hours=1)).astimezone(UTC)
    extras, unknown = decode_items(tyre_items())
    assert unknown == ()
    tag = uuid.uuid4().hex[:5].upper()
    plate = f"测T{tag}"
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT id FROM enterprise WHERE short_name = '示范一分公司'").fetchone()[0]  # type: ignore[index]
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise, plate)).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise, car_id, f"7{int(tag, 16):011d}", f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
        for minute in (0, 10):
            conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags,"
                         " extras) VALUES (%s, %s, %s, %s, 116.39, 39.91, 60, 3, %s::jsonb)",
                         (device_id, start + timedelta(minutes=minute), car_id, enterprise, json.dumps(extras)))
        conn.commit()
        cur = conn.execute("SELECT item, tyre, pressure_kpa, pressure_raw, temperature_c, battery_pct, alarm_type"
                           " FROM tpms_log_view WHERE car_id = %s ORDER BY fix_at, device_id, item, tyre", (car_id,))
        names = [c.name for c in cur.description or ()]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    return TyreCar(int(car_id), plate, rows)


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _names(alarm_type: int | None, language: str) -> str:
    """The alarm types of a type WORD as the catalogue names them (the server's source of the column)."""
    if not alarm_type:
        return ""
    return ",".join(describe(f"tpms_{bit}", None, language) for bit in range(16) if alarm_type >> bit & 1)


def _table_rows(list_page: Any, language: str) -> list[dict[str, str]]:
    """The shown rows as {field: cell text}, columns found by their header in ``language``."""
    table = list_page.get_by_test_id("list-table")
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    fields = {field: headers.index(text(language, "log", f"tpms.fields.{field}"))
              for field in (*SHOWN, "alarmNames", "pressureRaw")}
    rows = []
    for row in table.locator("tbody tr.ant-table-row").all():
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        rows.append({field: cells[index] for field, index in fields.items()})
    return rows


def _shows(list_page: Any, car: TyreCar, language: str) -> None:
    total = list_page.get_by_test_id("list-total")
    total.filter(has_text=re.compile(r"\b8\b")).wait_for()
    list_page.get_by_test_id("list-table").get_by_text(_names(0x0084, language)).first.wait_for()
    shown = _table_rows(list_page, language)
    expected = [{"tyre": _cell(r["tyre"]), "pressure": _cell(r["pressure_kpa"]), "temperature": _cell(r["temperature_c"]),
                 "battery": _cell(r["battery_pct"]), "alarmNames": _names(r["alarm_type"], language),
                 "pressureRaw": _cell(r["pressure_raw"])} for r in car.rows]
    assert len(car.rows) == 8 and shown == expected


def test_the_tpms_log_shows_the_databases_tyre_readings_in_three_languages(page: Any, tyre_car: TyreCar) -> None:
    path = f"/log/tpms?carId={tyre_car.car_id}"
    sign_in(page, "admin_a", path=path)
    page.goto(path)
    tpms = page.get_by_test_id("list-page-tpmsLog")
    tpms.wait_for()
    _shows(tpms, tyre_car, "zh-CN")
    assert {r["pressure_kpa"] for r in tyre_car.rows if r["item"] == 102} == {230, 150}  # the hand-built readings
    tpms.get_by_test_id("list-table").get_by_text(tyre_car.plate).first.wait_for()

    switch_language(page, "en-US")
    _shows(tpms, tyre_car, "en-US")
    switch_language(page, "zh-HK")
    _shows(tpms, tyre_car, "zh-HK")
    assert page.errors == []  # type: ignore[attr-defined]
