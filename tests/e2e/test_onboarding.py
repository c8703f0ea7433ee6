"""Onboarding through the console alone: the root administrator creates a subsidiary,
a role in it with only the live map (monitor: query, get), and a user of the subsidiary with that
role; signed in as that user, the menu holds the live map only, and other screens and calls are
refused."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from typing import Any

from fleet.settings import REPO_ROOT
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, text

PASSWORD = "Onb0ard_x1"
MENU: dict[str, str] = json.loads((REPO_ROOT / "dashboards/src/locales/zh-CN/menu.json").read_text(encoding="utf-8"))


def _token(console_stack: ConsoleStack, user: str) -> str:
    url = (f"{console_stack.base_url}/oauth2/token.json?grant_type=password&username={user}"
           f"&password={urllib.request.quote(PASSWORD)}")
    with urllib.request.urlopen(url, timeout=10) as reply:
        return str(json.load(reply)["data"]["access_token"])


def _fill(scope: Any, test_id: str, value: str) -> None:
    field = scope.get_by_test_id(test_id)
    (field if field.evaluate("e => e.tagName") == "INPUT" else field.locator("input")).fill(value)


def _create(page: Any, entity: str, values: dict[str, str]) -> None:
    """Opens the list page's create drawer, fills it, saves, waits for it to close. (Pages stay alive
    in their tabs, so everything is looked up inside this entity's list page or the open drawer.)"""
    page.get_by_test_id(f"list-page-{entity}").get_by_test_id("list-create").click()
    drawer = page.locator("[data-testid='record-drawer']:visible")
    for name, value in values.items():
        _fill(drawer, f"record-field-{name}", value)
    drawer.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")


def _row(page: Any, entity: str, text: str) -> Any:
    row = page.get_by_test_id(f"list-page-{entity}").locator("tr", has_text=text)
    row.wait_for()
    return row


def _select_tree_node(page: Any, screen: str, title: str) -> None:
    page.get_by_test_id(screen).get_by_test_id("enterprise-tree").get_by_text(title, exact=True).click()


def _api(console_stack: ConsoleStack, path: str, token: str) -> tuple[int, Any]:
    request = urllib.request.Request(f"{console_stack.base_url}{path}", data=b"{}", method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_a_new_subsidiary_user_with_a_live_map_role_sees_only_the_live_map(
    page: Any, console_stack: ConsoleStack
) -> None:
    tag = uuid.uuid4().hex[:6]
    company, role_name, user_name = f"新公司{tag}", f"监控员{tag}", f"op{tag}"

    # 1. the subsidiary, under the root enterprise
    sign_in(page, "admin", path="/user/enterprise")
    page.get_by_test_id("list-page-enterprise").wait_for()
    _create(page, "enterprise", {"name": company, "shortName": company})
    _row(page, "enterprise", company)
    screenshot(page, "user-enterprise-zh-CN.png")

    # 2. a role in it holding only the live map
    page.goto("/user/role")
    _select_tree_node(page, "role-screen", company)
    page.get_by_test_id("list-page-role").wait_for()
    _create(page, "role", {"name": role_name})
    role_row = _row(page, "role", role_name)
    role_id = role_row.get_attribute("data-row-key")
    role_row.get_by_test_id(f"row-detail-{role_id}").click()
    page.get_by_test_id("role-detail").wait_for()
    for action in ("query", "get"):
        page.get_by_test_id(f"grant-monitor-{action}").click()
    screenshot(page, "user-role-detail-zh-CN.png")
    # the save's own answer before leaving the page (a navigation would abort it; the role's "created" notice of a
    # moment ago may still be on screen)
    with page.expect_response(lambda r: r.request.method == "PATCH" and f"/api/common/role/{role_id}.json" in r.url) as saved:
        page.get_by_test_id("role-save").click()
    assert saved.value.ok
    page.locator(".ant-message-notice", has_text=text("zh-CN", "org", "done.permissions")).first.wait_for()

    # 3. a user of the subsidiary with that role
    page.goto("/user/user")
    _select_tree_node(page, "user-screen", company)
    page.get_by_test_id("list-page-user").wait_for()
    _create(page, "user", {"userName": user_name, "password": PASSWORD})
    user_row = _row(page, "user", user_name)
    user_id = user_row.get_attribute("data-row-key")
    user_row.get_by_test_id(f"row-roles-{user_id}").click()
    dialog = page.get_by_test_id("user-roles-dialog")
    dialog.get_by_test_id("user-roles-select").click()
    page.keyboard.type(role_name)  # as an administrator picks one of many roles: by typing its name
    page.locator(".ant-select-item-option", has_text=role_name).click()
    page.keyboard.press("Escape")
    dialog.get_by_role("button", name=re.compile("OK|确 ?定")).click()
    dialog.wait_for(state="hidden")

    # 4. signed in as that user: only the live map
    page.context.clear_cookies()
    page.evaluate("() => { sessionStorage.clear(); localStorage.clear(); }")
    sign_in(page, user_name, PASSWORD, path="/")
    page.wait_for_url(re.compile(r"/dashboard/map"))
    page.get_by_test_id("live-map").wait_for()
    menu = page.get_by_test_id("menu")
    labels = [text.strip() for text in menu.locator(".ant-menu-title-content").all_inner_texts() if text.strip()]
    # the welcome and home pages are every signed-in user's (console-spec §2 menu labels)
    assert labels == [MENU["menu.welcome"], MENU["menu.home"], MENU["menu.dashboard"], MENU["menu.dashboard.map"]], labels
    page.goto("/user/user")  # a screen this user does not have: an exception page, no list
    page.locator("[data-testid^='exception-']").wait_for()
    assert page.get_by_test_id("list-page-user").count() == 0
    token = _token(console_stack, user_name)
    status, body = _api(console_stack, "/api/common/query/user.json", token)
    assert status == 403 and body["code"] == 403, body
    # the vehicles the live map lists come with the map's right (api/rights.py), still scoped to its enterprise
    for path in ("/api/common/query/carView.json", "/api/common/count/carView.json"):
        status, body = _api(console_stack, path, token)
        assert status == 200 and body["code"] == 0, (path, body)
