"""Commands from the map popup in Chromium against the live stack, whose simulated
terminals answer commands like real ones: take a photo of a vehicle and see it pop up (and then in the
vehicle popup); send a text and see the result notification; change the overspeed rule and read it
back, in the dialog and on the terminal-parameters screen (an identity parameter only after a confirmation).

Screenshots of the dialogs go to docs/screenshots/ with FLEET_SCREENSHOTS=1 (tests/e2e/test_console.py).
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from fleet.settings import SimulatorSettings
from simulator.commands import NORMAL, behaviour_for
from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import choose
from tests.e2e.test_console import (
    click_in_popup,
    open_map,
    open_popup,
    screenshot,
    set_clustering,
    text,
    tick,
)

ACCEPTED = "指令已下发，等待网关处理中"
# The terminal answers within a second; the slack is for a loaded CI machine (never a sleep).
ANSWER_TIMEOUT_MS = 45_000
SEND_TIMEOUT_MS = 30_000
OUTCOMES = {0: "success", 1: "failure", 2: "messageError", 3: "unsupported"}


def _answering(stack: ConsoleStack, token: str, ability: str | None = None) -> list[Vehicle]:
    """Online vehicles of the parent's scope whose simulated terminal answers commands normally."""
    shares = SimulatorSettings()
    found = []
    for vehicle in stack.vehicles:
        if behaviour_for(vehicle.phone, shares.unsupported_share, shares.silent_share) != NORMAL:
            continue
        car = stack.get(f"/api/common/carView/{vehicle.car_id}.json?isParent=true", token)
        state = stack.get(f"/api/device/{vehicle.device_id}/state.json?isParent=true", token)
        if (ability is None or car[ability]) and state and state[0]["state"] == 1:
            found.append(vehicle)
    assert found, f"no online, answering vehicle with {ability or 'any ability'}"
    return found


def _open_popup(page: Any, vehicle: Vehicle) -> Any:
    tick(page, [vehicle])
    return open_popup(page, vehicle)


def _send(page: Any, code: str) -> int:
    """Clicks the dialog's send button; returns the id of the command the server accepted."""
    # The API answers once Kafka has the downlink: up to twice CommandsSettings.kafka_send_timeout_s (the
    # producer's first send also fetches the topic's metadata), so the wait is longer than the default 15 s.
    with page.expect_response(lambda r: re.search(rf"/api/command/\d+/{code}\.json(\?|$)", r.url) is not None,
                              timeout=SEND_TIMEOUT_MS) as sent:
        page.get_by_test_id("command-send").click()
    body = json.loads(sent.value.text())
    assert body["code"] == 0, body
    page.get_by_test_id("command-accepted").filter(has_text=ACCEPTED).first.wait_for()
    return int(body["data"]["id"])


def _notice(page: Any, plate: str, command_id: int) -> Any:
    notice = page.locator(".ant-notification-notice", has_text=plate).locator(
        f"[data-testid='command-notice'][data-command-id='{command_id}']")
    notice.wait_for(timeout=ANSWER_TIMEOUT_MS)
    return notice


def test_a_photo_taken_from_the_popup_pops_up_and_shows_in_the_vehicle_popup(page: Any,
                                                                             console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    vehicle = _answering(console_stack, token, "hasPhoto")[0]
    open_map(page)
    set_clustering(page, False)
    popup = _open_popup(page, vehicle)
    dialog = page.get_by_test_id("command-dialog-photo")
    click_in_popup(popup, "photo", page.get_by_text(f"对【{vehicle.plate}】进行抓拍"))
    dialog.get_by_test_id("photo-channel").wait_for()
    screenshot(page, "command-photo-dialog.png")
    command_id = _send(page, "8801")
    assert dialog.count() == 0  # the dialog closed after sending

    media = page.locator("[data-testid='media-popup'][data-kind='photo']")
    media.wait_for(timeout=ANSWER_TIMEOUT_MS)
    page.locator(".ant-modal-title", has_text=vehicle.plate).wait_for()
    photo = media.get_by_test_id("media-photo")
    photo.wait_for()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=photo.element_handle())
    assert photo.get_attribute("src").startswith("blob:")  # fetched with the token
    assert media.get_by_test_id("media-countdown").get_attribute("data-seconds") in ("15", "0")
    screenshot(page, "media-upload-popup.png")
    state = console_stack.get(f"/api/command/{command_id}/state.json?isParent=true", token)
    assert state["state"] == "answered" and state["result"] == 0, state

    # The photo popup closes itself after 15 s; the vehicle popup then shows the latest photo.
    media.wait_for(state="detached", timeout=30_000)
    latest = page.get_by_test_id("vehicle-popup").get_by_test_id("popup-latest-photo")
    latest.wait_for()
    assert latest.get_attribute("data-file-id") == media_file_id(console_stack, vehicle)
    assert page.errors == []


