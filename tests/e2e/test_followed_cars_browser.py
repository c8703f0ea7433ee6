"""Followed cars on the live map (platform-spec §7 carUserView), in Chromium against the live stack: the star on
a vehicle adds it to the user's followed cars, the 关注 tab lists exactly those, the choice survives a reload (it
is the server's), another user does not see it, and the star and tab read in the three languages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import new_console_context, offline
from tests.e2e.test_console import TREE_NODE, open_map, search_tree, text, tree_node


@pytest.fixture(autouse=True)
def no_follows(console_stack: ConsoleStack) -> Iterator[None]:
    from warehouse.db import connect

    def clear() -> None:
        with connect(console_stack.db_url) as conn:
            conn.execute("DELETE FROM car_user")
            conn.commit()

    clear()
    yield
    clear()


def _star(page: Any, vehicle: Vehicle) -> Any:
    return page.get_by_test_id(f"tree-follow-c_{vehicle.car_id}_{vehicle.device_id}")


def _tab_count(page: Any, tab: str) -> int:
    return int(page.get_by_test_id(f"tree-tab-{tab}").get_attribute("data-count"))


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_a_starred_vehicle_is_in_the_followed_tab_after_a_reload(
    page: Any, console_stack: ConsoleStack, language: str
) -> None:
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    open_map(page)
    vehicle = next(v for v in console_stack.vehicles if v.enterprise == "a")  # a subsidiary's: the parent follows it
    assert _tab_count(page, "followed") == 0
    assert text(language, "map", "tabs.followed") in page.get_by_test_id("tree-tab-followed").inner_text()

    search_tree(page, vehicle.plate)
    star = _star(page, vehicle)
    assert star.get_attribute("aria-label") == text(language, "map", "tree.follow")
    star.click()
    page.wait_for_selector(f"[data-testid='tree-follow-c_{vehicle.car_id}_{vehicle.device_id}'][data-followed='true']")
    assert star.get_attribute("aria-label") == text(language, "map", "tree.unfollow")
    # the click stars the vehicle; it does not select (tick) it
    assert page.get_by_test_id(vehicle.node).get_attribute("data-checked") == "false"
    search_tree(page, "")

    page.reload()
    page.get_by_test_id("vehicle-tree").locator(TREE_NODE).first.wait_for()
    page.wait_for_function("() => document.querySelector(\"[data-testid='tree-tab-followed']\")?.dataset.count === '1'")
    page.get_by_test_id("tree-tab-followed").click()
    shown = page.locator("[data-testid^='tree-follow-']")
    shown.first.wait_for()
    assert [s.get_attribute("data-testid") for s in shown.all()] == [
        f"tree-follow-c_{vehicle.car_id}_{vehicle.device_id}"]
    assert tree_node(page, f"c_{vehicle.car_id}_{vehicle.device_id}").count() == 1

    # unstarring empties the tab
    _star(page, vehicle).click()
    page.wait_for_function("() => document.querySelector(\"[data-testid='tree-tab-followed']\")?.dataset.count === '0'")


def test_another_user_does_not_see_the_follow(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = next(v for v in console_stack.vehicles if v.enterprise == "a")
    open_map(page, "admin")
    search_tree(page, vehicle.plate)
    _star(page, vehicle).click()
    page.wait_for_function("() => document.querySelector(\"[data-testid='tree-tab-followed']\")?.dataset.count === '1'")
    context = new_console_context(page.context.browser, base_url=console_stack.base_url,
                                  viewport={"width": 1440, "height": 900}, locale="zh-CN")
    offline(context)
    try:
        other = context.new_page()
        with other.expect_response(lambda r: "/api/common/query/carUserView.json" in r.url) as answered:
            open_map(other, "admin_a")
        assert answered.value.json()["data"]["list"] == []
        assert _tab_count(other, "followed") == 0
        search_tree(other, vehicle.plate)
        assert _star(other, vehicle).get_attribute("data-followed") == "false"
    finally:
        context.close()
