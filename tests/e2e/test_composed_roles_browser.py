"""Rights that compose, in Chromium against the live stack: a user whose role grants only the live
map (实时监控) sees the map working (the vehicle tree loaded, a vehicle's popup, no failed call, no
error notice), only the live map's menu (beside every user's welcome and home), no cockpit icon, and the exception page 403 on another
screen's URL (404 stays for unknown paths)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import EMPTY_TICKS, TREE_NODE, open_popup, search_tree, set_clustering, text, tick


@pytest.fixture(scope="module")
def live_map_role(console_stack: ConsoleStack) -> Iterator[tuple[str, int]]:
    """(user name, role id): a user of the root enterprise whose one role grants 实时监控 (monitor:
    query, get) and nothing else."""
    from warehouse.db import connect
    from warehouse.passwords import hash_password
    from warehouse.seed import DEMO_PASSWORD, PARENT

    name = f"livemap_{secrets.token_hex(3)}"
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT id FROM enterprise WHERE name = %s", (PARENT.name,)).fetchone()
        assert row is not None
        user_id = conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name, email)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (row[0], name, hash_password(DEMO_PASSWORD), "值班员", name, f"{name}@example.com")).fetchone()[0]  # type: ignore[index]
        role_id = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                               (row[0], f"仅实时监控 {name}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'monitor', %s)",
                     (role_id, ["query", "get"]))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        conn.commit()
    yield name, int(role_id)


@pytest.fixture(scope="module")
def live_map_user(live_map_role: tuple[str, int]) -> str:
    return live_map_role[0]


def test_a_live_map_only_user_sees_the_map_working_and_nothing_else(
    page: Any, console_stack: ConsoleStack, live_map_user: str
) -> None:
    refused: list[str] = []
    page.on("response", lambda r: refused.append(f"{r.status} {r.url.split('?')[0]}")
            if "/api/" in r.url and r.status >= 400 else None)
    page.add_init_script(EMPTY_TICKS)  # the test ticks the vehicle whose popup it opens
    sign_in(page, live_map_user, path="/dashboard/map")
    page.wait_for_url(re.compile(r"/dashboard/map"))
    page.get_by_test_id("live-map").wait_for()
    # the vehicle list loaded: the tree shows the group's vehicles, subsidiaries' included
    page.get_by_test_id("vehicle-tree").locator(TREE_NODE).first.wait_for()
    subsidiary = console_stack.of("a")[0]
    search_tree(page, subsidiary.plate)
    page.get_by_test_id(subsidiary.node).wait_for()
    search_tree(page, "")
    # the vehicle popup (last position, address, latest photo) of a subsidiary's vehicle
    set_clustering(page, False)
    tick(page, [subsidiary])
    popup = open_popup(page, subsidiary)
    assert popup.get_by_test_id("popup-plateNumber").inner_text() == subsidiary.plate
    assert popup.get_by_test_id("popup-btn-details").count() == 0  # the car screen is not the role's
    page.wait_for_timeout(2_000)  # the map's later reads (positions, photo, notification settings) have come back
    assert refused == [], refused
    assert page.get_by_text(text("zh-CN", "map", "tree.loadFailed")).count() == 0
    assert page.locator(".ant-notification-notice-error, .ant-message-error").count() == 0
    # only the live map's menu; no cockpit icon
    menu = page.locator(".ant-menu").first
    assert menu.get_by_text(text("zh-CN", "menu", "menu.dashboard.map"), exact=True).count() == 1
    for other in ("menu.list", "menu.report", "menu.user", "menu.settings", "menu.log", "menu.dashboard.alarm",
                  "menu.dashboard.ship"):
        assert menu.get_by_text(text("zh-CN", "menu", other), exact=True).count() == 0, other
    assert page.get_by_test_id("open-cockpit").count() == 0
    assert page.get_by_test_id("open-cockpit-nev1").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["/list/car", "/report/dailyMileage", "/cockpit/index", "/dashboard/alarm",
                                  "/dashboard/ship"])
def test_a_live_map_only_user_gets_the_403_page_on_another_screens_url(
    page: Any, live_map_user: str, path: str
) -> None:
    sign_in(page, live_map_user, path=path)
    page.get_by_test_id("exception-403").wait_for()
    assert page.get_by_test_id("exception-404").count() == 0


def test_an_unknown_path_still_says_404(page: Any, live_map_user: str) -> None:
    sign_in(page, live_map_user, path="/list/no-such-screen")
    page.get_by_test_id("exception-404").wait_for()


def test_the_role_editor_shows_what_each_right_opens(page: Any, live_map_role: tuple[str, int]) -> None:
    sign_in(page, "admin", path=f"/user/role/detail?id={live_map_role[1]}")
    page.get_by_test_id("permission-matrix").wait_for()
    opens = page.get_by_test_id("opens-monitor")
    assert text("zh-CN", "menu", "menu.dashboard.map") in opens.inner_text()
    implied = page.get_by_test_id("implies-monitor").inner_text()
    assert implied.startswith(text("zh-CN", "org", "permission.opens.alsoReads"))
    assert "车辆管理" in implied and "轨迹数据" in implied
    assert text("zh-CN", "menu", "menu.list.car") in page.get_by_test_id("opens-car").inner_text()
