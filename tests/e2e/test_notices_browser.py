"""The bell's notices in the console (Chromium; console-spec §2, §7, §9): the bell counts each kind from real
rows and its message tab lists them, "view all" opens /setting/notify/List (in zh-CN, zh-HK and en-US), and an
announcement an administrator publishes reaches the users of its enterprise subtree, not another group's, and
stops counting once read."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest

from fleet.zh_hk import to_hk
from protocols.china_time import CHINA_TZ
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import new_console_context, sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD

READER = {"car": ["query", "get"], "driver": ["query", "get"], "alarm": ["query", "get"]}
PUBLISHER = {**READER, "notify": ["add", "delete", "update", "query", "get"], "enterprise": ["query", "get"]}


@dataclass(frozen=True)
class Org:
    root_name: str
    publisher: str  # of the root enterprise
    child_user: str  # of its subsidiary
    other_user: str  # of another group
    plate: str  # the subsidiary's car, insurance ending in 10 days


def _enterprise(conn: Any, name: str, parent: int | None) -> int:
    row = conn.execute("INSERT INTO enterprise (parent_id, name, short_name) VALUES (%s, %s, %s) RETURNING id",
                       (parent, name, name)).fetchone()
    conn.execute("UPDATE enterprise SET path = COALESCE((SELECT path FROM enterprise WHERE id = %s), '/')"
                 " || id || '/' WHERE id = %s", (parent, row[0]))
    return int(row[0])


def _user(conn: Any, enterprise_id: int, name: str, permissions: dict[str, list[str]]) -> str:
    role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                        (enterprise_id, f"角色{name}")).fetchone()[0]
    for code, actions in permissions.items():
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                     (role, code, actions))
    user = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                        " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                        (enterprise_id, name, hash_password(DEMO_PASSWORD), name, name)).fetchone()[0]
    conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user, role))
    return name


@pytest.fixture(scope="module")
def org(console_stack: ConsoleStack) -> Org:
    tag = secrets.token_hex(3)
    today = datetime.now(CHINA_TZ).date()
    plate = f"京N{int(tag, 16) % 100000:05d}"
    with connect(console_stack.db_url) as conn:
        root = _enterprise(conn, f"通知集团{tag}", None)
        child = _enterprise(conn, f"通知子公司{tag}", root)
        other = _enterprise(conn, f"另一集团{tag}", None)
        conn.execute("INSERT INTO car (enterprise_id, plate_number, insurance_expire) VALUES (%s, %s, %s)",
                     (child, plate, (today + timedelta(days=10)).isoformat()))
        conn.execute("INSERT INTO driver (enterprise_id, name, license_expire) VALUES (%s, %s, %s)",
                     (child, f"司机{tag}", (today + timedelta(days=5)).isoformat()))
        result = Org(f"通知集团{tag}", _user(conn, root, f"e2e_pub_{tag}", PUBLISHER),
                     _user(conn, child, f"e2e_sub_{tag}", READER), _user(conn, other, f"e2e_oth_{tag}", READER), plate)
        conn.commit()
    return result


@pytest.fixture
def other_page(browser: Any, console_stack: ConsoleStack) -> Iterator[Any]:
    """Another user's browser: a new page of its own context (its own storage) each call."""
    contexts: list[Any] = []

    def open_page() -> Any:
        context = new_console_context(browser, base_url=console_stack.base_url, viewport={"width": 1440, "height": 900},
                                      locale="zh-CN", timezone_id="Asia/Shanghai")
        context.set_default_timeout(15_000)
        contexts.append(context)
        fresh = context.new_page()
        fresh.errors = []
        fresh.on("pageerror", lambda exc: fresh.errors.append(str(exc)))
        return fresh

    yield open_page
    for context in contexts:
        context.close()


def _bell_count(page: Any, biz_type: int, count: int) -> None:
    page.get_by_test_id(f"notice-{biz_type}").locator(f".ant-scroll-number[title='{count}']").wait_for()


def _open_bell(page: Any) -> None:
    page.get_by_test_id("notice-bell").click()
    page.get_by_test_id("notice-list").wait_for()


def test_the_bell_counts_each_kind_and_its_message_tab_leads_to_the_list(page: Any, org: Org) -> None:
    sign_in(page, org.child_user)
    _open_bell(page)
    _bell_count(page, 2, 1)  # the subsidiary's car: insurance ends in 10 days
    _bell_count(page, 4, 1)  # its driver's licence in 5
    _bell_count(page, 3, 0)
    page.get_by_test_id("notice-tab-messages").click()
    messages = page.get_by_test_id("notice-messages")
    messages.get_by_text("车辆保险到期").wait_for()
    messages.get_by_text("驾驶证到期").wait_for()
    page.get_by_test_id("notice-more").click()
    page.wait_for_url("**/setting/notify/List")
    listing = page.locator("[data-testid=notify-list]:visible")
    row = listing.locator("tr.ant-table-row", has_text="车辆保险到期")
    row.filter(has_text=org.plate).filter(has_text=text("zh-CN", "alarm", "notice.daysLeft").replace("{{days}}", "10")).wait_for()
    listing.locator("tr.ant-table-row", has_text="驾驶证到期").wait_for()
    # one kind at a time
    listing.get_by_test_id("notice-kinds").get_by_text(text("zh-CN", "alarm", "notice.bizType.4")).click()
    listing.locator("tr.ant-table-row", has_text="车辆保险到期").wait_for(state="detached")
    listing.locator("tr.ant-table-row", has_text="驾驶证到期").wait_for()
    assert page.errors == []


