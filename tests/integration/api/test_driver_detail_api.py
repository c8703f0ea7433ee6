"""GET /api/driver/{id}/detail.json: the driver detail page's one read (platform-spec §2 detail pages: driver)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
CHINA = ZoneInfo("Asia/Shanghai")


def test_the_detail_carries_licence_days_card_vehicles_and_alarms_of_the_driver(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    tag = uuid.uuid4().hex[:8]
    today = datetime.now(CHINA).date()
    now = datetime.now(UTC).replace(microsecond=0)
    with connect(pg_url) as conn:
        driver_id = int(conn.execute(
            "INSERT INTO driver (enterprise_id, name, license_no, license_expire) VALUES (%s, %s, %s, %s) RETURNING id",
            (demo.a.enterprise_id, f"d{tag}", f"L{tag}", (today - timedelta(days=3)).isoformat())).fetchone()[0])  # type: ignore[index]
        conn.execute(
            "INSERT INTO driver_event (device_id, at, status, car_id, enterprise_id, driver_id, qualification_no,"
            " issuing_authority, valid_until) VALUES (%s, %s, 1, %s, %s, %s, %s, 'auth', %s)",
            (demo.a.device_id, now - timedelta(hours=2), demo.a.car_id, demo.a.enterprise_id, driver_id, f"L{tag}",
             today + timedelta(days=400)))
        for n, at in enumerate((now - timedelta(minutes=5), now - timedelta(days=45))):
            conn.execute(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, driver_id, phone, type, key, start_time)"
                " SELECT enterprise_id, id, car_id, %s, phone, 2, %s, %s FROM device WHERE id = %s",
                (driver_id, f"dd{tag}{n}", at, demo.a.device_id))
        conn.commit()

    reply = client.get(f"/api/driver/{driver_id}/detail.json", headers=login("admin_a"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    assert data["driver"]["name"] == f"d{tag}" and data["driver"]["enterpriseId"] == demo.a.enterprise_id
    assert data["licence"] == {"expire": (today - timedelta(days=3)).isoformat(), "daysLeft": -3, "noticeDays": 30}
    assert data["card"]["issuingAuthority"] == "auth" and data["card"]["validDaysLeft"] == 400
    assert [(v["carId"], v["source"]) for v in data["vehicles"]] == [(demo.a.car_id, 1)]
    assert (data["alarms"]["today"], data["alarms"]["month"]) == (1, 1)
    assert len(data["alarms"]["latest"]) == 2 and data["alarms"]["latest"][0]["type"] == 2


def test_returns_404_for_a_driver_of_another_enterprise_and_a_missing_one(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    with connect(pg_url) as conn:
        foreign = int(conn.execute("INSERT INTO driver (enterprise_id, name) VALUES (%s, 'b') RETURNING id",
                                   (demo.b.enterprise_id,)).fetchone()[0])  # type: ignore[index]
        conn.commit()
    for driver_id in (foreign, 9_000_000_000):
        for query in ({}, {"isParent": "true"}):
            reply = client.get(f"/api/driver/{driver_id}/detail.json", headers=login("admin_a"), query_string=query)
            assert reply.status_code == 404, reply.json
    assert client.get(f"/api/driver/{foreign}/detail.json", headers=login("admin_b")).status_code == 200


def test_the_detail_lists_the_drivers_recent_scored_days_newest_first(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    tag = uuid.uuid4().hex[:8]
    deductions = '[{"key": "a1", "count": 2, "minutes": 4.0, "points": 6.0}]'
    with connect(pg_url) as conn:
        driver_id = int(conn.execute("INSERT INTO driver (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                                     (demo.a.enterprise_id, f"g{tag}")).fetchone()[0])  # type: ignore[index]
        path = conn.execute("SELECT path FROM enterprise WHERE id = %s", (demo.a.enterprise_id,)).fetchone()[0]  # type: ignore[index]
        for date, score, grade, breakdown in ((20261014, 94.0, "A", deductions), (20261015, 100.0, "A", "[]"),
                                              (20261013, None, None, None)):  # a day built before grading
            conn.execute(
                "INSERT INTO driver_day_report (driver_id, date, day, enterprise_id, enterprise_path, mileage_km,"
                " drive_s, grade_score, grade, grade_deductions) VALUES (%s, %s, to_date(%s::text, 'YYYYMMDD'),"
                " %s, %s, 12.5, 1500, %s, %s, %s)",
                (driver_id, date, date, demo.a.enterprise_id, path, score, grade, breakdown))
        conn.commit()
    data = client.get(f"/api/driver/{driver_id}/detail.json", headers=login("admin_a")).json["data"]  # type: ignore[index]
    assert data["grades"] == [
        {"date": 20261015, "gradeScore": 100.0, "grade": "A", "gradeDeductions": [], "mileageKm": 12.5, "driveS": 1500},
        {"date": 20261014, "gradeScore": 94.0, "grade": "A",
         "gradeDeductions": [{"key": "a1", "count": 2, "minutes": 4.0, "points": 6.0}], "mileageKm": 12.5,
         "driveS": 1500}]
