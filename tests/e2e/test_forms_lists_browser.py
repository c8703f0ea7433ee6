"""The car and user forms choose the new record's enterprise (the caller's subtree), and the lists read
as names: enterprise names instead of ids, enterprise type labels instead of codes, and roles of the
same name told apart by their enterprise, in Chromium."""

from __future__ import annotations

import re
import uuid
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import text
from tests.e2e.test_onboarding import PASSWORD, _fill, _row, _select_tree_node
from warehouse.db import connect
from warehouse.seed import PARENT, SUBSIDIARY_A, SUBSIDIARY_B

OK = re.compile("OK|确 ?定")


def _enterprise_of(stack: ConsoleStack, table: str, column: str, value: str) -> str:
    with connect(stack.db_url) as conn:
        row = conn.execute(f"SELECT e.short_name FROM {table} t JOIN enterprise e ON e.id = t.enterprise_id"  # noqa: S608
                           f" WHERE t.{column} = %s", (value,)).fetchone()
    assert row is not None, value
    return str(row[0])


def _choose_enterprise(page: Any, drawer: Any, name: str) -> None:
    """Picks ``name`` in the drawer's enterprise tree select, as a user does: once the field is enabled (it is
    disabled while the enterprise tree loads), open it and click the name; a click on a dropdown still sliding
    in is no pick, so the user opens it again. The form shows the pick before it is saved."""
    field = drawer.get_by_test_id("record-field-enterpriseId")
    page.wait_for_function("() => { const f = document.querySelector('[data-testid=record-field-enterpriseId]');"
                           " return f !== null && !f.classList.contains('ant-select-disabled'); }")
    shown = "(name) => document.querySelector('[data-testid=record-field-enterpriseId]')?.innerText.trim() === name"
    dropdown = page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden)")
    for _attempt in range(3):
        if dropdown.count() == 0:
            field.click()
        try:
            dropdown.locator(".ant-select-tree-title", has_text=name).first.click(timeout=5_000)
            page.wait_for_function(shown, arg=name, timeout=5_000)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"the enterprise field does not show {name} after three picks: {_chosen(drawer)!r}")


def _open_create(page: Any, entity: str) -> Any:
    page.get_by_test_id(f"list-page-{entity}").get_by_test_id("list-create").click()
    drawer = page.locator("[data-testid='record-drawer']:visible")
    drawer.wait_for()
    return drawer


def _chosen(drawer: Any) -> str:
    return str(drawer.get_by_test_id("record-field-enterpriseId").locator(".ant-select-content, .ant-select-selection-item")
               .first.inner_text()).strip()


def test_the_car_form_creates_a_vehicle_in_the_subsidiary_it_names(page: Any, console_stack: ConsoleStack) -> None:
    plate = f"京E{uuid.uuid4().int % 100000:05d}"
    sign_in(page, PARENT.admin, path="/list/car")
    page.get_by_test_id("list-page-car").wait_for()
    drawer = _open_create(page, "car")
    # the caller's own by default, named once the enterprise tree has loaded (its id shows until then)
    page.wait_for_function("(name) => document.querySelector('[data-testid=record-field-enterpriseId]')"
                           "?.innerText.trim() === name", arg=PARENT.short_name)
    assert _chosen(drawer) == PARENT.short_name
    _choose_enterprise(page, drawer, SUBSIDIARY_A.short_name)
    _fill(drawer, "record-field-plateNumber", plate)
    drawer.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    assert _enterprise_of(console_stack, "car", "plate_number", plate) == SUBSIDIARY_A.short_name
    # the list names the enterprise
    screen = page.get_by_test_id("list-page-car")
    screen.get_by_test_id("list-filter-plateNumber").fill(plate)
    screen.get_by_test_id("list-search").click()
    _row(page, "car", plate).get_by_text(SUBSIDIARY_A.short_name, exact=True).wait_for()
    assert page.errors == []


def test_the_user_form_defaults_to_the_selected_enterprise_and_may_name_another(
    page: Any, console_stack: ConsoleStack
) -> None:
    user = f"u{uuid.uuid4().hex[:8]}"
    sign_in(page, PARENT.admin, path="/user/user")
    _select_tree_node(page, "user-screen", SUBSIDIARY_A.short_name)
    page.get_by_test_id("list-page-user").wait_for()
    drawer = _open_create(page, "user")
    page.wait_for_function("() => document.querySelector('[data-testid=record-field-enterpriseId]')?.innerText.trim()")
    assert _chosen(drawer) == SUBSIDIARY_A.short_name  # the tree's selection
    _choose_enterprise(page, drawer, SUBSIDIARY_B.short_name)
    _fill(drawer, "record-field-userName", user)
    _fill(drawer, "record-field-password", PASSWORD)
    drawer.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    assert _enterprise_of(console_stack, "app_user", "user_name", user) == SUBSIDIARY_B.short_name
    assert page.errors == []


def test_lists_show_enterprise_names_type_labels_and_roles_told_apart(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, PARENT.admin, path="/user/enterprise")
    enterprises = page.get_by_test_id("list-page-enterprise")
    row = _row(page, "enterprise", SUBSIDIARY_A.name)
    assert text("zh-CN", "org", "enterprise.enums.type.3") == "企业"
    row.get_by_text("企业", exact=True).wait_for()  # the seeded type 3, by its label
    assert "类型 3" not in enterprises.inner_text()

    page.goto("/user/role")
    page.get_by_test_id("list-page-role").wait_for()
    for name in (PARENT.short_name, SUBSIDIARY_A.short_name, SUBSIDIARY_B.short_name):
        page.get_by_test_id("list-page-role").locator("tr", has_text="管理员").get_by_text(name, exact=True).first.wait_for()

    page.goto("/user/user")
    row = _row(page, "user", SUBSIDIARY_A.admin)
    row.get_by_text(SUBSIDIARY_A.short_name, exact=True).wait_for()  # the enterprise column names it
    user_id = row.get_attribute("data-row-key")
    row.get_by_test_id(f"row-roles-{user_id}").click()
    dialog = page.get_by_test_id("user-roles-dialog")
    dialog.get_by_test_id("user-roles-select").click()
    options = page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option")
    options.first.wait_for()
    page.wait_for_function("() => [...document.querySelectorAll('.ant-select-item-option')].some(o => o.innerText.includes('('))")
    labels = [label.strip() for label in options.all_inner_texts()]
    admins = [label for label in labels if label.startswith("管理员")]
    assert f"管理员 ({SUBSIDIARY_A.short_name})" in admins and len(admins) == len(set(admins)), labels
    page.keyboard.press("Escape")
    dialog.get_by_role("button", name=re.compile("Cancel|取 ?消")).click()
    assert page.errors == []
