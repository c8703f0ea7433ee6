"""The vehicle detail page in Chromium: opened from the car list's "详情" and by URL, in
two languages; it shows the plate, the device, the state from the device state, the address of the
last position (offline reverse geocoding), and its links lead to the replay and the logs. A vehicle
whose terminal speaks GB/T 32960 moves to that variant's page (nevCarDetail: its figures in
test_nev_console_browser.py), which says when no state has come yet; another enterprise's vehicle is not
found; the map popup's details button opens the page."""

from __future__ import annotations

import re
import secrets
from typing import Any

from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import new_console_context, sign_in
from tests.e2e.test_console import (
    click_in_popup,
    open_map,
    open_popup,
    screenshot,
    set_clustering,
    switch_language,
    text,
    tick,
)
from warehouse.db import connect

# The detail page's description values narrower than 72 px (five characters of the console's 14 px CJK text): their
# text wraps a character or two a line. (A fitted card's narrowest value is ~89 px: its two-character value beside a
# four-character label in a four-column row of 1,126 px.)
SQUEEZED_VALUES = """() => [...document.querySelectorAll('[data-testid=car-detail] .ant-descriptions-item-content')]
  .filter((c) => c.innerText.trim() !== '' && c.getBoundingClientRect().width < 72).map((c) => c.innerText)"""


def _vehicle_a(stack: ConsoleStack) -> Vehicle:
    return stack.of("a")[0]


def _wait_detail(page: Any, plate: str) -> Any:
    detail = page.get_by_test_id("car-detail")
    detail.wait_for()
    page.get_by_test_id("detail-plateNumber").filter(has_text=plate).wait_for()
    return detail


def test_detail_opens_from_the_car_list_and_by_url_in_two_languages(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = _vehicle_a(console_stack)
    token = console_stack.token("admin_a")
    state = console_stack.get(f"/api/device/{vehicle.device_id}/state.json", token)
    sign_in(page, "admin_a", path="/list/car")
    screen = page.get_by_test_id("list-page-car")
    screen.get_by_test_id("list-filter-plateNumber").fill(vehicle.plate)
    screen.get_by_test_id("list-search").click()
    screen.locator(f"tr[data-row-key='{vehicle.car_id}']").get_by_test_id(f"row-detail-{vehicle.car_id}").click()

    page.wait_for_url(re.compile(rf"/list/carDetail\?carId={vehicle.car_id}"))
    _wait_detail(page, vehicle.plate)
    page.get_by_test_id(f"detail-device-{vehicle.device_id}").filter(has_text=vehicle.phone).wait_for()
    online = str(state[0]["state"] if state else 0)
    assert page.get_by_test_id("detail-online").get_attribute("data-online") == online
    # The simulated fleet drives around Beijing: the offline geocoder names the district.
    address = page.get_by_test_id("detail-address")
    address.filter(has_text=re.compile(r"^北京市.+区$")).wait_for()
    page.get_by_text(text("zh-CN", "detail", "sections.state"), exact=True).wait_for()
    screenshot(page, "car-detail.png")

    for name, path in (("gps", "/log/gps"), ("online", "/log/online"), ("accState", "/log/accState"),
                       ("park", "/log/park"), ("idling", "/log/idling"), ("replay", "/dashboard/trace")):
        assert page.get_by_test_id(f"detail-link-{name}").get_attribute("href") == f"{path}?carId={vehicle.car_id}"
    page.get_by_test_id("detail-link-replay").click()
    page.wait_for_url(re.compile(rf"/dashboard/trace\?carId={vehicle.car_id}$"))

    switch_language(page, "en-US")
    page.goto(f"/list/carDetail?carId={vehicle.car_id}&deviceId={vehicle.device_id}")
    _wait_detail(page, vehicle.plate)
    page.get_by_text(text("en-US", "detail", "sections.state"), exact=True).wait_for()
    page.get_by_test_id("detail-links").get_by_text(text("en-US", "detail", "links.replay")).wait_for()
    address.filter(has_text=re.compile(r"^北京市.+区$")).wait_for()
    assert page.evaluate(SQUEEZED_VALUES) == []
    assert page.errors == []


def test_a_gb32960_vehicle_moves_to_its_variant(page: Any, console_stack: ConsoleStack) -> None:
    plate = f"粤E{secrets.token_hex(3).upper()[:5]}"
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s",
                                  (_vehicle_a(console_stack).car_id,)).fetchone()[0]  # type: ignore[index]
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                           (enterprise, plate)).fetchone()[0]  # type: ignore[index]
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol) VALUES (%s, %s, %s, %s, 'gb32960')"
            " RETURNING id", (enterprise, car, f"09{secrets.randbelow(10**10):010d}", f"NEV{secrets.token_hex(4)}"),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
        conn.commit()
    sign_in(page, "admin_a", path=f"/list/carDetail?carId={car}")
    page.wait_for_url(re.compile(rf"/list/carDetail/gb32960\?carId={car}&deviceId={device}$"))
    _wait_detail(page, plate)
    page.get_by_test_id("nev-no-state").wait_for()  # no GB/T 32960 frame yet: it says so
    assert page.get_by_test_id("detail-variant-notice").count() == 0
    page.get_by_test_id("detail-no-position").wait_for()

    # Another enterprise's vehicle is not found, exactly like a missing one (a fresh browser context).
    other = new_console_context(page.context.browser, base_url=console_stack.base_url, locale="zh-CN")
    try:
        page_b = other.new_page()
        sign_in(page_b, "admin_b", path=f"/list/carDetail?carId={car}")
        page_b.get_by_test_id("detail-not-found").wait_for()
        assert page_b.get_by_test_id("car-detail").count() == 0
    finally:
        other.close()


def test_the_map_popup_details_button_opens_the_detail_page(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = _vehicle_a(console_stack)
    open_map(page, "admin_a")
    set_clustering(page, False)
    tick(page, [vehicle])
    popup = open_popup(page, vehicle)
    click_in_popup(popup, "details", page.get_by_test_id("car-detail"))
    page.wait_for_url(re.compile(rf"/list/carDetail\?carId={vehicle.car_id}&deviceId={vehicle.device_id}$"))
    _wait_detail(page, vehicle.plate)
