"""Fence alarm notification rules in Chromium (console-spec §3 "Notification settings", §6; platform-spec §2
settings platformAlarmNotifyRule): the user's own rule of a fence alarm kind, set on the notification
settings screen, governs the pop-up of every fence's alarm of that kind (fleet/alarm_catalog.py
``rule_key``: ``fence:<id>:enter`` follows ``fence_enter``). The operator turns the pop-up window of
"entering area" off; a bound vehicle then enters and leaves a platform fence: the enter alarm is stored but
pops nothing up, the leave alarm (no rule: the default window) pops up. The enterprise's default rule of a
fence kind is chosen by its name on the platformAlarmNotifyRule screen. Each test has its own enterprise,
car and terminal (tests/e2e/safety_terminal.py), never the demo vehicles nor admin's rules."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from protocols.jt808 import Authentication, LocationReport
from tests.e2e.conftest import ConsoleStack
from tests.e2e.safety_terminal import Terminal, own_enterprise, wait_subscribed, watch_subscriptions
from tests.e2e.support import click_until, sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect

WAIT_S = 120  # a loaded machine's slack for the worker's fence reload and the push path (polled, never slept)
OUTSIDE = (116.3975, 39.9087)  # lng, lat: 2.4 km south of the fence's centre
CENTRE = (116.3975, 39.9300)
RADIUS_M = 500

# Every alarm notice the page shows, recorded as it is added (a notice closes by itself after a while, so
# "never shown" cannot be read off the screen at the end).
RECORD_NOTICES = """() => {
  window.__noticeKeys = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[data-testid=alarm-notice]')) {
      const key = el.getAttribute('data-key');
      if (!window.__noticeKeys.includes(key)) window.__noticeKeys.push(key);
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def _report(terminal: Terminal, lng: float, lat: float, flags: int = 0) -> None:
    report = LocationReport(flags, 3, lat, lng, 50, 30.0, 90, terminal.next_fix_at(), {"mileage_km": 100.0})
    assert terminal.reply_to(terminal.send(0x0200, report)).result == 0


def _platform_fence(stack: ConsoleStack, fleet: dict[str, Any]) -> int:
    """A circle platform fence alarming entering and leaving to the platform (attributes 3, 5), bound to the
    test's car."""
    token = stack.token(fleet["user"])
    fence = stack.post("/api/common/fence.json", token, {
        "name": "E2E 规则围栏", "fenceType": 2, "businessType": 1, "shape": "circle",
        "geometry": {"center": list(CENTRE), "radius": RADIUS_M}, "attributes": [3, 5]})
    assert stack.post(f"/api/fence/{fence['id']}/bind.json", token, {"carIds": [fleet["car_id"]]})["bound"] == 1
    return int(fence["id"])


def _seen_outside(stack: ConsoleStack, device_id: int, fence_id: int) -> bool:
    """The worker's fence step keeps a state of the device that has it outside the fence."""
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT jsonb_exists(state -> 'fences', %s) FROM fence_vehicle_state WHERE device_id = %s",
                           (str(fence_id), device_id)).fetchone()
    return row is not None and row[0] is False


def _stored(stack: ConsoleStack, device_id: int, key: str) -> bool:
    with connect(stack.db_url) as conn:
        return conn.execute("SELECT 1 FROM alarm WHERE device_id = %s AND key = %s",
                            (device_id, key)).fetchone() is not None


def _turn_enter_window_off(page: Any) -> None:
    """On the notification settings screen: the "entering area" kind, named in the three languages, its
    pop-up window switched off and saved as the user's own rule."""
    panel = page.get_by_test_id("notify-settings")
    panel.wait_for()
    for language in ("en-US", "zh-HK", "zh-CN"):
        switch_language(page, language)
        page.get_by_test_id("notify-search").fill(text(language, "alarmSettings", "enums.alarmKey.fence_enter"))
        row = page.get_by_test_id("notify-rules").locator("tr[data-row-key=fence_enter]")
        row.get_by_text(text(language, "alarmSettings", "enums.alarmKey.fence_enter"), exact=True).wait_for()
    window = page.get_by_test_id("notify-windowEnable-fence_enter")
    assert window.get_attribute("aria-checked") == "true"  # no rule yet: the default shows a window
    # saved once the switch shows off, as a user sees it flip before saving (clicked again if a click left it on)
    click_until(window.click, page.locator("[data-testid=notify-windowEnable-fence_enter][aria-checked=false]"))
    page.get_by_test_id("notify-save").click()
    page.get_by_text(text("zh-CN", "alarmList", "notify.saved")).wait_for()
    page.get_by_test_id("notify-source-fence_enter").filter(has_text=text("zh-CN", "alarmList", "notify.sources.user")).wait_for()


