"""Registering a vehicle through the console alone, in Chromium: a new terminal, its SIM card, a
driver (an invalid national ID refused on its field with 身份证号码不合法), the car with that driver,
the terminal fitted on the car's edit page; the vehicle then shows in the live map's tree; deleting it
removes it from the tree while its track stays."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import choose, sign_in
from tests.e2e.test_console import TREE_NODE, screenshot, search_tree, text
from warehouse.db import connect
from warehouse.seed import SUBSIDIARY_A

OK = re.compile("OK|确 ?定")


def _post(stack: ConsoleStack, path: str, token: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(f"{stack.base_url}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        answer = json.load(reply)
    assert answer["code"] == 0, answer
    return answer["data"]


def _open_list(page: Any, path: str, entity: str) -> None:
    page.goto(path)
    page.get_by_test_id(f"list-page-{entity}").wait_for()


def _create(page: Any, entity: str, values: dict[str, str], choices: dict[str, str] | None = None) -> None:
    page.get_by_test_id(f"list-page-{entity}").get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    for field, value in values.items():
        drawer.get_by_test_id(f"record-field-{field}").fill(value)
    for field, option in (choices or {}).items():
        choose(page, drawer.get_by_test_id(f"record-field-{field}"), option)
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")


def _find(page: Any, entity: str, field: str, value: str) -> Any:
    """The row of the list whose ``field`` contains ``value``, searched through the filter bar (tabs
    keep other list pages alive: everything is looked up inside this entity's page)."""
    screen = page.get_by_test_id(f"list-page-{entity}")
    screen.get_by_test_id(f"list-filter-{field}").fill(value)
    screen.get_by_test_id("list-search").click()
    row = screen.get_by_test_id("list-table").locator("tr[data-row-key]", has_text=value)
    row.wait_for()
    return row


def _field_error(page: Any, field: str) -> Any:
    item = page.locator(".ant-form-item", has=page.get_by_test_id(f"driver-field-{field}"))
    return item.locator(".ant-form-item-explain-error")


def test_a_vehicle_is_registered_seen_on_the_map_and_deleted_with_its_history_kept(
    page: Any, console_stack: ConsoleStack
) -> None:
    tag = secrets.token_hex(3).upper()
    typed = f"0139{secrets.randbelow(10**8):08d}"  # as a 2013 header carries it
    phone = typed[1:]  # stored and shown in its one canonical form, without the leading zero
    plate = f"京E{tag}"
    driver_name = f"测试司机{tag}"
    sign_in(page, SUBSIDIARY_A.admin, path="/list/device")

    # a terminal, then its SIM card (the terminal picked by its phone)
    page.get_by_test_id("list-page-device").wait_for()
    _create(page, "device", {"phone": typed, "deviceSn": f"E2E{tag}", "deviceName": f"终端{tag}"})
    _find(page, "device", "phone", phone)
    _open_list(page, "/list/sim", "sim")
    msisdn = f"14{secrets.randbelow(10**11):011d}"
    _create(page, "sim", {"msisdn": msisdn, "iccid": f"8986{secrets.randbelow(10**16):016d}"},
            {"deviceId": phone})
    _find(page, "sim", "msisdn", msisdn)

    # a driver: the invalid national ID is refused on its field, a valid one saves
    page.goto("/user/driver")
    page.get_by_test_id("driver-new").click()
    page.get_by_test_id("driver-edit").wait_for()
    page.get_by_test_id("driver-field-name").fill(driver_name)
    page.get_by_test_id("driver-field-phone").fill("13800138000")
    page.get_by_test_id("driver-field-nationalId").fill("110105194912310021")  # check digit should be X
    page.get_by_test_id("driver-save").click()
    _field_error(page, "nationalId").filter(has_text=text("zh-CN", "validation", "nationalId")).wait_for()
    assert text("zh-CN", "validation", "nationalId") == "身份证号码不合法"
    page.get_by_test_id("driver-field-nationalId").fill("11010519491231002X")
    page.get_by_test_id("driver-save").click()
    page.wait_for_url(re.compile(r"/user/driver$"))
    _find(page, "driver", "name", driver_name)

    # the car with that driver, then its terminal fitted on the edit page (the first one is the master)
    _open_list(page, "/list/car", "car")
    _create(page, "car", {"plateNumber": plate, "vin": f"LE2E{secrets.randbelow(10**13):013d}"}, {"driverId": driver_name})
    row = _find(page, "car", "plateNumber", plate)
    car_id = row.get_attribute("data-row-key")
    row.get_by_test_id(f"row-devices-{car_id}").click()  # "详情" is the detail page (test_car_detail.py)
    page.get_by_test_id("car-edit").wait_for()
    choose(page, page.get_by_test_id("device-pick"), phone)
    page.get_by_test_id("device-attach").click()
    # the save's own answer: the drawer's "created" notice of a moment ago may still be on screen
    with page.expect_response(lambda r: r.request.method == "PATCH" and f"/api/common/car/{car_id}.json" in r.url) as saved:
        page.get_by_test_id("car-devices-save").click()
    assert saved.value.ok
    page.locator(".ant-message-notice", has_text=text("zh-CN", "fleet", "done.saved")).first.wait_for()
    screenshot(page, "list-car-edit-zh-CN.png")

    token = console_stack.token(SUBSIDIARY_A.admin)
    car = _post(console_stack, "/api/common/query/carView.json", token, {"plateNumber": plate})["list"][0]
    assert (car["masterDevicePhone"], car["driverName"]) == (phone, driver_name)
    device_id = car["masterDeviceId"]
    with connect(console_stack.db_url) as conn:  # a track point, as the streams would have written
        conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                     " SELECT %s, now(), id, enterprise_id, 116.3, 39.9, 30 FROM car WHERE id = %s",
                     (device_id, car["carId"]))

    # on the live map's tree
    page.goto("/dashboard/map")
    page.get_by_test_id("vehicle-tree").wait_for()
    search_tree(page, plate)
    node = page.get_by_test_id(f"tree-node-c_{car['carId']}_{device_id}")
    node.wait_for()

    # deleted: gone from the list and the tree, its track stays
    _open_list(page, "/list/car", "car")
    _find(page, "car", "plateNumber", plate)
    page.get_by_test_id(f"row-delete-{car_id}").click()
    page.locator(".ant-popconfirm").get_by_role("button", name=OK).click()
    page.get_by_test_id("list-table").locator("tr[data-row-key]", has_text=plate).wait_for(state="detached")
    page.goto("/dashboard/map")
    page.get_by_test_id("vehicle-tree").locator(TREE_NODE).first.wait_for()  # loaded afresh
    search_tree(page, plate)
    page.get_by_test_id("vehicle-tree").get_by_text(plate).wait_for(state="detached")
    assert node.count() == 0
    track = _post(console_stack, "/api/common/query/gps.json", token, {"carId": car["carId"]})["list"]
    assert [point["deviceId"] for point in track] == [device_id]
    device = _post(console_stack, "/api/common/query/device.json", token, {"id": device_id})["list"][0]
    assert device["carId"] is None  # the terminal is free again
    assert page.errors == []
