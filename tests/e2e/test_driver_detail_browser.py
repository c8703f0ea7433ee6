"""The driver detail page in Chromium (platform-spec §2 detail pages: driver): opened from the driver list's
"详情", it shows what the database holds of a driver of enterprise A, in zh-CN, zh-HK and en-US: the record
and its enterprise, the licence expiry warned as expiring inside the bell's notice window, the qualification
certificate of the latest IC card sign-in warned as expired, the vehicles driven (a sign-in and the bound
car), the alarms attributed to the driver with today's / this month's counts and links to the alarm
detail; the bell's licence notice of the driver opens the page. Enterprise B's driver id shows the
not-found page, as a missing one does."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from api.query.validators import national_id_check_char
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect

CHINA = ZoneInfo("Asia/Shanghai")


def _seed(stack: ConsoleStack) -> dict[str, Any]:
    """A driver of A bound to A's first car, signed in by IC card on it an hour ago with a certificate past
    its validity, a licence ending in 10 days (inside the default 30-day window) and two alarms: one now,
    one 40 days ago (counted in neither today nor this month)."""
    vehicle = stack.of("a")[0]
    tag = secrets.token_hex(3).upper()
    # a valid ID of its own: the driver screens of other tests save theirs in the same enterprise, where an ID is unique
    first17 = f"110105{secrets.randbelow(40) + 1960}0101{secrets.randbelow(1000):03d}"  # area, birth day, sequence
    national_id = first17 + national_id_check_char(first17)
    today = datetime.now(CHINA).date()
    now = datetime.now(UTC).replace(microsecond=0)
    with connect(stack.db_url) as conn:
        enterprise, enterprise_name, plate = conn.execute(
            "SELECT c.enterprise_id, e.name, c.plate_number FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
            " WHERE c.id = %s", (vehicle.car_id,)).fetchone()  # type: ignore[misc]
        licence_expire = (today + timedelta(days=10)).isoformat()
        driver_id = conn.execute(
            "INSERT INTO driver (enterprise_id, name, phone, id_card, license_no, license_class, license_expire,"
            " qualification_no) VALUES (%s, %s, '13800138123', %s, %s, 'A2', %s, %s) RETURNING id",
            (enterprise, f"详情司机{tag}", national_id, f"Q{tag}", licence_expire, f"Z{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET driver_id = %s WHERE id = %s", (driver_id, vehicle.car_id))
        card_valid = date(2024, 6, 30)
        conn.execute(
            "INSERT INTO driver_event (device_id, at, status, car_id, enterprise_id, driver_id, ic_result, driver_name,"
            " qualification_no, issuing_authority, valid_until) VALUES (%s, %s, 1, %s, %s, %s, 0, %s, %s, %s, %s)",
            (vehicle.device_id, now - timedelta(hours=1), vehicle.car_id, enterprise, driver_id, f"详情司机{tag}",
             f"Q{tag}", "北京市交通委", card_valid))
        alarms = [conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, driver_id, driver_name, phone, type,"
            " key, start_time, alarm_flags, address) SELECT enterprise_id, id, car_id, %s, %s, %s, phone, 1, %s, %s, 1,"
            " '测试地点' FROM device WHERE id = %s RETURNING id",
            (plate, driver_id, f"详情司机{tag}", f"drv{tag}{n}", at, vehicle.device_id)).fetchone()[0]  # type: ignore[index]
            for n, at in enumerate((now - timedelta(minutes=1), now - timedelta(days=40)))]
        conn.commit()
    return {"id": driver_id, "name": f"详情司机{tag}", "enterprise": enterprise_name, "plate": plate,
            "licenceExpire": licence_expire, "cardValid": card_valid.isoformat(), "licenceNo": f"Q{tag}",
            "qualificationNo": f"Z{tag}", "nationalId": national_id, "alarms": alarms, "carId": vehicle.car_id,
            "cardAt": (now - timedelta(hours=1)).astimezone(CHINA).strftime("%Y-%m-%d %H:%M:%S")}


def _foreign_driver(stack: ConsoleStack) -> int:
    """A live driver of enterprise B (made through B's own API when B has none)."""
    token = stack.token("admin_b")
    page = stack.post("/api/common/query/driver.json?pageSize=1", token, {})
    if page["list"]:
        return int(page["list"][0]["id"])
    return int(stack.post("/api/common/driver.json", token, {"name": "乙司机"})["id"])


def _expect(page: Any, language: str, seeded: dict[str, Any]) -> None:
    detail = page.get_by_test_id("driver-detail")
    detail.wait_for()
    page.get_by_test_id("driver-detail-name").filter(has_text=seeded["name"]).wait_for()
    assert page.get_by_test_id("driver-detail-phone").inner_text() == "13800138123"
    assert page.get_by_test_id("driver-detail-nationalId").inner_text() == seeded["nationalId"]
    assert page.get_by_test_id("driver-detail-licenceNo").inner_text() == seeded["licenceNo"]
    assert page.get_by_test_id("driver-detail-licenceClass").inner_text() == "A2"
    assert page.get_by_test_id("driver-detail-qualificationNo").inner_text() == seeded["qualificationNo"]
    assert page.get_by_test_id("driver-detail-enterprise").inner_text() == seeded["enterprise"]
    # the licence ends in 10 days: inside the bell's 30-day window, so warned as expiring
    licence = page.get_by_test_id("driver-detail-licenceExpire")
    assert licence.get_attribute("data-state") == "expiring"
    assert seeded["licenceExpire"] in licence.inner_text()
    assert page.get_by_test_id("driver-detail-licenceExpire-tag").inner_text() == text(
        language, "fleet", "driverDetail.validity.expiring").replace("{{days}}", "10")
    # the certificate the IC card carried is past its validity
    card = page.get_by_test_id("driver-detail-cardValidUntil")
    assert card.get_attribute("data-state") == "expired"
    assert seeded["cardValid"] in card.inner_text()
    assert page.get_by_test_id("driver-detail-issuingAuthority").inner_text() == "北京市交通委"
    assert page.get_by_test_id("driver-detail-cardReadAt").inner_text() == seeded["cardAt"]
    # the car signed in on (which is also the bound car): one row, the sign-in's time and source
    vehicles = page.get_by_test_id("driver-detail-vehicles").locator(f"tr[data-row-key='{seeded['carId']}']")
    assert seeded["plate"] in vehicles.inner_text()
    assert seeded["cardAt"] in vehicles.inner_text()
    assert text(language, "fleet", "driverDetail.vehicles.sources.1") in vehicles.inner_text()
    # the alarms: one today and this month (the other is 40 days old), both listed, linked to their detail
    assert page.get_by_test_id("driver-detail-alarms-today").inner_text() == "1"
    assert page.get_by_test_id("driver-detail-alarms-month").inner_text() == "1"
    for alarm_id in seeded["alarms"]:
        link = page.get_by_test_id(f"driver-detail-alarm-{alarm_id}")
        assert link.get_attribute("href") == f"/list/alarmDetail?id={alarm_id}"
    page.get_by_text(text(language, "fleet", "driverDetail.sections.alarms"), exact=True).wait_for()


def test_the_driver_detail_shows_the_databases_record_vehicles_and_alarms_in_three_languages(
        page: Any, console_stack: ConsoleStack) -> None:
    seeded = _seed(console_stack)
    sign_in(page, "admin_a", path="/user/driver")
    screen = page.get_by_test_id("list-page-driver")
    screen.get_by_test_id("list-filter-name").fill(seeded["name"])
    screen.get_by_test_id("list-search").click()
    screen.locator(f"tr[data-row-key='{seeded['id']}']").get_by_test_id(f"row-detail-{seeded['id']}").click()
    page.wait_for_url(re.compile(rf"/user/driver/detail\?id={seeded['id']}$"))
    _expect(page, "zh-CN", seeded)
    screenshot(page, "driver-detail.png")
    for language in ("zh-HK", "en-US"):
        switch_language(page, language)
        page.goto(f"/user/driver/detail?id={seeded['id']}")
        _expect(page, language, seeded)
    # the bell's licence notice of the driver (10 days left, inside the window) opens this page too
    page.goto("/setting/notify/List")
    page.get_by_test_id(f"notice-open-4-{seeded['id']}").click()
    page.wait_for_url(re.compile(rf"/user/driver/detail\?id={seeded['id']}$"))
    page.get_by_test_id("driver-detail-name").filter(has_text=seeded["name"]).wait_for()
    page.get_by_test_id(f"driver-detail-alarm-{seeded['alarms'][0]}").click()
    page.wait_for_url(re.compile(rf"/list/alarmDetail\?id={seeded['alarms'][0]}$"))
    assert page.errors == []


def test_another_enterprises_driver_shows_the_not_found_page(page: Any, console_stack: ConsoleStack) -> None:
    foreign = _foreign_driver(console_stack)
    sign_in(page, "admin_a", path=f"/user/driver/detail?id={foreign}")
    page.get_by_test_id("driver-detail-missing").wait_for()
    assert page.get_by_test_id("driver-detail").count() == 0
    page.get_by_text(text("zh-CN", "fleet", "driverDetail.missing")).wait_for()
    # a missing id reads the same (in a tab of its own: the first tab stays mounted, hidden, so: the visible one)
    page.goto("/user/driver/detail?id=999999999")
    page.locator("[data-testid='driver-detail-missing']:visible").wait_for()