def test_the_notice_list_reads_in_three_languages(page: Any, org: Org) -> None:
    sign_in(page, org.child_user, path="/setting/notify/List")
    for language, title in (("zh-CN", "车辆保险到期"), ("zh-HK", to_hk("车辆保险到期")),
                            ("en-US", "Vehicle insurance expiring")):
        if language != "zh-CN":
            switch_language(page, language)
            page.goto("/setting/notify/List")
        listing = page.locator("[data-testid=notify-list]:visible")
        listing.get_by_text(text(language, "alarm", "notice.title"), exact=True).first.wait_for()
        listing.locator("th", has_text=text(language, "alarm", "notice.columns.title")).wait_for()
        days = text(language, "alarm", "notice.daysLeft").replace("{{days}}", "10")
        listing.locator("tr.ant-table-row", has_text=title).filter(has_text=days).wait_for()
        if language == "zh-CN":
            screenshot(page, "settings-notify-list-zh-CN.png")
    assert page.errors == []


def _fill(drawer: Any, test_id: str, value: str) -> None:
    field = drawer.get_by_test_id(test_id)
    tag = field.evaluate("e => e.tagName")
    (field if tag in ("INPUT", "TEXTAREA") else field.locator("input, textarea").first).fill(value)


def test_an_announcement_reaches_the_subtree_only_and_is_read_once_opened(
        page: Any, other_page: Any, org: Org) -> None:
    title = f"安全月通知{secrets.token_hex(2)}"
    sign_in(page, org.publisher, path="/settings/announcement")
    page.get_by_test_id("list-page-announcement").get_by_test_id("list-create").click()
    drawer = page.locator("[data-testid='record-drawer']:visible")
    drawer.wait_for()
    # the audience: the publisher's own enterprise and its whole subtree, by default
    drawer.get_by_test_id("record-field-enterpriseId").get_by_text(org.root_name).wait_for()
    _fill(drawer, "record-field-title", title)
    _fill(drawer, "record-field-content", "本月开展安全驾驶检查")
    drawer.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    page.get_by_test_id("list-page-announcement").locator("tr.ant-table-row", has_text=title).wait_for()
    screenshot(page, "settings-announcement-zh-CN.png")

    child = other_page()
    sign_in(child, org.child_user)
    _open_bell(child)
    _bell_count(child, 5, 1)
    child.get_by_test_id("notice-tab-messages").click()
    child.get_by_test_id("notice-messages").get_by_text(title).click()
    child.get_by_test_id("announcement-text").get_by_text("本月开展安全驾驶检查").wait_for()
    child.locator(".ant-modal-confirm-btns button").click()
    _open_bell(child)
    child.get_by_test_id("notice-tab-overview").click()
    _bell_count(child, 5, 0)  # read: no longer counted

    stranger = other_page()  # another group's user does not see it
    sign_in(stranger, org.other_user, path="/setting/notify/List")
    listing = stranger.locator("[data-testid=notify-list]:visible")
    listing.locator("tr.ant-table-row", has_text="驾驶证到期").wait_for(state="detached")  # (none of the subsidiary's)
    stranger.wait_for_function("() => !document.querySelector('[data-testid=notify-list] .ant-spin-spinning')")
    assert listing.get_by_text(title).count() == 0
    _open_bell(stranger)
    _bell_count(stranger, 5, 0)
    assert page.errors == [] and child.errors == [] and stranger.errors == []


def test_a_licence_application_is_approved_on_its_screen_and_leaves_the_bell(page: Any, console_stack: ConsoleStack,
                                                                             org: Org) -> None:
    company = f"申请单位{secrets.token_hex(2)}"
    with connect(console_stack.db_url) as conn:  # what the sign-in-free page stores (POST /api/license/apply.json)
        application = conn.execute(
            "INSERT INTO licence_application (company, contact, phone, email, vehicles, machine_code, address)"
            " VALUES (%s, '李四', '13900139000', 'li@example.com', 20, 'M', 'e2e') RETURNING id", (company,)
        ).fetchone()[0]  # type: ignore[index]
        approver = _user(conn, conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s",
                                            (org.publisher,)).fetchone()[0],  # type: ignore[index]
                         f"e2e_lic_{secrets.token_hex(3)}", {"license": ["query", "get", "update"]})
        pending = conn.execute("SELECT count(*) FROM licence_application WHERE state = 0").fetchone()[0]  # type: ignore[index]
        conn.commit()
    sign_in(page, approver, path="/settings/licenseApply")
    _open_bell(page)
    _bell_count(page, 1, pending)
    page.keyboard.press("Escape")
    screen = page.get_by_test_id("list-page-licenceApply")
    row = screen.get_by_test_id("list-table").locator("tr.ant-table-row", has_text=company)
    row.get_by_text(text("zh-CN", "settings", "licenseApply.states.0")).wait_for()
    row.get_by_test_id(f"row-approve-{application}").click()
    page.get_by_test_id("apply-opinion").fill("同意试用")
    page.locator(".ant-modal-confirm-btns .ant-btn-primary").click()
    row.get_by_text(text("zh-CN", "settings", "licenseApply.states.1")).wait_for()
    row.get_by_text("同意试用").wait_for()
    screenshot(page, "settings-license-apply-zh-CN.png")
    assert row.get_by_test_id(f"row-approve-{application}").count() == 0  # decided once
    _open_bell(page)
    _bell_count(page, 1, pending - 1)
    assert page.errors == []
