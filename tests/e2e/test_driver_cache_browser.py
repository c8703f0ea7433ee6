"""The driver cache of platform-spec §3 in Chromium: the vehicle popup shows its driver's name read by id
(GET /api/common/driver/{id}.json, §7) once per session; opening the popup again asks the server nothing."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.test_console import open_map, open_popup, set_clustering, tick


def test_the_popup_shows_the_driver_read_by_id_once_per_session(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    vehicle, car = next(
        (v, car) for v in console_stack.vehicles
        if (car := console_stack.get(f"/api/common/carView/{v.car_id}.json?isParent=true", token))["driverId"])
    driver = console_stack.get(f"/api/common/driver/{car['driverId']}.json", token)
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url) if "/api/common/driver/" in request.url else None)
    open_map(page)
    set_clustering(page, False)
    tick(page, [vehicle])
    for _ in range(2):
        popup = open_popup(page, vehicle)
        page.wait_for_function(
            "(name) => document.querySelector('[data-testid=popup-driver]')?.innerText === name", arg=driver["name"])
        page.keyboard.press("Escape")
        popup.wait_for(state="hidden")
    assert [url.split("?")[0].rsplit("/", 1)[-1] for url in reads] == [f"{car['driverId']}.json"]
    assert page.errors == []  # type: ignore[attr-defined]
