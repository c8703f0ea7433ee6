"""The alarm and dispatch dashboards, welcome and home, and "/" in Chromium against the live stack: the figures the
dashboards show are the database's (alarms of today in the caller's tree, handled or not, the bell's unhandled;
vehicles out today from the day rows, the fleet), the screens read in zh-CN, zh-HK and en-US, and "/" goes to the
stored index URL, else to /dashboard/index (console-spec §2 routes)."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fleet.settings import REPO_ROOT
from protocols.china_time import CHINA_TZ, local_midnight
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.db import connect

LOCALES = REPO_ROOT / "dashboards" / "src" / "locales"
SETTLE_S = 60  # the simulated fleet raises alarms: sample until the page and the database show one moment
TITLES = {
    "/dashboard/alarm": {"zh-CN": "报警看板", "zh-HK": "報警看板", "en-US": "Alarm dashboard"},
    "/dashboard/ship": {"zh-CN": "出车看板", "zh-HK": "出車看板", "en-US": "Dispatch dashboard"},
}


def _admin_tree(conn: Any) -> str:
    row = conn.execute("SELECT e.path FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id"
                       " WHERE u.user_name = 'admin'").fetchone()
    assert row is not None
    return str(row[0])


def _alarm_figures(db_url: str) -> dict[str, int]:
    """The demo administrator's (parent: the whole tree) alarms of today (UTC+8) and every unhandled one."""
    midnight = local_midnight(datetime.now(CHINA_TZ))
    with connect(db_url) as conn:
        tree = _admin_tree(conn) + "%"
        row = conn.execute(
            "SELECT count(*) FILTER (WHERE start_time >= %s), count(*) FILTER (WHERE start_time >= %s AND state = 0),"
            " count(*) FILTER (WHERE start_time >= %s AND state <> 0), count(*) FILTER (WHERE state = 0)"
            " FROM alarm WHERE enterprise_id IN (SELECT id FROM enterprise WHERE path LIKE %s)",
            (midnight, midnight, midnight, tree)).fetchone()
    assert row is not None
    return {"total": int(row[0]), "unhandledRange": int(row[1]), "handled": int(row[2]), "unhandled": int(row[3])}


def _shown(page: Any, prefix: str, names: list[str]) -> dict[str, float | None]:
    shown: dict[str, float | None] = {}
    for name in names:
        found = page.locator(f"[data-testid={prefix}-{name}]")
        raw = found.first.get_attribute("data-value") if found.count() else None
        shown[name] = float(raw) if raw not in (None, "") and re.fullmatch(r"-?[0-9.]+", raw or "") else None
    return shown


@pytest.fixture
def todays_alarms(console_stack: ConsoleStack) -> None:
    """Two alarms of today on the stack's first vehicle, one handled, so every figure has something to count."""
    vehicle = console_stack.vehicles[0]
    now = datetime.now(UTC).replace(microsecond=0)
    midnight = local_midnight(now.astimezone(CHINA_TZ))
    at = midnight + (now - midnight) / 2
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (vehicle.car_id,)).fetchone()
        assert enterprise is not None
        for key, level, state, shift in (("a0", None, 0, 0), ("adas_1", 1, 2, 1)):
            conn.execute(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time,"
                " state) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (enterprise[0], vehicle.device_id, vehicle.car_id, vehicle.plate, vehicle.phone,
                 5 if key.startswith("adas") else 1, key, level, at + timedelta(seconds=shift), state))
        conn.commit()


def test_alarm_dashboard_shows_the_databases_figures(page: Any, console_stack: ConsoleStack,
                                                     todays_alarms: None) -> None:
    sign_in(page, "admin", path="/dashboard/alarm")
    page.locator("[data-testid=alarm-board][data-loaded=true]").wait_for()
    names = ["total", "unhandledRange", "handled", "unhandled"]
    deadline = time.monotonic() + SETTLE_S
    seen: list[Any] = []
    while True:
        shown, database = _shown(page, "board", names), _alarm_figures(console_stack.db_url)
        seen.append((shown, database))
        if all(shown[name] == database[name] for name in names):
            break
        assert time.monotonic() < deadline, f"the alarm dashboard never showed the database's figures: {seen[-3:]}"
        page.get_by_test_id("alarm-board-refresh").click()
        time.sleep(2)
    assert database["total"] >= 2 and database["handled"] >= 1
    # the charts are drawn, the top vehicles list the inserted alarms' vehicle, the newest unhandled link to details
    for chart in ("board-by-type", "board-trend", "board-by-level", "board-handling"):
        page.get_by_test_id(chart).wait_for()
    page.get_by_test_id(f"top-vehicle-{console_stack.vehicles[0].car_id}").wait_for()
    first = page.locator("[data-testid=alarm-board-latest] a[data-testid^=latest-alarm-]").first
    first.click()
    page.wait_for_url(re.compile(r"/list/alarmDetail\?id=\d+"))
    assert page.errors == []


