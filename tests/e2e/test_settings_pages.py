"""Settings screens in Chromium: the dictionary screen lists the seeded entries (their names in the console's
language), the system monitor shows the stack's real Kafka consumer group and database size, and the licence
application page opens without signing in and submits."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from fleet.zh_hk import to_hk
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language
from warehouse.db import connect


def test_dictionary_screen_lists_the_seeded_entries(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, "admin", path="/settings/dictionary")
    system = page.get_by_test_id("list-page-dictionary")
    for code in ("car_alarm_desc", "ol_map_config", "device_message_desc", "exchange_message_desc"):
        system.get_by_text(code, exact=True).wait_for()
    # A JSON content shows its start with an ellipsis and the whole of it on hover: the table scrolls sideways by
    # less than a column at 1440 px, where a cell's text once set its column's width and the table reached 34,000 px.
    overflow = system.locator(".ant-table-content").evaluate("t => t.scrollWidth - t.clientWidth")
    assert overflow < 360, overflow
    content = system.locator("tr.ant-table-row", has_text="car_alarm_desc").locator(".list-cell-long")
    assert json.loads(content.get_attribute("title") or "")[0]["bit"] == 0
    page.get_by_test_id("dictionary-tab-protocol").click()
    page.get_by_test_id("list-page-dictionary").get_by_text("protocol.jt808_2013", exact=True).wait_for()
    page.get_by_test_id("dictionary-tab-media").click()
    tab = page.get_by_test_id("list-page-dictionary")
    tab.get_by_text("media.default", exact=True).wait_for()
    assert tab.get_by_text("protocol.jt808_2013", exact=True).count() == 0
    screenshot(page, "settings-dictionary-zh-CN.png")
    assert page.errors == []  # type: ignore[attr-defined]


def name_cell(page: Any, code: str, name: str) -> Any:
    """The dictionary table's cell that reads exactly ``name`` in the row of ``code``."""
    row = page.get_by_test_id("list-page-dictionary").locator("tr.ant-table-row", has_text=code)
    return row.locator("td").get_by_text(name, exact=True)


def test_dictionary_screen_shows_the_seeded_names_in_english(page: Any, console_stack: ConsoleStack) -> None:
    # A seeded system entry's name reads in the console's language; the stored zh-CN name is what forms edit.
    sign_in(page, "admin", path="/settings/dictionary")
    page.get_by_test_id("list-page-dictionary").get_by_text("car_alarm_desc", exact=True).wait_for()
    switch_language(page, "en-US")
    name_cell(page, "car_alarm_desc", "Alarm bit descriptions").wait_for()
    name_cell(page, "device_message_desc", "Terminal message descriptions").wait_for()
    name_cell(page, "ol_map_config", "Map configuration").wait_for()
    table = page.get_by_test_id("list-page-dictionary")
    for stored in ("报警位描述", "终端消息描述", "地图配置"):
        assert table.get_by_text(stored, exact=True).count() == 0, stored
    page.get_by_test_id("dictionary-tab-protocol").click()
    name_cell(page, "protocol.jt1078", "JT/T 1078-2016 video").wait_for()
    page.get_by_test_id("dictionary-tab-media").click()
    name_cell(page, "media.default", "Default media gateway").wait_for()
    screenshot(page, "settings-dictionary-en-US.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_dictionary_screen_shows_the_seeded_names_in_hong_kong_chinese(page: Any,
                                                                         console_stack: ConsoleStack) -> None:
    sign_in(page, "admin", path="/settings/dictionary")
    page.get_by_test_id("list-page-dictionary").get_by_text("car_alarm_desc", exact=True).wait_for()
    switch_language(page, "zh-HK")
    for code, stored in (("car_alarm_desc", "报警位描述"), ("device_message_desc", "终端消息描述")):
        assert to_hk(stored) != stored
        name_cell(page, code, to_hk(stored)).wait_for()
        assert page.get_by_test_id("list-page-dictionary").get_by_text(stored, exact=True).count() == 0, stored
    page.get_by_test_id("dictionary-tab-media").click()
    name_cell(page, "media.default", to_hk("默认流媒体网关")).wait_for()
    screenshot(page, "settings-dictionary-zh-HK.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_system_monitor_shows_a_consumer_group_and_the_database_size(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, "admin", path="/settings/system")
    groups = page.get_by_test_id("monitor-kafka-groups")
    # The stack's streams worker consumes as group e2e-worker-<hex> (tests/e2e/conftest.py).
    groups.get_by_text(re.compile(r"^e2e-worker-[0-9a-f]+$")).first.wait_for()
    size = page.get_by_test_id("monitor-database-size").inner_text()
    assert re.fullmatch(r"[0-9.]+ (KiB|MiB|GiB)", size), size
    assert page.get_by_test_id("monitor-gateway").get_by_text("在线终端").count() == 1
    screenshot(page, "settings-system-zh-CN.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_licence_application_page_opens_without_signing_in_and_submits(page: Any, console_stack: ConsoleStack) -> None:
    page.goto("/user/login")
    page.get_by_test_id("login-apply-licence").click()
    page.wait_for_url("**/user/license")
    code = page.get_by_test_id("apply-machine-code")
    page.wait_for_function("el => el.textContent.length > 0", arg=code.element_handle())
    machine_code = code.inner_text()
    company = f"示范物流{uuid.uuid4().hex[:6]}"
    page.get_by_test_id("apply-phone").fill("12345")
    page.get_by_test_id("apply-submit").click()
    page.get_by_text("电话号码格式不正确").wait_for()
    page.get_by_test_id("apply-company").fill(company)
    page.get_by_test_id("apply-contact").fill("张三")
    page.get_by_test_id("apply-phone").fill("13800000000")
    page.get_by_test_id("apply-email").fill("ops@example.com")
    page.get_by_test_id("apply-vehicles").fill("120")
    page.get_by_test_id("apply-submit").click()
    page.get_by_test_id("licence-apply-done").wait_for()
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT contact, vehicles, machine_code FROM licence_application WHERE company = %s",
                           (company,)).fetchone()
    assert row == ("张三", 120, machine_code)
    assert page.errors == []  # type: ignore[attr-defined]