def _wait_push_path(page: Any, terminal: Terminal) -> None:
    """Until the API relays the enterprise's pushes to the page (it positions its consumer on a first
    subscription, and a push before that is lost): an emergency alarm (bit 0, no rule: a window), raised
    and cleared outside the fence, until its notice shows."""
    deadline = time.monotonic() + WAIT_S
    while True:
        for flags in (1, 0):
            _report(terminal, *OUTSIDE, flags=flags)
        try:
            page.locator("[data-testid=alarm-notice][data-key=a0]").first.wait_for(timeout=5_000)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, "the API never relayed a push to the page"


def _until(what: str, done: Any, step: Any) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, what
        step()
        time.sleep(0.5)  # the worker's next batch


def test_turning_off_the_enter_kinds_window_stops_the_pop_up_of_a_fence_crossing(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    fence_id = _platform_fence(console_stack, fleet)
    enter, leave = f"fence:{fence_id}:enter", f"fence:{fence_id}:leave"
    frames = watch_subscriptions(page)
    sign_in(page, fleet["user"], path="/settings/notify")
    wait_subscribed(page, frames)
    _turn_enter_window_off(page)
    page.evaluate(RECORD_NOTICES)

    terminal = Terminal(console_stack.gateway_port, fleet["phone"])
    assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
    try:
        _wait_push_path(page, terminal)
        device = fleet["device_id"]
        # The worker reloads bindings every few seconds; a vehicle it first sees inside has not crossed in.
        _until("the worker never saw the vehicle outside the bound fence",
               lambda: _seen_outside(console_stack, device, fence_id), lambda: _report(terminal, *OUTSIDE))
        _until(f"the worker stored no {enter}", lambda: _stored(console_stack, device, enter),
               lambda: _report(terminal, *CENTRE))
        _until(f"the worker stored no {leave}", lambda: _stored(console_stack, device, leave),
               lambda: _report(terminal, *OUTSIDE))
        # The leave pops up (no rule of its kind: the default window); the enter, pushed before it, did not.
        page.locator(f"[data-testid=alarm-notice][data-key='{leave}']").first.wait_for(timeout=WAIT_S * 1000)
    finally:
        terminal.close()
    seen = page.evaluate("() => window.__noticeKeys")
    assert leave in seen and enter not in seen, seen
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_enterprise_rule_of_a_terminal_fence_kind_is_chosen_by_its_name_and_governs_its_alarms(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    name = text("zh-CN", "alarmSettings", "enums.alarmKey.tfence_leave")
    sign_in(page, fleet["user"], path="/settings/platformAlarmNotifyRule")
    listing = page.get_by_test_id("list-page-platformAlarmNotifyRule")
    listing.wait_for()
    listing.get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    drawer.get_by_test_id("record-field-name").fill("终端出区域")
    drawer.get_by_test_id("record-field-alarmKey").click()
    page.keyboard.type(name)
    page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option",
                 has_text=name).first.click()
    drawer.get_by_test_id("record-field-voiceEnable").click()
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    row = listing.locator("tr[data-row-key]", has_text="终端出区域")
    row.get_by_text(name, exact=True).wait_for()
    for language in ("en-US", "zh-HK"):
        switch_language(page, language)
        row.get_by_text(text(language, "alarmSettings", "enums.alarmKey.tfence_leave"), exact=True).wait_for()

    # every terminal area's leave alarm of the enterprise's users follows it
    rules = console_stack.get("/api/alarm/notify/settings.json?alarmKey=tfence:41:leave,tfence:42:leave",
                              console_stack.token(fleet["user"]))["alarmRule"]
    for key in ("tfence:41:leave", "tfence:42:leave"):
        assert (rules[key]["ruleKey"], rules[key]["source"], rules[key]["voiceEnable"]) == (
            "tfence_leave", "enterprise", True), rules
    assert page.errors == []  # type: ignore[attr-defined]
