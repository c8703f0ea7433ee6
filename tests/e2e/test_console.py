"""The operator console in Chromium against the live stack (tests/e2e/conftest.py): sign-in, the
vehicle tree, markers moving over STOMP, the popup, the tab bar, languages, tenancy, logout.

Screenshots of the map and the shell in the three languages go to docs/screenshots/ only with
FLEET_SCREENSHOTS=1 (so a test run does not dirty the tree).
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime
from functools import cache
from typing import Any
from urllib.parse import quote

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from fleet.settings import REPO_ROOT
from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import SCREENSHOT_DIR, click_until, sign_in

LOCALES = REPO_ROOT / "dashboards" / "src" / "locales"
LANGUAGES = ("zh-CN", "en-US", "zh-HK")
STOMP_DELAY_BUDGET_MS = 2000
TAKE_SCREENSHOTS = os.environ.get("FLEET_SCREENSHOTS") == "1"


@cache
def _namespace(language: str, namespace: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LOCALES / language / f"{namespace}.json").read_text(encoding="utf-8"))
    return data


def text(language: str, namespace: str, key: str) -> str:
    """The console's translation of ``key`` (flat keys with dots first, then nested)."""
    data = _namespace(language, namespace)
    if key in data:
        return str(data[key])
    node: Any = data
    for part in key.split("."):
        node = node[part]
    return str(node)


def screenshot(page: Any, name: str) -> None:
    if TAKE_SCREENSHOTS:
        page.mouse.move(700, 890)  # no hover tooltip in the picture
        page.evaluate("() => window.scrollTo(0, 0)")
        time.sleep(0.4)
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / name))


# --- helpers over the console's data-testids ----------------------------------------------------


# The map's first open in a browser tab ticks the fleet by itself; tests that tick
# vehicles themselves start from an empty selection instead (set once, so a reload keeps the ticks).
EMPTY_TICKS = ("if (sessionStorage.getItem('fleetwatch.map.ticked') === null)"
               " sessionStorage.setItem('fleetwatch.map.ticked', '[]');")


def open_map(page: Any, user: str = "admin") -> None:
    page.add_init_script(EMPTY_TICKS)
    sign_in(page, user, path="/dashboard/map")
    page.wait_for_url(re.compile(r"/dashboard/map"))
    page.get_by_test_id("live-map").wait_for()
    # The tests' pages have no internet (support.offline): the map has fallen back to the offline layer, and
    # the notice saying so has moved the map down, before a test clicks on it.
    page.get_by_test_id("base-layer-fallback").wait_for()
    page.get_by_test_id("vehicle-tree").locator(TREE_NODE).first.wait_for()


TREE_NODE = ".ant-tree-treenode:not([aria-hidden])"  # the virtual list keeps a hidden measuring node


def tree_node(page: Any, key: str) -> Any:
    return page.locator(TREE_NODE, has=page.get_by_test_id(f"tree-node-{key}"))


def search_tree(page: Any, plate: str) -> None:
    box = page.get_by_test_id("tree-search")
    field = box if box.evaluate("e => e.tagName") == "INPUT" else box.locator("input")
    field.fill(plate)


def tick(page: Any, vehicles: list[Vehicle]) -> None:
    """Ticks each vehicle's checkbox in the tree (found by searching its plate)."""
    for vehicle in vehicles:
        search_tree(page, vehicle.plate)
        node = tree_node(page, vehicle.node.removeprefix("tree-node-"))
        node.locator(".ant-tree-checkbox").click()
        page.wait_for_selector(f"[data-testid='{vehicle.node}'][data-checked='true']")
    search_tree(page, "")


def set_clustering(page: Any, on: bool) -> None:
    toggle = page.get_by_test_id("cluster-toggle")
    if (toggle.get_attribute("aria-checked") == "true") != on:
        toggle.click()


def marker(page: Any, vehicle: Vehicle) -> Any:
    return page.get_by_test_id(f"marker-{vehicle.device_id}")


