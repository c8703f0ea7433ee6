"""The shell's leftovers, in Chromium: an unknown path shows the 404 page without leaving a tab behind;
the layout settings gear sits in the header and covers nothing of the page; the fixed-header switch
reads in Chinese in zh-CN and zh-HK; the vehicle tree's root checkbox tells the true state after a
search."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import search_tree, switch_language, text, tree_node
from warehouse.db import connect
from warehouse.seed import PARENT


def test_an_unknown_path_shows_the_404_page_without_a_tab(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, PARENT.admin, path="/list/car")
    page.get_by_test_id("list-page-car").wait_for()
    tabs = page.get_by_test_id("tabs-bar").locator("[data-testid^='tab-/']")
    before = tabs.count()
    page.goto("/no/such/page")
    page.get_by_test_id("exception-404").wait_for()
    assert page.get_by_test_id("tab-/404").count() == 0
    assert tabs.count() == before
    page.get_by_test_id("tab-/list/car").click()  # the tabs the user had still work
    page.get_by_test_id("list-page-car").wait_for()
    assert page.get_by_test_id("tab-/404").count() == 0


def test_the_settings_gear_is_in_the_header_and_covers_nothing(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, PARENT.admin, path="/list/alarm")
    page.get_by_test_id("list-page-alarm").wait_for()
    header = page.get_by_test_id("global-header")
    gear = header.get_by_test_id("settings-toggle")
    gear.wait_for()
    box, head = gear.bounding_box(), header.bounding_box()
    assert box is not None and head is not None
    assert box["y"] >= head["y"] and box["y"] + box["height"] <= head["y"] + head["height"] + 1
    # nothing of the page under the screen's right edge is covered by a floating button any more
    covered = page.evaluate("""() => [200, 300, 400, 500].some((y) => {
        const el = document.elementFromPoint(window.innerWidth - 10, y);
        return el !== null && el.closest('[data-testid=settings-toggle]') !== null; })""")
    assert not covered
    gear.click()
    page.get_by_test_id("settings-drawer").wait_for()
    assert page.errors == []


def test_the_fixed_header_switch_reads_in_each_language(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, PARENT.admin, path="/list/car")
    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            switch_language(page, language)
        page.get_by_test_id("settings-toggle").click()
        drawer = page.get_by_test_id("settings-drawer")
        label = text(language, "layout", "settings.fixedHeader")
        drawer.get_by_text(label, exact=True).wait_for()
        if language != "en-US":
            assert "Header" not in label and "Header" not in drawer.inner_text()
        page.keyboard.press("Escape")
        drawer.wait_for(state="hidden")
        page.mouse.move(10, 400)  # away from the header before the next language's menu opens
        page.wait_for_timeout(300)


def test_the_trees_root_checkbox_tells_the_true_state_after_a_search(page: Any, console_stack: ConsoleStack) -> None:
    """A search shows one vehicle; ticking the root ticks that one, and the root then reads
    half-ticked (the other vehicles are not), not fully ticked."""
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s", (PARENT.admin,)).fetchone()
    assert row is not None
    root = tree_node(page, f"e_{row[0]}")
    sign_in(page, PARENT.admin, path="/dashboard/map")
    page.get_by_test_id("vehicle-tree").wait_for()
    vehicle = console_stack.vehicles[0]
    box = root.locator(".ant-tree-checkbox")
    root.wait_for()
    page.wait_for_timeout(1000)  # the map's first view may tick vehicles: start from none ticked
    for _ in range(3):
        if not re.search(r"ant-tree-checkbox-(checked|indeterminate)", box.get_attribute("class") or ""):
            break
        box.click()
        page.wait_for_timeout(300)
    search_tree(page, vehicle.plate)
    tree_node(page, vehicle.node.removeprefix("tree-node-")).wait_for()
    page.get_by_test_id(vehicle.node).and_(page.locator("[data-checked=false]")).wait_for()
    page.wait_for_timeout(500)  # the search applied
    box.click()
    page.get_by_test_id(vehicle.node).and_(page.locator("[data-checked=true]")).wait_for()
    assert "ant-tree-checkbox-indeterminate" in (box.get_attribute("class") or "")
    assert "ant-tree-checkbox-checked" not in (box.get_attribute("class") or "")
    search_tree(page, "")  # all shown again: still the one vehicle ticked, the root still half
    assert "ant-tree-checkbox-indeterminate" in (box.get_attribute("class") or "")
    assert page.errors == []


def test_the_theme_has_the_status_colours_and_a_random_theme_colour(page: Any, console_stack: ConsoleStack) -> None:
    """Platform-spec §9 "Tables, language and theme": error #f5222f (the drawer's reset button), random theme on
    (the drawer's button picks another of the 8 palette colours), its label in each language."""
    sign_in(page, PARENT.admin, path="/list/car")
    page.get_by_test_id("settings-toggle").click()
    drawer = page.get_by_test_id("settings-drawer")
    reset = drawer.locator("button.ant-btn-dangerous")
    reset.wait_for()
    assert reset.evaluate("(e) => getComputedStyle(e).color") == "rgb(245, 34, 47)"
    save = "[data-testid=settings-drawer] [data-testid=settings-save]"
    before = page.eval_on_selector(save, "(e) => getComputedStyle(e).backgroundColor")
    assert before == "rgb(24, 144, 255)"
    drawer.get_by_test_id("settings-random-theme").click()
    palettes = ["rgb(245, 34, 45)", "rgb(250, 84, 28)", "rgb(250, 173, 20)", "rgb(19, 194, 194)",
                "rgb(82, 196, 26)", "rgb(47, 84, 235)", "rgb(114, 46, 209)"]
    # the button's background eases between colours (antd's transition): wait for where it settles
    page.wait_for_function("([s, colours]) => colours.includes(getComputedStyle(document.querySelector(s)).backgroundColor)",
                           arg=[save, palettes])
    assert drawer.locator(".settings-color .anticon-check").count() == 1  # the picked palette is marked
    page.keyboard.press("Escape")
    drawer.wait_for(state="hidden")
    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            page.mouse.move(10, 400)
            switch_language(page, language)
        page.get_by_test_id("settings-toggle").click()
        drawer.get_by_test_id("settings-random-theme").filter(
            has_text=text(language, "layout", "settings.randomTheme")).wait_for()
        page.keyboard.press("Escape")
        drawer.wait_for(state="hidden")
    assert page.errors == []


def test_a_saved_theme_colour_is_any_colour_the_spec_accepts(page: Any, console_stack: ConsoleStack) -> None:
    """Platform-spec §5: rgb / rgba or # hex of at least 4 characters; a saved configuration (the drawer's
    copy) with such a colour outside the 8 palettes themes the console with it."""
    page.add_init_script("localStorage.setItem('fleetwatch.layoutSettings', JSON.stringify({primaryColor: 'rgb(0, 128, 0)'}))")
    sign_in(page, PARENT.admin, path="/list/car")
    page.get_by_test_id("settings-toggle").click()
    save = page.get_by_test_id("settings-drawer").get_by_test_id("settings-save")
    save.wait_for()
    assert save.evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(0, 128, 0)"
    assert page.errors == []
