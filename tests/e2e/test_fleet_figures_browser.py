"""One figure per concept, in Chromium against the live stack: the live map, the dashboard and the cockpit,
open side by side, show the same online and alarming vehicles as the server's figure
(GET /api/fleet/figures.json, warehouse/queries/fleet_figures.py) at one moment, and the dashboard and the
cockpit the same today's mileage, today's alarms and unhandled alarms."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import open_map

SETTLE_S = 60  # the dashboard and the cockpit re-read the figures every 15 s; the map is live
FIRST_READ_MS = 60_000  # the day's first figures read folds the day's fixes (fleet_figures.TodayMileage)


def _number(page: Any, selector: str, attribute: str | None = None) -> float | None:
    """The number a screen shows at ``selector`` (an attribute's value, else its text without separators)."""
    found = page.locator(selector)
    if found.count() == 0:
        return None
    raw = found.first.get_attribute(attribute) if attribute else found.first.inner_text()
    digits = re.sub(r"[^0-9.]", "", raw or "")
    return float(digits) if digits else None


def _screens(map_page: Any, dashboard: Any, cockpit: Any) -> dict[str, dict[str, float | None]]:
    return {
        "map": {"online": _number(map_page, "[data-testid=tree-tab-online]", "data-count"),
                "alarming": _number(map_page, "[data-testid=tree-tab-alarming]", "data-count")},
        "dashboard": {"online": _number(dashboard, "[data-testid=counter-online]"),
                      "alarming": _number(dashboard, "[data-testid=counter-alarming]"),
                      "todayAlarms": _number(dashboard, "[data-testid=counter-todayAlarms]"),
                      "unhandled": _number(dashboard, "[data-testid=counter-unhandled]"),
                      "todayMileageKm": _number(dashboard, "[data-testid=counter-todayMileageKm]")},
        "cockpit": {"online": _number(cockpit, "[data-testid=cockpit-figure-online]", "data-value"),
                    "alarming": _number(cockpit, "[data-testid=cockpit-figure-alarming]", "data-value"),
                    "todayAlarms": _number(cockpit, "[data-testid=cockpit-figure-alarmsToday]", "data-value"),
                    "unhandled": _number(cockpit, "[data-testid=cockpit-figure-unhandled]", "data-value"),
                    "todayMileageKm": _number(cockpit, "[data-testid=cockpit-figure-todayKm]", "data-value")},
    }


def _agree(server: dict[str, Any], screens: dict[str, dict[str, float | None]]) -> bool:
    for figures in screens.values():
        for name, value in figures.items():
            if name == "todayMileageKm":
                continue
            if value is None or value != server[name]:
                return False
    # the dashboard shows a tenth of a km, the cockpit whole km: the same figure, rounded
    km = [screens[s]["todayMileageKm"] for s in ("dashboard", "cockpit")]
    return None not in km and abs(round(float(km[0] or 0)) - float(km[1] or 0)) <= 1


def test_map_dashboard_and_cockpit_show_the_same_figures(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    open_map(page)
    errors: list[str] = []
    dashboard = page.context.new_page()
    dashboard.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(dashboard, "admin", path="/dashboard/index")
    dashboard.get_by_test_id("dashboard-index").wait_for()
    with dashboard.context.expect_page() as opened:
        dashboard.get_by_test_id("open-cockpit").click()
    cockpit = opened.value
    cockpit.on("pageerror", lambda exc: errors.append(str(exc)))
    # ready once the server's figures are in: the first read of a day folds the day's fixes (a few seconds)
    cockpit.locator("[data-testid=cockpit-index][data-ready=true]").wait_for(timeout=FIRST_READ_MS)

    # The simulated fleet drives: sample until the three screens show the server's figures of one moment.
    deadline = time.monotonic() + SETTLE_S
    seen: list[tuple[dict[str, Any], dict[str, dict[str, float | None]]]] = []
    while True:
        server = console_stack.get("/api/fleet/figures.json", token)
        screens = _screens(page, dashboard, cockpit)
        seen.append((server, screens))
        if _agree(server, screens):
            break
        assert time.monotonic() < deadline, f"the screens never agreed with the server's figures: {seen[-3:]}"
        time.sleep(1)
    assert server["online"] > 0 and server["total"] >= server["online"]
    assert page.errors == [] and errors == []