def media_file_id(stack: ConsoleStack, vehicle: Vehicle) -> str:
    from warehouse.db import connect

    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT max(id) FROM device_upload_file WHERE device_id = %s AND media_type = 0",
                           (vehicle.device_id,)).fetchone()
    assert row is not None and row[0] is not None
    return str(row[0])


def test_a_text_message_is_sent_and_its_result_notified(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    vehicle = _answering(console_stack, token)[1]
    open_map(page)
    set_clustering(page, False)
    popup = _open_popup(page, vehicle)
    click_in_popup(popup, "text", page.get_by_text(f"下发信息到【{vehicle.plate}】"))
    page.get_by_test_id("command-send").click()
    page.get_by_text(text("zh-CN", "command", "text.required"), exact=True).wait_for()
    content = f"请到{secrets.randbelow(9) + 1}号门卸货"
    page.get_by_test_id("text-content").fill(content)
    page.get_by_test_id("text-tts").check()
    screenshot(page, "command-text-dialog.png")
    command_id = _send(page, "8300")

    notice = _notice(page, vehicle.plate, command_id)
    state = console_stack.get(f"/api/command/{command_id}/state.json?isParent=true", token)
    assert state["state"] == "answered", state
    assert notice.get_attribute("data-outcome") == OUTCOMES[state["result"]] == "success"
    assert notice.inner_text() == (f"{text('zh-CN', 'command', 'names.8300')}："
                                   f"{text('zh-CN', 'command', 'outcome.success')}")
    assert page.errors == []


def test_a_spec_range_warning_difference_past_the_terminals_word_is_refused_with_the_real_maximum(
        page: Any, console_stack: ConsoleStack) -> None:
    """Console-spec §5: the form takes 1-100000 km/h for the overspeed warning difference; 0x005B is a WORD in
    1/10 km/h, so the server refuses 100000 naming 6553.5 km/h, in the form's unit (nothing is sent)."""
    token = console_stack.token("admin")
    vehicle = _answering(console_stack, token)[3]
    open_map(page)
    set_clustering(page, False)
    popup = _open_popup(page, vehicle)
    click_in_popup(popup, "alarmSetting", page.get_by_text(f"对【{vehicle.plate}】进行报警配置"))
    page.get_by_test_id("alarm-tab-6").click()
    page.get_by_text(text("zh-CN", "command", "alarm.rangeHint").replace("{{min}}", "1").replace("{{max}}", "100000")
                     .replace("{{unit}}", text("zh-CN", "command", "units.kmh")), exact=True).wait_for()
    page.get_by_test_id("alarm-overspeedWarning").fill("100000")
    with page.expect_response(lambda r: re.search(r"/api/command/\d+/8103\.json(\?|$)", r.url) is not None,
                              timeout=SEND_TIMEOUT_MS) as sent:
        page.get_by_test_id("command-send").click()
    assert sent.value.status == 400
    page.get_by_text("超时报警预警差值范围 0.1~6553.5 km/h，终端参数为 WORD，最大 6553.5 km/h").first.wait_for()
    assert page.errors == []


def test_the_overspeed_rule_is_changed_and_read_back(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    vehicle = _answering(console_stack, token)[2]
    open_map(page)
    set_clustering(page, False)
    popup = _open_popup(page, vehicle)
    click_in_popup(popup, "alarmSetting", page.get_by_text(f"对【{vehicle.plate}】进行报警配置"))
    page.get_by_test_id("alarm-read").wait_for(timeout=ANSWER_TIMEOUT_MS)  # 8104 answered: current values
    max_speed = page.get_by_test_id("alarm-maxSpeed")
    current = int(max_speed.input_value())
    wanted = 60 + (current + 7) % 100  # differs from the current value, within 1..180
    max_speed.fill("")
    page.get_by_test_id("command-send").click()
    page.get_by_text("最高速度不能为空", exact=True).wait_for()
    max_speed.fill("181")
    page.get_by_test_id("command-send").click()
    page.get_by_text(text("zh-CN", "command", "alarm.range").replace("{{min}}", "1").replace("{{max}}", "180"),
                     exact=True).wait_for()
    max_speed.fill(str(wanted))
    screenshot(page, "command-alarm-dialog.png")
    command_id = _send(page, "8103")
    assert _notice(page, vehicle.plate, command_id).get_attribute("data-outcome") == "success"

    # Read back: the dialog queries the terminal again (8104) and shows the new value.
    click_in_popup(popup, "alarmSetting", page.get_by_text(f"对【{vehicle.plate}】进行报警配置"))
    page.get_by_test_id("alarm-read").wait_for(timeout=ANSWER_TIMEOUT_MS)
    assert page.get_by_test_id("alarm-maxSpeed").input_value() == str(wanted)
    page.keyboard.press("Escape")

    # And on the terminal-parameters screen, grouped and named.
    page.goto("/settings/terminalParams")
    screen = page.get_by_test_id("terminal-params")
    screen.wait_for()
    choose(page, screen.get_by_test_id("params-vehicle"), vehicle.plate)
    screen.get_by_test_id("params-read").click()
    current_value = screen.get_by_test_id("params-group-alarm").get_by_test_id("param-current-0055")
    current_value.wait_for(timeout=ANSWER_TIMEOUT_MS)
    assert current_value.inner_text() == f"{wanted} km/h"
    screen.get_by_text(text("zh-CN", "command", "paramNames.0055"), exact=True).wait_for()
    screenshot(page, "terminal-params.png")

    # Write a parameter from the screen (8103) and read it back (8104): the city id, harmless to the fleet.
    city = 100 + secrets.randbelow(800)
    screen.get_by_test_id("param-input-0001").fill("0")  # a heartbeat of 0 s: refused with the table's range
    screen.get_by_test_id("params-write").click()
    page.get_by_text(text("zh-CN", "command", "params.range").replace("{{min}}", "5").replace("{{max}}", "3600"),
                     exact=True).wait_for()
    screen.get_by_test_id("param-input-0001").fill("")
    screen.get_by_test_id("param-input-0082").fill("70000")
    screen.get_by_test_id("params-write").click()
    page.get_by_text(text("zh-CN", "command", "params.range").replace("{{min}}", "0").replace("{{max}}", "65535"),
                     exact=True).wait_for()
    screen.get_by_test_id("param-input-0082").fill(str(city))
    # The city id is an identity parameter: the operator confirms it by name; cancel sends nothing.
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if "/command/8103.json" in r.url else None)
    screen.get_by_test_id("params-write").click()
    confirm = page.get_by_test_id("params-confirm")
    confirm.wait_for()
    assert confirm.get_by_test_id("params-confirm-0082").inner_text().startswith("0x0082 ")
    page.locator(".ant-modal-confirm-title", has_text=text("zh-CN", "command", "confirm.title")).wait_for()
    screenshot(page, "terminal-params-confirm.png")
    page.get_by_test_id("params-confirm-cancel").click()
    confirm.wait_for(state="detached")
    assert sent == []
    screen.get_by_test_id("params-write").click()
    with page.expect_response(lambda r: "/command/8103.json" in r.url) as written:
        page.get_by_test_id("params-confirm-ok").click()
    assert json.loads(written.value.request.post_data or "{}") == {
        "paramList": [{"id": "0082", "value": city}], "confirm": True}
    command_id = int(json.loads(written.value.text())["data"]["id"])
    assert _notice(page, vehicle.plate, command_id).get_attribute("data-outcome") == "success"
    screen.get_by_test_id("params-read").click()
    page.wait_for_function("(want) => document.querySelector(\"[data-testid='param-current-0082']\")?.textContent === want",
                           arg=str(city), timeout=ANSWER_TIMEOUT_MS)
    assert page.errors == []
