"""Working the live map all day, in Chromium against the live stack: selecting a vehicle (tree or table)
shows it up close and never unticks it; its popup is whole in a short map pane and on a phone; one
search box finds a vehicle by SIM, VIN, terminal id or driver and says what matched; a burst of command
results shows two toasts at most, all of them kept in the notification centre under the bell, and a
result addressed to another user never reaches this one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import sign_in
from tests.e2e.test_console import open_map, search_tree, set_clustering, switch_language, tree_node
from warehouse.db import connect

SELECT_ZOOM = 15  # dashboards/src/features/map/popup/popupPlacement.ts


def _online(stack: ConsoleStack) -> Vehicle:
    from fleet.enums import DeviceState

    with connect(stack.db_url) as conn:
        online = {int(r[0]) for r in conn.execute("SELECT id FROM device WHERE state = %s", (int(DeviceState.ONLINE),))}
    return next(v for v in stack.of("parent") if v.device_id in online)


def _zoom(page: Any) -> int:
    return int(page.get_by_test_id("live-map").get_attribute("data-zoom") or 0)


def _wait_popup(page: Any, vehicle: Vehicle) -> None:
    page.wait_for_function("(id) => document.querySelector(`[data-testid=vehicle-popup][data-device-id='${id}']`)",
                           arg=vehicle.device_id)


def _select_in_tree(page: Any, vehicle: Vehicle) -> None:
    search_tree(page, vehicle.plate)
    tree_node(page, vehicle.node.removeprefix("tree-node-")).locator(".fw-tree-plate").click()


def _popup_whole(page: Any) -> bool:
    return bool(page.evaluate(
        """() => {
          const p = document.querySelector('.leaflet-popup');
          if (!p) return false;
          const m = document.querySelector('[data-testid=live-map]').getBoundingClientRect();
          const r = p.getBoundingClientRect();
          const title = document.querySelector('[data-testid=popup-plateNumber]')?.getBoundingClientRect();
          return r.top >= m.top - 1 && r.bottom <= m.bottom + 1 && r.left >= m.left - 1 && r.right <= m.right + 1
            && !!title && title.top >= m.top && title.top < m.bottom;
        }"""))


def test_selecting_a_vehicle_in_the_tree_zooms_to_it_and_a_second_click_keeps_it_ticked(
        page: Any, console_stack: ConsoleStack) -> None:
    vehicle = _online(console_stack)
    open_map(page)
    set_clustering(page, False)
    assert _zoom(page) < SELECT_ZOOM
    _select_in_tree(page, vehicle)
    _wait_popup(page, vehicle)
    page.wait_for_function("(z) => Number(document.querySelector('[data-testid=live-map]').dataset.zoom) >= z",
                           arg=SELECT_ZOOM)
    page.wait_for_selector(f"[data-testid='{vehicle.node}'][data-checked='true']")
    _select_in_tree(page, vehicle)  # selecting again: still ticked, still shown
    page.wait_for_timeout(500)
    assert page.get_by_test_id(vehicle.node).get_attribute("data-checked") == "true"
    _wait_popup(page, vehicle)
    assert page.errors == []


def test_selecting_a_row_of_the_table_zooms_to_the_vehicle(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = _online(console_stack)
    open_map(page)
    search_tree(page, vehicle.plate)  # the table lists what the search finds
    row = page.get_by_test_id(f"live-row-{vehicle.node.removeprefix('tree-node-')}")
    row.click()
    _wait_popup(page, vehicle)
    page.wait_for_function("(z) => Number(document.querySelector('[data-testid=live-map]').dataset.zoom) >= z",
                           arg=SELECT_ZOOM)
    assert page.errors == []


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 660}, {"width": 390, "height": 844}],
                         ids=["short-map-pane", "phone"])
def test_the_popup_top_is_never_cut_off(page: Any, console_stack: ConsoleStack, viewport: dict[str, int]) -> None:
    vehicle = _online(console_stack)
    page.set_viewport_size(viewport)
    open_map(page)
    set_clustering(page, False)
    _select_in_tree(page, vehicle)
    _wait_popup(page, vehicle)
    page.get_by_test_id("popup-address").wait_for()
    page.wait_for_timeout(1500)  # the address and the photo arrive and grow the popup
    height = page.get_by_test_id("live-map").bounding_box()["height"]
    page.wait_for_function(
        """() => {
          const p = document.querySelector('.leaflet-popup');
          const m = document.querySelector('[data-testid=live-map]').getBoundingClientRect();
          if (!p) return false;
          const r = p.getBoundingClientRect();
          return r.top >= m.top - 1 && r.bottom <= m.bottom + 1 && r.left >= m.left - 1 && r.right <= m.right + 1;
        }""", timeout=10_000)
    assert _popup_whole(page), f"popup cut off in a {height:.0f} px map"
    assert page.errors == []


def _sim_of(stack: ConsoleStack, vehicle: Vehicle) -> tuple[str, str, str]:
    """(ICCID of its SIM card, its VIN, its terminal id)."""
    with connect(stack.db_url) as conn:
        row = conn.execute(
            "SELECT s.iccid, c.vin, d.device_sn FROM car c JOIN device d ON d.id = c.master_device_id"
            " JOIN sim s ON s.device_id = d.id AND s.record_state = 1 WHERE c.id = %s", (vehicle.car_id,)).fetchone()
    assert row is not None and all(row), row
    return str(row[0]), str(row[1]), str(row[2])


def test_one_search_box_finds_a_vehicle_by_sim_card_vin_and_terminal_id_and_says_what_matched(
        page: Any, console_stack: ConsoleStack) -> None:
    vehicle = console_stack.of("a")[0]
    iccid, vin, terminal_id = _sim_of(console_stack, vehicle)
    key = vehicle.node.removeprefix("tree-node-")
    open_map(page)
    for keyword, field in ((iccid, "sim"), (vin, "vin"), (vehicle.phone, "sim"), (terminal_id, "terminalId")):
        search_tree(page, keyword)
        match = page.get_by_test_id(f"tree-match-{key}")
        # the previous keyword's match stays on screen until this search answers: wait for this one's
        expect(match).to_contain_text(keyword, ignore_case=True)
        assert match.get_attribute("data-field") == field, keyword
        page.get_by_test_id(f"live-row-{key}").wait_for()  # the table under the map lists it too
    assert page.errors == []


def _admin_id(stack: ConsoleStack) -> int:
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT id FROM app_user WHERE user_name = 'admin'").fetchone()
    assert row is not None
    return int(row[0])


def _push_results(kafka_bootstrap: str, stack: ConsoleStack, vehicle: Vehicle, user_id: int, created_by: int,
                  ids: range) -> None:
    """Command send errors (push 12) on console.events.v1, as the streams worker writes them."""
    from kafka import KafkaProducer

    from fleet.topics import CONSOLE_EVENTS

    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT e.id, e.path FROM car c JOIN enterprise e ON e.id = c.enterprise_id WHERE c.id = %s",
                           (vehicle.car_id,)).fetchone()
    assert row is not None
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    try:
        for command_id in ids:
            event = {"kind": "push", "enterprise_id": row[0], "enterprise_path": row[1], "user_id": user_id,
                     "push": {"type": 12, "data": {"commandId": command_id, "deviceId": vehicle.device_id,
                                                   "carId": vehicle.car_id, "plateNumber": vehicle.plate,
                                                   "msgId": 0x8300, "reason": 1, "message": "offline",
                                                   "createdBy": created_by}}}
            producer.send(CONSOLE_EVENTS, key=str(row[0]).encode(), value=json.dumps(event).encode())
        producer.flush()
    finally:
        producer.close()


def test_a_burst_of_results_shows_two_toasts_and_all_in_the_centre_and_nobody_elses(
        page: Any, console_stack: ConsoleStack, kafka_bootstrap: str) -> None:
    vehicle = console_stack.of("parent")[0]
    admin = _admin_id(console_stack)
    sign_in(page, "admin", path="/dashboard/map")
    page.get_by_test_id("live-map").wait_for()
    page.get_by_test_id("notice-bell").wait_for()
    page.wait_for_timeout(2000)  # the STOMP subscription
    # addressed to another user of the same enterprise (the sender): this session never gets it, even
    # though its data names admin as the sender
    _push_results(kafka_bootstrap, console_stack, vehicle, admin + 100000, admin, range(900001, 900003))
    page.wait_for_timeout(3000)
    assert page.locator("[data-testid=command-notice]").count() == 0
    _push_results(kafka_bootstrap, console_stack, vehicle, admin, admin, range(900011, 900016))
    page.locator("[data-testid=command-notice]").first.wait_for()
    page.get_by_test_id("notice-bell").click()
    centre = page.get_by_test_id("notice-centre")
    centre.wait_for()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=notice-centre-item]').length >= 5")
    assert centre.locator("[data-testid=notice-centre-item]", has_text=vehicle.plate).count() == 5
    # once the closing ones have gone (their leave animation), at most two toasts are on screen
    page.wait_for_function("() => document.querySelectorAll('.ant-notification-notice').length <= 2", timeout=5_000)
    assert vehicle.plate in centre.inner_text()
    # the toasts open below the header: its language switch stays reachable while they show
    page.keyboard.press("Escape")
    toast = page.locator(".ant-notification-notice").first.bounding_box()
    header = page.get_by_test_id("lang-switch").bounding_box()
    assert toast is not None and header is not None
    assert toast["y"] >= header["y"] + header["height"], (toast, header)
    switch_language(page, "en-US")
    assert page.errors == []
