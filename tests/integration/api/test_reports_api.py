"""The report API: the report entities through the generic routes and the spec's report calls,
on report rows written here with known values, tenant isolation of every route (another enterprise's rows
never visible, a parent with isParent sees its subsidiaries), the fallbacks (counts 0, sums null).

Rows (date 2026-10-15 unless said): A's vehicle 20 km (and 10 km on the 16th), B's 9 km, the parent's own
5 km; months and years roll them up; alarm counters: A a1=2 (3 alarms), B adas_1=1, parent a1=1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.query.entities_reports import REPORT_TABLES
from tests.integration.api.conftest import Demo
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]


def _path(conn: Any, enterprise_id: int) -> str:
    return conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,)).fetchone()[0]


@pytest.fixture(scope="module")
def rows(pg_url: str, demo: Demo) -> Iterator[Demo]:
    cars = ((demo.a, 20.0, 1), (demo.b, 9.0, 1), (demo.parent, 5.0, 0))
    with connect(pg_url) as conn:
        for v, km, trips in cars:
            path = _path(conn, v.enterprise_id)
            conn.execute("INSERT INTO car_day_report (car_id, date, day, device_id, enterprise_id, enterprise_path,"
                         " plate_number, mileage_km, mileage_source, drive_s, trips, active, online, points)"
                         " SELECT %s, 20261015, '2026-10-15', %s, %s, %s, plate_number, %s, 2, %s, %s, true, true, 10"
                         " FROM car WHERE id = %s",
                         (v.car_id, v.device_id, v.enterprise_id, path, km, int(km * 60), trips, v.car_id))
            conn.execute("INSERT INTO car_month_report (car_id, month, enterprise_id, enterprise_path, mileage_km, days,"
                         " active_days, trips) VALUES (%s, 202610, %s, %s, %s, 1, 1, %s)",
                         (v.car_id, v.enterprise_id, path, km + (10.0 if v is demo.a else 0.0), trips))
            counters = {"a": ("a1", 2, 3), "b": ("adas_1", 1, 1), "p": ("a1", 1, 1)}["a" if v is demo.a else
                                                                                      "b" if v is demo.b else "p"]
            for table, key_col, key in (("device_day_report", "date", 20261015), ("device_month_report", "month", 202610)):
                day = ", day" if table == "device_day_report" else ""
                day_value = ", '2026-10-15'" if day else ""
                conn.execute(f"INSERT INTO {table} (device_id, {key_col}{day}, car_id, enterprise_id, enterprise_path,"  # noqa: S608
                             f" {counters[0]}, alarm_total) VALUES (%s, %s{day_value}, %s, %s, %s, %s, %s)",
                             (v.device_id, key, v.car_id, v.enterprise_id, path, counters[1], counters[2]))
            conn.execute("INSERT INTO kpi_vehicle_day (car_id, date, day, enterprise_id, enterprise_path,"
                         " qualified_points, rejected_points, total_km, complete_km, online)"
                         " VALUES (%s, 20261015, '2026-10-15', %s, %s, %s, %s, %s, %s, %s)",
                         (v.car_id, v.enterprise_id, path, 33 if v is demo.a else 0, 2 if v is demo.a else 0,
                          km, km, v is demo.a))
        a_path = _path(conn, demo.a.enterprise_id)
        conn.execute("INSERT INTO car_day_report (car_id, date, day, device_id, enterprise_id, enterprise_path,"
                     " mileage_km, trips, active, online) VALUES (%s, 20261016, '2026-10-16', %s, %s, %s, 10, 0, true,"
                     " true)", (demo.a.car_id, demo.a.device_id, demo.a.enterprise_id, a_path))
        conn.commit()
    yield demo
    with connect(pg_url) as conn:
        for table in ("car_day_report", "car_month_report", "device_day_report", "device_month_report",
                      "kpi_vehicle_day"):
            conn.execute(f"DELETE FROM {table}")  # noqa: S608
        conn.commit()


def post(client: FlaskClient, headers: dict[str, str], path: str, body: Any = None, **args: Any) -> Any:
    reply = client.post(path, headers=headers, json=body or {}, query_string=args)
    return reply


def data(reply: Any) -> Any:
    assert reply.status_code == 200, reply.json
    return reply.json["data"]


def cars_of(page: dict[str, Any]) -> set[int]:
    return {r["carId"] for r in page["list"]}


def test_report_entities_are_scoped_lists_with_the_list_grammar(client: FlaskClient, login: Login, rows: Demo) -> None:
    a, admin = login("admin_a"), login("admin")
    page = data(post(client, a, "/api/common/query/carDayReport.json", {"date.eq": 20261015}, countable="true"))
    assert cars_of(page) == {rows.a.car_id} and page["total"] == 1
    assert page["list"][0]["mileageKm"] == 20.0 and page["list"][0]["date"] == 20261015
    own = data(post(client, admin, "/api/common/query/carDayReport.json", isParent="false"))
    assert cars_of(own) == {rows.parent.car_id}  # the parent's own vehicles only with isParent=false
    tree = data(post(client, admin, "/api/common/query/carDayReport.json", orderBy="mileageKm",
                     desc="true", countable="true"))
    assert tree["total"] == 4 and [r["mileageKm"] for r in tree["list"]] == [20.0, 10.0, 9.0, 5.0]
    assert data(post(client, login("admin_b"), "/api/common/count/carDayReport.json", isParent="true")) == 1
    for entity in ("carMonthReport", "carYearReport"):
        b_rows = data(post(client, login("admin_b"), f"/api/common/query/{entity}.json", isParent="true"))
        assert cars_of(b_rows) == {rows.b.car_id}, entity
    year = data(post(client, a, "/api/common/query/carYearReport.json", {"year.eq": 2026}))
    assert year["list"][0]["mileageKm"] == 30.0
    csv = client.post("/api/common/export/carDayReport.csv", headers=a, json={})
    assert csv.status_code == 200 and ",20," in csv.get_data(as_text=True)  # 20.0 km shown as the screen does
    assert post(client, a, "/api/common/query/carDayReport.json", {"nope.eq": 1}).status_code == 400


def test_year_sums_with_enterprise_default_isparent_and_null_fallback(client: FlaskClient, login: Login,
                                                                     rows: Demo) -> None:
    path = "/api/report/sum/car_year_report.json"
    assert data(post(client, login("admin_a"), path, select="mileageKm,trips")) == {"mileageKm": 30.0, "trips": 1}
    assert data(post(client, login("admin"), path, select="mileageKm", isParent="true")) == {"mileageKm": 44.0}
    assert data(post(client, login("admin"), path, select="mileageKm", enterpriseId=rows.b.enterprise_id)) == {
        "mileageKm": 9.0}
    assert post(client, login("admin_b"), path, select="mileageKm", enterpriseId=rows.a.enterprise_id).status_code == 404
    assert data(post(client, login("admin_a"), path, {"year.eq": 1999}, select="mileageKm")) == {"mileageKm": None}
    assert post(client, login("admin_a"), path, select="plateNumber").status_code == 400


def test_one_vehicle_day_rows_and_sums_and_another_enterprise_s_vehicle_is_404(client: FlaskClient, login: Login,
                                                                              rows: Demo) -> None:
    args = {"carId": rows.a.car_id, "startDate": "20261001", "endDate": "2026-10-31"}
    got = client.get("/api/report/car/dayReport/query.json", headers=login("admin_a"),
                     query_string={**args, "select": "date,mileageKm"})
    assert data(got) == [{"date": 20261015, "mileageKm": 20.0}, {"date": 20261016, "mileageKm": 10.0}]
    total = client.get("/api/report/car/dayReport/sum.json", headers=login("admin_a"),
                       query_string={**args, "select": "mileageKm,trips"})
    assert data(total) == {"mileageKm": 30.0, "trips": 1}
    assert client.get("/api/report/car/dayReport/sum.json", headers=login("admin"), query_string=args).status_code == 200
    for path in ("/api/report/car/dayReport/query.json", "/api/report/car/dayReport/sum.json"):
        assert client.get(path, headers=login("admin_b"), query_string=args).status_code == 404
    bad = client.get("/api/report/car/dayReport/query.json", headers=login("admin_a"),
                     query_string={**args, "startDate": "20261101"})
    assert bad.status_code == 400


def test_grouped_and_paged_sums_of_the_scope(client: FlaskClient, login: Login, rows: Demo) -> None:
    dates = {"startDate": "20261015", "endDate": "20261016"}
    one = data(post(client, login("admin_a"), "/api/report/car/dayReport/sum.json", select="mileageKm", **dates))
    assert one == {"mileageKm": 30.0}
    grouped = data(post(client, login("admin"), "/api/report/car/dayReport/sum.json", select="mileageKm",
                        group="carId", isParent="true", **dates))
    by_car = {r["carId"]: r for r in grouped}
    assert by_car[rows.a.car_id]["mileageKm"] == 30.0 and by_car[rows.a.car_id]["days"] == 2
    assert by_car[rows.a.car_id]["activeDays"] == 2 and by_car[rows.b.car_id]["plateNumber"]
    page = data(post(client, login("admin"), "/api/report/car/dayReport/page/sum.json", select="mileageKm",
                     isParent="true", pageSize="2", **dates))
    assert page["total"] == 3 and len(page["list"]) == 2 and page["pageNo"] == 1
    b_only = data(post(client, login("admin_b"), "/api/report/car/dayReport/page/sum.json", isParent="true", **dates))
    assert {r["carId"] for r in b_only["list"]} == {rows.b.car_id}
    month = data(post(client, login("admin"), "/api/report/addAndSum/car_month_report.json", {"month.eq": 202610},
                      sum="mileageKm", group="enterpriseId", isParent="true"))
    assert month["sum"] == {"mileageKm": 44.0} and len(month["list"]) == 3
    assert data(post(client, login("admin_a"), "/api/report/addAndSum/car_month_report.json", sum="mileageKm"))[
        "sum"] == {"mileageKm": 30.0}


def test_alarm_counter_counts_and_distinct_counts(client: FlaskClient, login: Login, rows: Demo) -> None:
    day = {"date.eq": 20261015, "a1.gt": 0}
    assert data(post(client, login("admin_a"), "/api/report/count/device_day_report.json", day)) == 1
    assert data(post(client, login("admin"), "/api/report/count/device_day_report.json", day, isParent="true")) == 2
    assert data(post(client, login("admin_b"), "/api/report/count/device_day_report.json", day, isParent="true")) == 0
    assert data(post(client, login("admin"), "/api/report/count/device_day_report.json", day,
                     enterpriseId=rows.a.enterprise_id)) == 1
    month = {"month.eq": 202610, "a1.gt": 0}
    assert data(post(client, login("admin"), "/api/report/distinctCount/device_month_report.json", month,
                     distinct="deviceId", isParent="true")) == 2
    assert data(post(client, login("admin"), "/api/report/distinctCount/device_year_report.json",
                     {"year.eq": 2026, "adas_1.gt": 0}, distinct="carId", isParent="true")) == 1
    assert post(client, login("admin_a"), "/api/report/distinctCount/device_year_report.json",
                enterpriseId=rows.b.enterprise_id).status_code == 404
    assert post(client, login("admin_a"), "/api/report/count/device_day_report.json",
                {"nokey.gt": 0}).status_code == 400


def test_car_model_sums_kpis_and_video_states_are_scoped(client: FlaskClient, login: Login, rows: Demo) -> None:
    models = data(client.get("/api/report/car/carModel/sum.json", headers=login("admin_a")))
    cars_a = data(post(client, login("admin_a"), "/api/common/count/carView.json"))
    assert sum(m["vehicles"] for m in models) == cars_a
    tree = data(client.get("/api/report/car/carModel/sum.json", headers=login("admin"), query_string={"isParent": "true"}))
    assert sum(m["vehicles"] for m in tree) == data(post(client, login("admin"), "/api/common/count/carView.json",
                                                        isParent="true"))
    kpi = data(client.get("/api/report/kpi/enterprise.json", headers=login("admin_a"),
                          query_string={"startDate": "20261015", "endDate": "20261015"}))
    assert kpi["summary"]["onlineVehicles"] == 1 and kpi["summary"]["qualificationRate"] == pytest.approx(33 / 35)
    assert [r["enterpriseId"] for r in kpi["list"]] == [rows.a.enterprise_id]
    tree_kpi = data(client.get("/api/report/kpi/enterprise.json", headers=login("admin"),
                               query_string={"startDate": "20261015", "endDate": "20261015", "isParent": "true"}))
    assert {r["enterpriseId"] for r in tree_kpi["list"]} == set(rows.enterprises.values())
    video = data(post(client, login("admin_a"), "/api/common/query/enterpriseVideoCarBizstateReport.json"))
    everything = data(post(client, login("admin_a"), "/api/common/query/enterpriseCarBizstateReport.json"))
    assert set(video) == set(everything) and 0 < video["total"] < everything["total"]




def test_driver_attendance_lists_the_sign_ins_of_the_scope_only(client: FlaskClient, login: Login, rows: Demo,
                                                                pg_url: str) -> None:
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO driver_event (device_id, at, status, car_id, enterprise_id, driver_name, valid_until)"
                     " VALUES (%s, '2026-10-15T00:30:00Z', 1, %s, %s, 'koike', '2030-01-31')",
                     (rows.a.device_id, rows.a.car_id, rows.a.enterprise_id))
        conn.commit()
    try:
        page = data(post(client, login("admin_a"), "/api/common/query/driverAttendance.json", {"status.eq": 1}))
        assert [(r["driverName"], r["validUntil"], r["carId"]) for r in page["list"]] == [
            ("koike", "2030-01-31", rows.a.car_id)]
        assert data(post(client, login("admin_b"), "/api/common/count/driverAttendance.json", isParent="true")) == 0
        assert data(post(client, login("admin"), "/api/common/count/driverAttendance.json", isParent="true")) == 1
    finally:
        with connect(pg_url) as conn:
            conn.execute("DELETE FROM driver_event")
            conn.commit()


def _fill(conn: Any, table: str, enterprise_id: int, path: str, car_id: int, device_id: int) -> None:
    """One row of ``table`` for the given enterprise: every NOT NULL column without a default gets a value."""
    columns = conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s AND is_nullable = 'NO'"
        " AND column_default IS NULL", (table,)).fetchall()
    known = {"enterprise_id": enterprise_id, "enterprise_path": path, "car_id": car_id, "device_id": device_id,
             "driver_id": 999_000 + enterprise_id, "date": 20261015, "month": 202610, "day": "2026-10-15",
             "start_at": "2026-10-15T01:00:00Z", "end_at": "2026-10-15T02:00:00Z", "at": "2026-10-15T01:00:00Z",
             "status": 1}
    values = {name: known.get(name, 1 if kind in ("integer", "bigint", "smallint") else "x") for name, kind in columns}
    names = ", ".join(values)
    conn.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(values))})",  # noqa: S608
                 list(values.values()))


REPORT_TABLE_ENTITIES = sorted((e.name, e.relation) for e in REPORT_TABLES)


@pytest.mark.parametrize("name,relation", REPORT_TABLE_ENTITIES, ids=[n for n, _ in REPORT_TABLE_ENTITIES])
def test_every_report_entity_shows_only_the_scope_s_rows(client: FlaskClient, login: Login, demo: Demo, pg_url: str,
                                                        name: str, relation: str) -> None:
    table = {"car_year_report": "car_month_report", "device_year_report": "device_month_report",
             "driver_event_view": "driver_event"}.get(relation, relation)
    with connect(pg_url) as conn:
        conn.execute(f"DELETE FROM {table}")  # noqa: S608
        _fill(conn, table, demo.a.enterprise_id, _path(conn, demo.a.enterprise_id), demo.a.car_id, demo.a.device_id)
        conn.commit()
    try:
        assert data(post(client, login("admin_a"), f"/api/common/count/{name}.json")) == 1
        assert data(post(client, login("admin_b"), f"/api/common/count/{name}.json", isParent="true")) == 0
        assert data(post(client, login("admin_b"), f"/api/common/query/{name}.json", isParent="true"))["list"] == []
        assert data(post(client, login("admin"), f"/api/common/count/{name}.json", isParent="false")) == 0  # own only
        assert data(post(client, login("admin"), f"/api/common/count/{name}.json")) == 1  # its subtree
        export = client.post(f"/api/common/export/{name}.csv", headers=login("admin_b"), json={},
                             query_string={"isParent": "true"})
        assert export.status_code == 200 and len(export.get_data(as_text=True).strip().splitlines()) == 1  # header
    finally:
        with connect(pg_url) as conn:
            conn.execute(f"DELETE FROM {table}")  # noqa: S608
            conn.commit()