def test_dispatch_dashboard_shows_the_day_rows_and_the_fleet(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = console_stack.vehicles[1]
    today = datetime.now(CHINA_TZ).date()
    key = today.year * 10000 + today.month * 100 + today.day
    with connect(console_stack.db_url) as conn:
        conn.execute(
            "INSERT INTO car_day_report (car_id, date, day, device_id, enterprise_id, enterprise_path, plate_number,"
            " mileage_km, trips, drive_s, active, first_acc_on_at, provisional)"
            " SELECT c.id, %s, %s, c.master_device_id, c.enterprise_id, e.path, c.plate_number, 42.5, 3, 5400, true,"
            " now() - interval '2 hours', true FROM car c JOIN enterprise e ON e.id = c.enterprise_id WHERE c.id = %s"
            " ON CONFLICT (car_id, date) DO UPDATE SET active = true, mileage_km = 42.5, trips = 3",
            (key, today, vehicle.car_id))
        conn.commit()
        tree = _admin_tree(conn) + "%"
        row = conn.execute("SELECT count(*) FILTER (WHERE active), coalesce(sum(trips), 0) FROM car_day_report"
                           " WHERE date = %s AND enterprise_path LIKE %s", (key, tree)).fetchone()
        assert row is not None
        out, trips = int(row[0]), int(row[1])
    sign_in(page, "admin", path="/dashboard/ship")
    page.locator("[data-testid=ship-dashboard][data-loaded=true]").wait_for()
    shown = _shown(page, "ship", ["out", "trips", "total", "idle"])
    fleet = console_stack.get("/api/fleet/figures.json", console_stack.token("admin"))
    assert (shown["out"], shown["trips"]) == (out, trips) and out >= 1
    assert shown["total"] == fleet["total"] and shown["idle"] == fleet["total"] - out
    page.get_by_test_id(f"ship-car-{vehicle.car_id}").wait_for()
    page.get_by_test_id("ship-chart").wait_for()
    assert page.errors == []


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_new_screens_read_in_each_language(page: Any, console_stack: ConsoleStack, language: str) -> None:
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, "admin", path="/dashboard/alarm")
    for path, titles in TITLES.items():
        page.goto(path)
        page.get_by_role("heading", name=titles[language]).wait_for()
    user = console_stack.get("/api/user/current.json", console_stack.token("admin"))
    name = user.get("nickName") or user.get("name") or user["userName"]
    home = json.loads((LOCALES / language / "home.json").read_text())
    page.goto("/welcome")
    greeting = page.get_by_test_id("welcome-greeting").inner_text()
    assert greeting in {text.replace("{{name}}", name) for text in home["welcome"]["greeting"].values()}, greeting
    page.get_by_test_id("shortcut-/dashboard/alarm").wait_for()
    page.get_by_test_id("shortcut-/dashboard/ship").wait_for()
    page.goto("/home")
    layout = json.loads((LOCALES / language / "layout.json").read_text())
    assert page.get_by_test_id("home-name").inner_text() == layout["appName"]
    page.get_by_test_id("entry-/dashboard/map").wait_for()
    assert page.errors == []


def test_root_goes_to_the_stored_index_url_else_to_the_dashboard_index(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, "admin")  # signing in without a stored index URL opens the live map
    page.wait_for_url(re.compile(r"/dashboard/map$"))
    page.goto("/")
    page.wait_for_url(re.compile(r"/dashboard/index$"))
    page.evaluate("() => sessionStorage.setItem('fleetwatch.indexUrl', '/dashboard/alarm')")
    page.goto("/")
    page.wait_for_url(re.compile(r"/dashboard/alarm$"))
    assert page.errors == []
