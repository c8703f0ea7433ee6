"""The settings screens param and license (platform-spec §2 settings) in Chromium against the live stack: an
administrator changes a platform parameter, sees it saved and shown (after a reload too), in zh-CN, zh-HK and
en-US, and the change governs the licence overview at once; the licence overview shows what the database holds
(state, vehicles licensed and in use, expiry, warning window, machine code) and leads to the licence's screens."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest

from api.licence import machine_code
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect
from warehouse.queries import licence as licence_queries


@pytest.fixture
def configured(console_stack: ConsoleStack) -> Iterator[ConsoleStack]:
    """The stack with every parameter at its configured value and no licence of this test left behind."""
    yield console_stack
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM platform_param")
        conn.execute("DELETE FROM licence WHERE licensee LIKE 'e2e-param-%%'")
        conn.commit()


def _stored(db_url: str, name: str) -> Any:
    with connect(db_url) as conn:
        row = conn.execute("SELECT value, updated_by FROM platform_param WHERE name = %s", (name,)).fetchone()
    return None if row is None else tuple(row)


def _set(page: Any, name: str, value: str) -> None:
    field = page.get_by_test_id(f"param-input-{name}")
    box = field if field.evaluate("e => e.tagName") == "INPUT" else field.locator("input")
    box.fill(value)
    page.get_by_test_id(f"param-save-{name}").click()
    page.get_by_test_id(f"param-value-{name}").get_by_text(value, exact=True).wait_for()


def test_an_administrator_changes_a_parameter_and_sees_it_saved_in_three_languages(
    page: Any, configured: ConsoleStack
) -> None:
    sign_in(page, "admin", path="/settings/param")
    page.get_by_test_id("param-screen").wait_for()
    page.get_by_test_id("param-screen").get_by_text(text("zh-CN", "settings", "param.items.noticeInsuranceDays.label")).wait_for()
    assert page.get_by_test_id("param-value-noticeInsuranceDays").inner_text() == "30"
    assert page.get_by_test_id("param-screen").get_by_text(re.compile("secret|token|port", re.I)).count() == 0  # no start-up setting shown

    _set(page, "noticeInsuranceDays", "45")
    page.locator(".ant-message").get_by_text(text("zh-CN", "settings", "param.saved")).wait_for()
    assert _stored(configured.db_url, "noticeInsuranceDays") == (45, "admin")
    assert page.get_by_test_id("param-updated-noticeInsuranceDays").inner_text().startswith("admin ")
    page.reload()
    page.get_by_test_id("param-value-noticeInsuranceDays").get_by_text("45", exact=True).wait_for()
    screenshot(page, "settings-param-zh-CN.png")

    switch_language(page, "zh-HK")
    page.get_by_test_id("param-screen").get_by_text(text("zh-HK", "settings", "param.items.noticeInsuranceDays.label")).wait_for()
    page.get_by_test_id("param-screen").get_by_text(text("zh-HK", "settings", "param.title")).wait_for()
    switch_language(page, "en-US")
    page.get_by_test_id("param-screen").get_by_text(text("en-US", "settings", "param.items.noticeInsuranceDays.label")).wait_for()
    page.get_by_test_id("param-screen").get_by_text(text("en-US", "settings", "param.items.licenceWarningDays.description")).wait_for()
    screenshot(page, "settings-param-en-US.png")

    page.get_by_test_id("param-reset-noticeInsuranceDays").click()
    page.get_by_test_id("param-value-noticeInsuranceDays").get_by_text("30", exact=True).wait_for()
    assert _stored(configured.db_url, "noticeInsuranceDays") is None
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_licence_overview_shows_the_databases_licence_and_the_warning_window_in_effect(
    page: Any, configured: ConsoleStack
) -> None:
    today = date.today()
    with connect(configured.db_url) as conn:
        root = conn.execute("SELECT min(id) FROM enterprise WHERE parent_id IS NULL").fetchone()
        assert root is not None
        licence_queries.insert_licence(
            conn, enterprise_id=root[0], licence_id=f"e2e-{uuid.uuid4().hex[:8]}", licensee=f"e2e-param-{uuid.uuid4().hex[:6]}",
            enterprise_name="示范物流有限公司", max_vehicles=5000, valid_from=today - timedelta(days=5),
            valid_to=today + timedelta(days=20), features=["video"], document="e2e", installed_by="admin")
        conn.commit()
        current = licence_queries.current(conn)
        used, code = licence_queries.live_vehicles(conn), machine_code(conn)
    assert current is not None
    days_left = (current["valid_to"] - today).days

    sign_in(page, "admin", path="/settings/license")
    page.get_by_test_id("licence-overview").wait_for()
    assert page.get_by_test_id("licence-overview-state").inner_text() == text("zh-CN", "settings",
                                                                             "licenseOverview.states.expiring")
    assert page.get_by_test_id("licence-overview-usage").inner_text() == f"{used} / {current['max_vehicles']}"
    assert page.get_by_test_id("licence-overview-valid-to").inner_text() == current["valid_to"].isoformat()
    assert page.get_by_test_id("licence-overview-days-left").inner_text() == str(days_left)
    assert page.get_by_test_id("licence-overview-machine-code").inner_text() == code
    page.get_by_test_id("licence-overview-warning").wait_for()
    screenshot(page, "settings-license-zh-CN.png")

    # the warning window is a run-time parameter: narrower than the days left, the licence is simply valid
    page.goto("/settings/param")
    _set(page, "licenceWarningDays", str(days_left - 1))
    page.goto("/settings/license")
    page.get_by_test_id("licence-overview-state").get_by_text(
        text("zh-CN", "settings", "licenseOverview.states.valid")).wait_for()
    assert page.get_by_test_id("licence-overview-warning").count() == 0
    assert str(days_left - 1) in page.get_by_test_id("licence-overview-window").inner_text()

    switch_language(page, "en-US")
    page.get_by_test_id("licence-overview-state").get_by_text(
        text("en-US", "settings", "licenseOverview.states.valid")).wait_for()
    switch_language(page, "zh-HK")
    page.get_by_test_id("licence-overview").get_by_text(text("zh-HK", "settings", "licenseOverview.title")).wait_for()
    page.get_by_test_id("licence-link-detail").click()
    page.wait_for_url(re.compile(r"/settings/licenseDetail$"))
    page.get_by_test_id("licence-detail").wait_for()
    assert page.errors == []  # type: ignore[attr-defined]
