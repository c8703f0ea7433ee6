"""A report's spreadsheet export reads as its screen does (the field's one display, api/query/display.py):
days as dates, durations as h:mm:ss, kilometres to 2 decimals, ratios as percentages, codes as their labels,
yes/no as ✓/✗; the header names what the cell shows (no "(秒)" over a clock). Through the real app on the
session's PostgreSQL, XLSX and CSV alike, for every report entity."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from openpyxl import load_workbook

from api.query.entities_reports import REPORT_TABLES
from tests.integration.api.conftest import Demo
from tests.integration.api.test_reports_api import _fill, _path
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
RAW_DAY = re.compile(r"^20\d{6}$")
CLOCK = re.compile(r"^\d+:\d{2}:\d{2}$")
CODES = ("mileage_source", "runtime_source", "driver_source", "status", "ic_result")  # shown as their labels


def _csv(client: FlaskClient, headers: dict[str, str], name: str, body: Any = None) -> list[list[str]]:
    reply = client.post(f"/api/common/export/{name}.csv", headers=headers, json=body or {})
    assert reply.status_code == 200, reply.get_data(as_text=True)[:300]
    return list(csv.reader(io.StringIO(reply.get_data().decode("utf-8-sig"))))


def _xlsx(client: FlaskClient, headers: dict[str, str], name: str) -> list[list[Any]]:
    reply = client.post(f"/api/common/export/{name}.xlsx", headers=headers, json={})
    assert reply.status_code == 200
    sheet = load_workbook(io.BytesIO(reply.get_data()), read_only=True).active
    assert sheet is not None
    return [list(r) for r in sheet.iter_rows(values_only=True)]


@pytest.fixture
def day_row(pg_url: str, demo: Demo) -> Iterator[Demo]:
    """One car day of A's vehicle with the values the screens showed wrong in their exports."""
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM car_day_report")
        conn.execute("INSERT INTO car_day_report (car_id, date, day, device_id, enterprise_id, enterprise_path,"
                     " plate_number, mileage_km, mileage_source, drive_s, online_s, trips, active, online, points,"
                     " max_speed_kmh, odo_start_km, runtime_source)"
                     " SELECT %s, 20261130, '2026-11-30', %s, %s, %s, plate_number, 316.6000000000058, 2, 3723,"
                     " 90061, 4, true, false, 10, 87.25000000001, 1234.449999, 1 FROM car WHERE id = %s",
                     (demo.a.car_id, demo.a.device_id, demo.a.enterprise_id, _path(conn, demo.a.enterprise_id),
                      demo.a.car_id))
        conn.commit()
    yield demo
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM car_day_report")
        conn.commit()


def test_car_day_export_shows_dates_clocks_rounded_km_and_labels(client: FlaskClient, login: Login,
                                                                 day_row: Demo) -> None:
    for table in (_csv(client, login("admin_a"), "carDayReport"), _xlsx(client, login("admin_a"), "carDayReport")):
        head, row = table[0], dict(zip(table[0], table[1], strict=True))
        assert "行驶时长" in head and "行驶时长(秒)" not in head  # the header says what the cell shows
        assert str(row["日期"]) == "2026-11-30"
        assert str(row["里程(km)"]) == "316.6"
        assert str(row["最高速度(km/h)"]) == "87.25"
        assert str(row["起始里程表(km)"]) == "1234.45"
        assert row["里程来源"] == "GPS" and row["运行数据来源"] == "状态日志"
        assert row["行驶时长"] == "1:02:03" and row["在线时长"] == "25:01:01"  # hours past a day in sums
        assert row["出车"] == "✓" and row["上线"] == "✗"
        assert str(row["行程数"]) == "4"


def test_kpi_ratios_export_as_percentages(client: FlaskClient, login: Login, pg_url: str, demo: Demo) -> None:
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM kpi_enterprise_day")
        _fill(conn, "kpi_enterprise_day", demo.a.enterprise_id, _path(conn, demo.a.enterprise_id), demo.a.car_id,
              demo.a.device_id)
        conn.execute("UPDATE kpi_enterprise_day SET online_rate = 0.8333333333333334, drift_rate = NULL,"
                     " avg_offline_s = 3599.6, total_km = 1000.123456")
        conn.commit()
    try:
        head, *rows = _csv(client, login("admin_a"), "kpiEnterpriseDay")
        row = dict(zip(head, rows[0], strict=True))
        assert row["上线率"] == "83.33%" and row["漂移车辆率"] == "-"
        assert row["平均断线时长"] == "1:00:00" and row["总里程(km)"] == "1000.12"
    finally:
        with connect(pg_url) as conn:
            conn.execute("DELETE FROM kpi_enterprise_day")
            conn.commit()


REPORT_TABLE_ENTITIES = sorted((e.name, e.relation) for e in REPORT_TABLES)


@pytest.mark.parametrize("name,relation", REPORT_TABLE_ENTITIES, ids=[n for n, _ in REPORT_TABLE_ENTITIES])
def test_every_report_export_shows_no_raw_day_seconds_or_long_decimals(client: FlaskClient, login: Login,
                                                                       demo: Demo, pg_url: str, name: str,
                                                                       relation: str) -> None:
    """Each report's export: the header is its fields' labels with no "(秒)", a day is a date, a duration a
    clock, a float at most 2 decimals; each cell is the field's display of the query's value."""
    table = {"car_year_report": "car_month_report", "device_year_report": "device_month_report",
             "driver_event_view": "driver_event"}.get(relation, relation)
    entity = next(e for e in REPORT_TABLES if e.name == name)
    with connect(pg_url) as conn:
        conn.execute(f"DELETE FROM {table}")  # noqa: S608
        _fill(conn, table, demo.a.enterprise_id, _path(conn, demo.a.enterprise_id), demo.a.car_id, demo.a.device_id)
        floats = [f.column for f in entity.fields.values() if f.type == "float" and f.expression is None
                  and f.column not in ("lng", "lat") and not f.column.endswith(("_lng", "_lat"))
                  and not f.column.endswith(("_rate", "_s"))]
        seconds = [f.column for f in entity.fields.values() if f.column.endswith("_s") and f.type in ("int", "float")
                   and f.expression is None]
        if relation != "driver_event_view":
            sets = [f"{c} = 12.3456789" for c in floats] + [f"{c} = 3723" for c in seconds]
            if sets:
                conn.execute(f"UPDATE {table} SET {', '.join(sets)}")  # noqa: S608
        conn.commit()
    try:
        head, *rows = _csv(client, login("admin_a"), name)
        assert rows, f"{name}: no row exported"
        assert not any("(秒)" in h for h in head), head
        shown = dict(zip(head, rows[0], strict=True))
        checked = 0
        for field in entity.fields.values():
            label = field.label.replace("(秒)", "")
            if not field.exportable or label not in shown or not shown[label]:
                continue
            cell, column = shown[label], field.column
            if column == "date":
                assert not RAW_DAY.match(cell), (name, label, cell)
            elif column.endswith("_s") and field.type in ("int", "float"):
                assert CLOCK.match(cell), (name, label, cell)
            elif column in floats:
                assert len(cell.partition(".")[2]) <= 2, (name, label, cell)
            elif column in CODES:
                assert not cell.isdigit(), (name, label, cell)
            elif field.type == "bool":
                assert cell in ("✓", "✗"), (name, label, cell)
            else:
                continue
            checked += 1
        assert checked, f"{name}: no shown cell checked"
    finally:
        with connect(pg_url) as conn:
            conn.execute(f"DELETE FROM {table}")  # noqa: S608
            conn.commit()
