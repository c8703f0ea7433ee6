"""The group's administrator (``admin``, the demo's parent enterprise) works its subsidiaries' vehicles in
Chromium as its own (a parent acts on its subtree unless a screen asks for its own enterprise only):
it handles a subsidiary vehicle's alarm from the alarm list, reads a subsidiary vehicle's GPS log with
the plate in the vehicle picker, and the dashboard's alarm counts and the bell count the group."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.db import connect

BROWSER_ZONE = ZoneInfo("Asia/Shanghai")  # tests/e2e/conftest.py page fixture
GPS_POINTS = 12


def _subsidiary(stack: ConsoleStack) -> int:
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT id FROM enterprise WHERE short_name = '示范一分公司'").fetchone()
    assert row is not None
    return int(row[0])


def _unhandled_alarms(stack: ConsoleStack, enterprise: str, since: datetime | None = None) -> int:
    """Unhandled alarms of the demo enterprise ``enterprise`` ("parent": the group's own only)."""
    short = {"parent": "北京示范运输集团", "a": "示范一分公司", "b": "示范二分公司"}[enterprise]
    with connect(stack.db_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM alarm a JOIN enterprise e ON e.id = a.enterprise_id WHERE e.short_name = %s"
            " AND a.state = 0 AND a.start_time >= %s", (short, since or datetime(2000, 1, 1, tzinfo=UTC))).fetchone()
    assert row is not None
    return int(row[0])


def test_the_group_admin_handles_a_subsidiary_alarm_from_the_alarm_list(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = console_stack.of("a")[0]
    with connect(console_stack.db_url) as conn:
        # an hour ahead of the simulator's alarms: the first row of the newest-first list
        row = conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, start_time, state,"
            " lat, lng, speed) SELECT enterprise_id, id, car_id, %s, phone, 1, 'a1', %s, 0, 39.9, 116.4, 66"
            " FROM device WHERE id = %s RETURNING id",
            (vehicle.plate, datetime.now(UTC) + timedelta(hours=1), vehicle.device_id)).fetchone()
        conn.commit()
    assert row is not None
    alarm_id = int(row[0])
    sign_in(page, "admin", path="/list/alarm")
    page.get_by_test_id("list-page-alarm").wait_for()
    alarm_row = page.get_by_test_id("list-table").locator(f"tr[data-row-key='{alarm_id}']")
    alarm_row.filter(has_text=vehicle.plate).wait_for()

    opinion = f"集团已处理{secrets.token_hex(2)}"
    page.get_by_test_id(f"row-handle-{alarm_id}").click()
    page.get_by_test_id("handle-alarm-opinion").fill(opinion)
    page.locator(".ant-modal .ant-btn-primary").click()
    alarm_row.filter(has_text=opinion).wait_for()
    page.get_by_test_id(f"row-handle-{alarm_id}").wait_for(state="detached")
    assert page.get_by_text(f"报警 {alarm_id} 不存在").count() == 0
    with connect(console_stack.db_url) as conn:
        state = conn.execute("SELECT state, opinion FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
    assert state == (2, opinion)
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_group_admin_reads_a_subsidiary_vehicles_gps_log_with_its_plate(page: Any, console_stack: ConsoleStack) -> None:
    enterprise = _subsidiary(console_stack)
    tag = uuid.uuid4().hex[:5].upper()
    plate = f"测T{tag}"
    midnight = datetime.now(BROWSER_ZONE).replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)
    start = max(midnight + timedelta(seconds=30), datetime.now(UTC) - timedelta(minutes=10))  # today in the browser
    with connect(console_stack.db_url) as conn:
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise, plate)).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise, car_id, f"8{int(tag, 16):011d}", f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
        for i in range(GPS_POINTS):
            conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags)"
                         " VALUES (%s, %s, %s, %s, 116.39, %s, 30, 3)",
                         (device_id, start + timedelta(seconds=20 * i), car_id, enterprise, 39.91 + i / 1000))
        conn.commit()

    sign_in(page, "admin", path=f"/log/gps?carId={car_id}")
    page.goto(f"/log/gps?carId={car_id}")
    gps = page.get_by_test_id("list-page-gpsLog")
    gps.wait_for()
    gps.get_by_test_id("list-filter-carId").filter(has_text=plate).wait_for()  # the plate, not the id
    gps.get_by_test_id("list-total").filter(has_text=f"共 {GPS_POINTS} 条数据").wait_for()
    gps.get_by_test_id("list-table").get_by_text(plate).first.wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_dashboard_alarm_counts_and_the_bell_count_the_groups_vehicles(page: Any, console_stack: ConsoleStack) -> None:
    # unhandled alarms of both subsidiaries, far more than the group's own vehicles raise meanwhile
    now = datetime.now(UTC)
    with connect(console_stack.db_url) as conn:
        for vehicle in console_stack.of("a")[:2] + console_stack.of("b")[:2]:
            conn.execute(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, start_time, state)"
                " SELECT enterprise_id, id, car_id, %s, phone, 1, 'a1', %s - make_interval(secs => s), 0"
                " FROM device, generate_series(1, 25) AS s WHERE id = %s",
                (vehicle.plate, now, vehicle.device_id))
        conn.commit()
    today = datetime.now(BROWSER_ZONE).replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)
    if now - timedelta(seconds=30) < today:
        today = now - timedelta(seconds=30)  # just after midnight: the inserted alarms count from yesterday's

    sign_in(page, "admin", path="/dashboard/index")
    counter = page.get_by_test_id("alarm-counter-unhandled")
    page.wait_for_function(
        "() => (document.querySelector('[data-testid=alarm-counter-unhandled]')?.getAttribute('data-value') ?? '') !== ''")
    shown = int(counter.get_attribute("data-value") or "0")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=notice-bell] sup')?.getAttribute('title')")
    bell = int(page.get_by_test_id("notice-bell").locator("sup").first.get_attribute("title") or "0")
    # read after the screen: the group's own alarms only rise meanwhile
    own_today = _unhandled_alarms(console_stack, "parent", today)
    own = _unhandled_alarms(console_stack, "parent")
    assert shown > own_today + 50, (shown, own_today)  # the subsidiaries' 100 are in
    assert bell > own + 50, (bell, own)
    assert page.errors == []  # type: ignore[attr-defined]
