"""History log screens in Chromium: GPS, online, ACC state, parking and idling logs of a
vehicle with a crafted track of today, opened from a link (``?carId=``) or by choosing the vehicle in
the filter bar, in zh-CN and another language, the state bits described in the GPS log."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import choose, sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect

LNG, LAT = 116.39, 39.91
BROWSER_ZONE = ZoneInfo("Asia/Shanghai")  # tests/e2e/conftest.py page fixture


@dataclass(frozen=True)
class LogCar:
    car_id: int
    plate: str
    start: datetime  # the track's first fix: 01:00 of the browser's today


def _track() -> list[tuple[int, float, bool, float]]:
    """(minute, speed, acc, north): drive 0-14; park 15-30 (ACC on 15-18); drive 31-40; park 41-50
    engine running; drive 51-60."""
    points, north = [], 0.0
    for minute in range(61):
        stopped = 15 <= minute <= 30 or 41 <= minute <= 50
        if not stopped:
            north += 0.006
        acc = (not stopped) or 15 <= minute <= 18 or 41 <= minute <= 50
        points.append((minute, 0.0 if stopped else 40.0, acc, north))
    return points


@pytest.fixture(scope="module")
def log_car(console_stack: ConsoleStack) -> LogCar:
    """A vehicle of enterprise A with today's track, online and ACC transitions: today as the browser
    counts it (the page fixture's time zone, Asia/Shanghai), from its midnight + 1 h."""
    now = datetime.now(BROWSER_ZONE)
    start = (now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(hours=1)).astimezone(UTC)
    tag = uuid.uuid4().hex[:5].upper()
    plate = f"测L{tag}"
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT id FROM enterprise WHERE short_name = '示范一分公司'").fetchone()[0]  # type: ignore[index]
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise, plate)).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise, car_id, f"9{int(tag, 16):011d}", f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
        for minute, speed, acc, north in _track():
            conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags)"
                         " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                         (device_id, start + timedelta(minutes=minute), car_id, enterprise, LNG, LAT + north, speed,
                          3 if acc else 2))
        for minute, state in ((0, 1), (61, 0)):
            conn.execute("INSERT INTO device_online_log (device_id, at, state, enterprise_id, reason) VALUES (%s, %s, %s, %s, 'e2e')",
                         (device_id, start + timedelta(minutes=minute), state, enterprise))
        for minute, state in ((19, 0), (31, 1)):
            conn.execute("INSERT INTO acc_state_log (device_id, create_time, state, car_id, enterprise_id, lng, lat)"
                         " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (device_id, start + timedelta(minutes=minute), state, car_id, enterprise, LNG, LAT))
        conn.commit()
    return LogCar(int(car_id), plate, start)


def _open(page: Any, path: str, entity: str) -> Any:
    """The log's list page (pages stay open in their tabs: every locator is scoped to this one)."""
    page.goto(path)
    list_page = page.get_by_test_id(f"list-page-{entity}")
    list_page.wait_for()
    return list_page


def _total(list_page: Any, shown: str) -> None:
    total = list_page.get_by_test_id("list-total")
    try:
        total.filter(has_text=re.compile(f"^{re.escape(shown)}$")).wait_for()
    except Exception as exc:  # say what the page shows instead
        raise AssertionError(f"expected {shown!r}, the page shows {total.all_inner_texts()!r}: "
                             f"{list_page.get_by_test_id('list-table').inner_text()[:500]!r}") from exc


def test_gps_log_by_choosing_the_vehicle_with_its_state_bits(page: Any, log_car: LogCar) -> None:
    sign_in(page, "admin_a", path="/log/gps")
    gps = _open(page, "/log/gps", "gpsLog")
    gps.get_by_test_id("list-required").wait_for()  # no vehicle yet: the list asks for one
    choose(page, gps.get_by_test_id("list-filter-carId"), log_car.plate)
    gps.get_by_test_id("list-search").click()
    _total(gps, "共 61 条数据")
    table = gps.get_by_test_id("list-table")
    table.get_by_text(log_car.plate).first.wait_for()
    table.get_by_test_id("status-bits").filter(has_text="ACC开，已定位").first.wait_for()

    switch_language(page, "en-US")
    _total(gps, "Total: 61")
    table.get_by_text(text("en-US", "log", "gps.fields.time"), exact=True).first.wait_for()
    table.get_by_test_id("status-bits").filter(has_text="ACC on, Positioned").first.wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_parking_and_idling_logs_from_a_link_open_the_replay(page: Any, log_car: LogCar) -> None:
    sign_in(page, "admin_a", path=f"/log/park?carId={log_car.car_id}")
    park = _open(page, f"/log/park?carId={log_car.car_id}", "parkLog")
    _total(park, "共 2 条数据")
    table = park.get_by_test_id("list-table")
    table.get_by_text("15分0秒").wait_for()  # 15-30: across the ACC change, one stop
    table.get_by_text("9分0秒").wait_for()
    table.get_by_text("北京市", exact=False).first.wait_for()
    start_ms = int((log_car.start + timedelta(minutes=15)).timestamp() * 1000)
    assert table.locator(f'a[href*="/dashboard/trace?carId={log_car.car_id}&start={start_ms}"]').count() == 1

    idling = _open(page, f"/log/idling?carId={log_car.car_id}", "idlingLog")
    _total(idling, "共 2 条数据")
    idling.get_by_test_id("list-table").get_by_text("3分0秒").wait_for()

    switch_language(page, "zh-HK")
    _total(idling, text("zh-HK", "list", "total").replace("{{total}}", "2"))
    idling.get_by_test_id("list-table").get_by_text(text("zh-HK", "log", "idling.fields.startTime"), exact=True).first.wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_online_and_acc_state_logs_of_the_vehicle(page: Any, log_car: LogCar) -> None:
    sign_in(page, "admin_a", path=f"/log/online?carId={log_car.car_id}")
    online = _open(page, f"/log/online?carId={log_car.car_id}", "onlineLog")
    _total(online, "共 2 条数据")
    table = online.get_by_test_id("list-table")
    table.get_by_text("上线", exact=True).wait_for()
    table.get_by_text("离线", exact=True).wait_for()

    acc = _open(page, f"/log/accState?carId={log_car.car_id}", "accStateLog")
    _total(acc, "共 2 条数据")
    rows = acc.get_by_test_id("list-table").locator("tbody tr.ant-table-row")
    assert "ACC开" in rows.first.inner_text()  # newest first: the 31st minute's ACC on
    assert "ACC关" in rows.nth(1).inner_text()
    assert page.errors == []  # type: ignore[attr-defined]