def open_popup(page: Any, vehicle: Vehicle) -> Any:
    """Fits the map to the ticked vehicles and clicks ``vehicle``'s marker until its popup is open (returned).
    A live marker moves with every report and while the map's fit animates, so a click aimed at where it was can
    land beside it (once the pointer is on the marker it holds still, layers/VehicleMarkerLayer.ts, so the press
    and the release land on it): it is clicked again (support.click_until), after fitting the map again, as a user finds the
    vehicle again (fitted to one vehicle the map is at its closest zoom, where a driving vehicle crosses up to
    100 px a report and leaves the view within a few)."""
    def fit_and_click() -> None:
        page.get_by_test_id("map-fit").click()
        marker(page, vehicle).click()

    page.evaluate(WATCH_POINTER)
    try:
        click_until(fit_and_click, page.locator(f"[data-testid=vehicle-popup][data-device-id='{vehicle.device_id}']"))
    except PlaywrightTimeout:
        print("--- pointer and popup events (ms since watched) ---\n" + "\n".join(page.evaluate("window.__fwEvents")))
        raise
    return page.get_by_test_id("vehicle-popup")


# Records, in the page, where each pointer event landed (the nearest element with a test id) and when a map popup
# came and went: what a failed click on a live marker needs to be told from the outside.
WATCH_POINTER = """() => {
  if (window.__fwEvents) return;
  const events = window.__fwEvents = [];
  const start = performance.now();
  const log = (text) => events.push(`${Math.round(performance.now() - start)} ${text}`);
  const named = (node) => {
    const el = node instanceof Element ? node : node.parentElement;
    const tagged = el && el.closest('[data-testid]');
    return `${el ? el.tagName.toLowerCase() + '.' + String(el.className.baseVal ?? el.className).split(' ')[0] : '?'}`
      + ` in ${tagged ? tagged.dataset.testid : '-'}`;
  };
  for (const type of ['pointerdown', 'pointerup', 'click']) {
    document.addEventListener(type, (e) => log(`${type} ${Math.round(e.clientX)},${Math.round(e.clientY)} ${named(e.target)}`), true);
  }
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) if (n instanceof Element && n.classList.contains('leaflet-popup')) log('popup added');
      for (const n of r.removedNodes) if (n instanceof Element && n.classList.contains('leaflet-popup')) log('popup removed');
      for (const n of r.addedNodes) if (n instanceof Element && n.matches('[data-testid=vehicle-popup]')) log('popup content added');
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def click_in_popup(popup: Any, action: str, shown: Any) -> None:
    """Clicks the open popup's ``action`` button until ``shown`` is visible, the pointer brought onto the popup
    first, as a user's hand comes to it: a live vehicle's popup moves with every report, and while the pointer is
    on it the popup holds still (dashboards/src/features/map/popup/VehiclePopupLayer.tsx), so the click lands on
    the button and not beside it on the map (which closes the popup)."""
    button = popup.get_by_test_id(f"popup-btn-{action}")

    def hover_and_click() -> None:
        popup.hover()
        button.click()

    click_until(hover_and_click, shown)


def switch_language(page: Any, language: str) -> None:
    """Pick ``language`` from the header's menu as a user does: hover, then click. The menu opens on the
    pointer entering the switch, so a hover that came while a drawer was still closing over it is made
    again from outside the switch."""
    item = page.get_by_test_id(f"lang-{language}")
    for attempt in range(4):
        page.mouse.move(0, 0)
        page.get_by_test_id("lang-switch").hover()
        try:
            item.click(timeout=5_000 if attempt < 3 else 15_000)
            break
        except PlaywrightTimeout:
            if attempt == 3:
                raise
    page.wait_for_function("(lng) => document.documentElement.lang === lng", arg=language)


OPEN_DROPDOWN = ".ant-dropdown:not(.ant-dropdown-hidden)"


def context_menu(page: Any, tab: str, command: str) -> None:
    """Right-click on the tab, pick the command from its (only open) context menu, wait for it to close."""
    page.get_by_test_id(f"tab-{tab}").click(button="right")
    item = page.locator(OPEN_DROPDOWN).get_by_test_id(f"tab-menu-{command}")
    item.wait_for()
    item.dispatch_event("click")  # the menu may still be sliding in; the click is what matters
    if page.locator(OPEN_DROPDOWN).count():
        page.keyboard.press("Escape")
    page.wait_for_function("(sel) => !document.querySelector(sel)", arg=OPEN_DROPDOWN)


def open_tabs(page: Any) -> list[str]:
    return page.get_by_test_id("tabs-bar").locator("[data-testid^='tab-/']").evaluate_all(
        "els => els.map(e => e.dataset.testid.slice(4))")


def expect_message(page: Any, message: str) -> None:
    page.locator(".ant-message-notice", has_text=message).wait_for()


# --- sign-in ------------------------------------------------------------------------------------


def test_visitor_is_sent_to_login_with_the_full_path_and_comes_back_after_sign_in(page: Any) -> None:
    page.goto("/dashboard/index?from=e2e")
    page.wait_for_url(re.compile(r"/user/login\?redirect="))
    assert quote("/dashboard/index?from=e2e", safe="") in page.url
    page.get_by_test_id("login-username").fill("admin_a")
    from warehouse.seed import DEMO_PASSWORD

    page.get_by_test_id("login-password").fill(DEMO_PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(re.compile(r"/dashboard/index\?from=e2e$"))
    page.get_by_test_id("menu").wait_for()
    page.get_by_test_id("tabs-bar").wait_for()
    assert page.errors == []


def test_wrong_password_stays_on_login_with_the_server_message(page: Any) -> None:
    sign_in_attempt = page.goto("/user/login")
    assert sign_in_attempt is not None and sign_in_attempt.status == 200
    page.get_by_test_id("login-username").fill("admin_b")
    page.get_by_test_id("login-password").fill("not-the-password-1")
    page.get_by_test_id("login-submit").click()
    # The server's message in the console's language (zh-CN here; en-US in test_live_map_trust.py).
    notice = page.locator(".ant-notification-notice, .ant-message-notice", has_text="用户名或密码错误")
    notice.wait_for()
    assert "wrong user name or password" not in notice.inner_text()
    # console-spec §8: a failed token call says so, with the server's message
    assert text("zh-CN", "auth", "tokenFailed.notify").replace("{{message}}", "用户名或密码错误") in notice.inner_text()
    assert "/user/login" in page.url


# --- tree, markers, popup ----------------------------------------------------------------------


def test_tree_lists_every_seeded_vehicle_of_the_enterprise_tree(page: Any, console_stack: ConsoleStack) -> None:
    # Other tests of the session add vehicles to the tree: the root counts what the server counts.
    total = console_stack.post("/api/common/count/carView.json?isParent=true", console_stack.token("admin"), {})
    assert total >= len(console_stack.vehicles)
    open_map(page)
    root = page.get_by_test_id("vehicle-tree").locator("[data-testid^='tree-count-']").first
    page.wait_for_function("([el, total]) => new RegExp('/\\\\s*' + total + '\\\\)').test(el.textContent)",
                           arg=[root.element_handle(), total])
    for vehicle in console_stack.vehicles:
        search_tree(page, vehicle.plate)
        page.get_by_test_id(vehicle.node).wait_for()
    search_tree(page, "")


def _moving(console_stack: ConsoleStack, count: int) -> list[Vehicle]:
    """Vehicles driving right now (their last report was faster than 10 km/h)."""
    from warehouse.db import connect

    with connect(console_stack.db_url) as conn:
        rows = conn.execute("SELECT device_id FROM device_last WHERE speed_kmh > 10 AND received_at > now() - "
                            "interval '5 seconds' ORDER BY speed_kmh DESC").fetchall()
    by_device = {v.device_id: v for v in console_stack.vehicles}
    return [by_device[row[0]] for row in rows if row[0] in by_device][:count]


OBSERVE_MOVES = """
() => {
  window.__moves = [];
  new MutationObserver((mutations) => {
    const now = Date.now();
    // A marker put on screen gets the position it missed while off screen: a catch-up, not a move.
    const appeared = new Set();
    for (const m of mutations) {
      for (const node of m.addedNodes || []) {
        if (node.nodeType !== 1) continue;
        if (node.dataset && node.dataset.deviceId) appeared.add(node);
        node.querySelectorAll('[data-device-id]').forEach((el) => appeared.add(el));
      }
    }
    const seen = new Set();
    for (const m of mutations) {
      const el = m.target;
      if (m.type !== 'attributes' || !el.dataset || !el.dataset.deviceId || seen.has(el) || appeared.has(el)) continue;
      if (m.oldValue === el.getAttribute(m.attributeName)) continue;  // the same value written again
      seen.add(el);
      window.__moves.push([Number(el.dataset.deviceId), Number(el.dataset.lng), Number(el.dataset.lat), now]);
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeOldValue: true,
                               attributeFilter: ['data-lng', 'data-lat'] });
}
"""


def test_ticked_vehicles_appear_and_their_markers_follow_each_report_within_2_s(
    page: Any, console_stack: ConsoleStack
) -> None:
    from warehouse.db import connect

    open_map(page)
    set_clustering(page, False)
    # a stack just started has its simulated vehicles pulling away from their depots: wait for two to drive
    deadline = time.monotonic() + 30
    while len(chosen := _moving(console_stack, 4)) < 2 and time.monotonic() < deadline:
        time.sleep(1)
    assert len(chosen) >= 2, "the simulator should have vehicles driving"
    tick(page, chosen)
    page.get_by_test_id("map-fit").click()
    for vehicle in chosen:
        marker(page, vehicle).wait_for()
    unticked = [v for v in console_stack.vehicles if v not in chosen]
    assert all(marker(page, v).count() == 0 for v in unticked[:5])
    page.wait_for_function("() => window.__fleetwatchLive && window.__fleetwatchLive.status() === 'connected'")

    page.evaluate(OBSERVE_MOVES)
    started = datetime.now().astimezone()
    time.sleep(12)
    ended = datetime.now().astimezone()
    moves = page.evaluate("() => window.__moves")
    with connect(console_stack.db_url) as conn:
        reports = conn.execute(
            "SELECT device_id, lng, lat, received_at FROM gps WHERE device_id = ANY(%s) AND received_at >= %s"
            " AND received_at <= %s ORDER BY device_id, received_at",
            ([v.device_id for v in chosen], started, ended)).fetchall()
    sent = {(int(d), round(lng, 6), round(lat, 6)): at.timestamp() * 1000 for d, lng, lat, at in reports}
    first_moves = {}
    for device_id, lng, lat, at_ms in moves:  # a rewrite of the same position is no move
        first_moves.setdefault((device_id, round(lng, 6), round(lat, 6)), at_ms)
    moves = [(*key, at_ms) for key, at_ms in first_moves.items()]
    delays = []
    for device_id, lng, lat, at_ms in moves:
        sent_ms = sent.get((device_id, lng, lat))
        if sent_ms is not None:
            delays.append(at_ms - sent_ms)
    assert len(delays) >= 5, f"too few marker moves matched to reports: {len(moves)} moves, {len(reports)} reports"
    assert max(delays) <= STOMP_DELAY_BUDGET_MS, f"report-to-marker delays (ms): {sorted(delays)}"
    # Every report (but those of the last 2.5 s) is on the map within 2 s, or a newer one is.
    shown: dict[int, list[tuple[float, float]]] = {}
    for device_id, lng, lat, at_ms in moves:
        key = (device_id, round(lng, 6), round(lat, 6))
        if key in sent:
            shown.setdefault(device_id, []).append((sent[key], at_ms))
    cutoff = ended.timestamp() * 1000 - STOMP_DELAY_BUDGET_MS - 500
    previous: dict[int, tuple[float, float]] = {}
    late = []
    for device_id, lng, lat, received in reports:
        report_ms = received.timestamp() * 1000
        moved = previous.get(device_id) not in (None, (lng, lat))
        previous[device_id] = (lng, lat)
        if not moved or report_ms > cutoff:
            continue  # a standing vehicle moves no marker
        if not any(s >= report_ms and at <= report_ms + STOMP_DELAY_BUDGET_MS for s, at in shown.get(device_id, [])):
            late.append((device_id, report_ms))
    assert not late, f"reports not on the map within 2 s: {late}; marker moves: {shown}"
    assert page.errors == []


def test_popup_fields_match_the_api(page: Any, console_stack: ConsoleStack) -> None:
    open_map(page)
    set_clustering(page, False)
    token = console_stack.token("admin")
    video = next(v for v in console_stack.vehicles if console_stack.get(
        f"/api/common/carView/{v.car_id}.json?isParent=true", token)["hasVideo"])
    plain = next(v for v in console_stack.vehicles if not console_stack.get(
        f"/api/common/carView/{v.car_id}.json?isParent=true", token)["hasVideo"])
    tick(page, [video, plain])
    for vehicle in (video, plain):
        car = console_stack.get(f"/api/common/carView/{vehicle.car_id}.json?isParent=true", token)
        state = console_stack.get(f"/api/device/{vehicle.device_id}/state.json?isParent=true", token)
        popup = open_popup(page, vehicle)
        assert popup.get_by_test_id("popup-plateNumber").inner_text() == car["plateNumber"]
        assert popup.get_by_test_id("popup-vin").inner_text() == car["vin"]
        assert popup.get_by_test_id("popup-cardNumber").inner_text() in (car["masterDevicePhone"], car["masterDeviceSn"])
        assert popup.get_by_test_id("popup-driver").inner_text() == car["driverName"]
        online = state[0]["state"] if state else 0
        page.wait_for_function(
            "(want) => document.querySelector('[data-testid=popup-online]').dataset.online === want", arg=str(online))
        for action, ability in (("video", "hasVideo"), ("photo", "hasPhoto"), ("intercom", "hasMicrophone")):
            assert (popup.get_by_test_id(f"popup-btn-{action}").count() == 1) == bool(car[ability]), action
        for action in ("listen", "tts", "alarmSetting", "details"):
            assert popup.get_by_test_id(f"popup-btn-{action}").count() == 1
        page.keyboard.press("Escape")


# --- tenancy -------------------------------------------------------------------------------------


def test_a_subsidiary_user_never_sees_another_subsidiarys_vehicles(page: Any, console_stack: ConsoleStack) -> None:
    open_map(page, "admin_a")
    own, others = console_stack.of("a"), console_stack.of("b") + console_stack.of("parent")
    assert own and others
    for vehicle in own[:3]:
        search_tree(page, vehicle.plate)
        page.get_by_test_id(vehicle.node).wait_for()
    for vehicle in others:
        search_tree(page, vehicle.plate)
        page.get_by_test_id("vehicle-tree").locator(f".ant-empty, {TREE_NODE}").first.wait_for()
        assert page.get_by_test_id(vehicle.node).count() == 0, vehicle.plate
    search_tree(page, "")
    all_nodes = page.get_by_test_id("vehicle-tree").locator("[data-testid^='tree-node-c_']")
    shown = set(all_nodes.evaluate_all("els => els.map(e => e.dataset.testid)"))
    assert not shown & {v.node for v in others}
    time.sleep(2)  # pushes of the whole fleet are flowing: none of another enterprise may arrive
    assert all(marker(page, v).count() == 0 for v in others)


# --- shell: tabs, languages, logout -----------------------------------------------------------------


def test_tab_context_menu_closes_others_and_never_the_last_tab(page: Any) -> None:
    sign_in(page, "admin", path="/dashboard/map")
    page.get_by_test_id("tab-/dashboard/map").wait_for()
    page.goto("/dashboard/index")
    page.get_by_test_id("tab-/dashboard/index").wait_for()
    page.get_by_test_id("user-menu").hover()
    page.get_by_test_id("user-menu-center").click()
    page.get_by_test_id("tab-/account/center").wait_for()
    assert open_tabs(page) == ["/dashboard/map", "/dashboard/index", "/account/center"]

    context_menu(page, "/account/center", "closeOthers")
    page.get_by_test_id("tab-/dashboard/index").wait_for(state="detached")
    assert open_tabs(page) == ["/dashboard/map", "/account/center"]  # the map tab is not closable

    context_menu(page, "/account/center", "closeRight")
    expect_message(page, text("zh-CN", "layout", "tabs.noRight"))
    context_menu(page, "/account/center", "closeCurrent")
    page.get_by_test_id("tab-/account/center").wait_for(state="detached")
    page.wait_for_url(re.compile(r"/dashboard/map$"))
    assert open_tabs(page) == ["/dashboard/map"]

    context_menu(page, "/dashboard/map", "closeCurrent")
    expect_message(page, text("zh-CN", "layout", "tabs.lastPage"))
    context_menu(page, "/dashboard/map", "closeLeft")
    expect_message(page, text("zh-CN", "layout", "tabs.noLeft"))
    assert open_tabs(page) == ["/dashboard/map"]


def test_language_switch_changes_the_menu_text(page: Any) -> None:
    sign_in(page, "admin", path="/dashboard/index")
    page.wait_for_url(re.compile(r"/dashboard/index"))
    menu = page.get_by_test_id("menu")
    for language in LANGUAGES:
        if language != "zh-CN":
            switch_language(page, language)
        for key in ("menu.dashboard", "menu.dashboard.index", "menu.dashboard.map"):
            menu.get_by_text(text(language, "menu", key), exact=True).first.wait_for()
        page.get_by_test_id("tab-/dashboard/index").get_by_text(
            text(language, "menu", "menu.dashboard.index")).wait_for()
        time.sleep(0.5)
        screenshot(page, f"shell-{language}.png")
    assert text("zh-CN", "menu", "menu.dashboard") != text("en-US", "menu", "menu.dashboard")


def test_map_in_every_language(page: Any, console_stack: ConsoleStack) -> None:
    open_map(page)
    tick(page, console_stack.vehicles[:12])
    page.get_by_test_id("map-fit").click()
    for language in LANGUAGES:
        if language != "zh-CN":
            switch_language(page, language)
        page.get_by_test_id("menu").get_by_text(text(language, "menu", "menu.dashboard.map"), exact=True).first.wait_for()
        time.sleep(1.0)
        screenshot(page, f"map-{language}.png")
    assert page.errors == []


def test_logout_asks_then_returns_to_login_and_forgets_the_session(page: Any) -> None:
    sign_in(page, "admin_b", path="/dashboard/index")
    page.get_by_test_id("user-menu").hover()
    page.get_by_test_id("logout").click()
    dialog = page.locator(".ant-modal-confirm")
    dialog.get_by_text(text("zh-CN", "layout", "logout.content")).wait_for()
    page.get_by_test_id("logout-confirm").click()
    page.wait_for_url(re.compile(r"/user/login"))
    page.get_by_test_id("login-submit").wait_for()
    assert "access_token" not in page.evaluate("() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage)")
    # The session is gone: a protected page sends the visitor back to login (after one's own logout
    # without the redirect query, console-spec §3 "logout flag").
    page.goto("/dashboard/index")
    page.wait_for_url(re.compile(r"/user/login"))
    page.get_by_test_id("login-submit").wait_for()
    assert page.get_by_test_id("menu").count() == 0
