"""Alarm settings in Chromium: the administrator of a fresh enterprise (no rule yet: the
defaults apply) creates its platform alarm rule in the console, edits the overspeed limit and duration,
and the list and the server both read the edited values back."""

from __future__ import annotations

import re
import secrets
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD

ACTIONS = ["add", "delete", "update", "query", "get", "export"]


def _fresh_admin(db_url: str) -> str:
    """A user of a new enterprise whose role holds the platform alarm rule permission."""
    user = f"e2e_rule_{secrets.token_hex(3)}"
    with connect(db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        eid = one("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id", (f"规则企业{user}", user))
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (eid,))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (eid, f"规则{user}"))
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'platformAlarmRule', %s)",
                     (role_id, ACTIONS))
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id", (eid, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
    return user


def _number(drawer: Any, field: str, value: str) -> None:
    box = drawer.get_by_test_id(f"record-field-{field}")
    (box if box.evaluate("e => e.tagName") == "INPUT" else box.locator("input")).fill(value)


def test_admin_of_a_fresh_enterprise_edits_the_overspeed_rule_and_reads_it_back(
        page: Any, console_stack: ConsoleStack) -> None:
    user = _fresh_admin(console_stack.db_url)
    token = console_stack.token(user)
    assert console_stack.post("/api/common/query/platformAlarmRule.json", token, {})["list"] == []

    sign_in(page, user, path="/settings/platformAlarmRule")
    page.wait_for_url(re.compile(r"/settings/platformAlarmRule"))
    page.get_by_test_id("list-page-platformAlarmRule").wait_for()
    page.get_by_test_id("list-table").get_by_text(
        text("zh-CN", "alarmSettings", "fields.overspeedLimit"), exact=True).first.wait_for()

    # create: only the name and the overspeed limit; the rest comes from the defaults
    page.get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    drawer.get_by_test_id("record-field-name").fill("默认规则")
    _number(drawer, "overspeedLimit", "90")
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    row = page.get_by_test_id("list-table").locator("tr[data-row-key]", has_text="默认规则")
    row.wait_for()
    record_id = row.get_attribute("data-row-key")

    # edit the overspeed rule: 80 km/h for 15 s
    page.get_by_test_id(f"row-edit-{record_id}").click()
    _number(drawer, "overspeedLimit", "80")
    _number(drawer, "overspeedDuration", "15")
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    row.filter(has_text="80").filter(has_text="15").wait_for()

    stored = console_stack.get(f"/api/common/platformAlarmRule/{record_id}.json", token)
    assert (stored["overspeedLimit"], stored["overspeedDuration"]) == (80, 15)
    assert (stored["fatigueDriving"], stored["fatigueRest"], stored["parkingTimeout"]) == (14400, 1200, 1800)

    switch_language(page, "en-US")
    page.get_by_test_id("list-table").get_by_text(
        text("en-US", "alarmSettings", "fields.overspeedLimit"), exact=True).first.wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def _fresh_switch_admin(db_url: str) -> tuple[str, int]:
    """A user of a new enterprise who sees alarms and may update the enterprise (the switches' permission)."""
    user = f"e2e_switch_{secrets.token_hex(3)}"
    with connect(db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        eid = one("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id", (f"开关企业{user}", user))
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (eid,))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (eid, f"开关{user}"))
        for code, actions in (("alarm", ["query", "get"]), ("enterprise", ["query", "get", "update"])):
            conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                         (role_id, code, actions))
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id", (eid, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
    return user, int(eid)


def test_message_notify_rule_switch_toggled_saved_and_read_back_after_reload(
        page: Any, console_stack: ConsoleStack) -> None:
    user, _ = _fresh_switch_admin(console_stack.db_url)
    token = console_stack.token(user)
    assert console_stack.get("/api/alarm/notify/settings.json", token)["carStateChangeWindowEnable"] is True

    sign_in(page, user, path="/setting/messageNotifyRule")
    page.wait_for_url(re.compile(r"/setting/messageNotifyRule"))
    page.get_by_test_id("message-notify-rule").wait_for()
    # the screen is a menu entry under the settings
    page.get_by_test_id("menu").get_by_text(text("zh-CN", "menu", "menu.setting.messageNotifyRule"), exact=True).wait_for()
    switch = page.get_by_test_id("notify-switch-carStateChangeWindowEnable")
    assert switch.get_attribute("aria-checked") == "true"
    switch.click()
    page.get_by_test_id("notify-switches-save").click()
    page.get_by_text(text("zh-CN", "alarmList", "notify.saved")).wait_for()

    page.reload()
    page.get_by_test_id("message-notify-rule").wait_for()
    page.wait_for_function("() => document.querySelector("
                           "'[data-testid=notify-switch-carStateChangeWindowEnable]')?.getAttribute('aria-checked')"
                           " === 'false'")
    assert page.get_by_test_id("notify-switch-uploadFileWindowEnable").get_attribute("aria-checked") == "true"
    saved = console_stack.get("/api/alarm/notify/settings.json", token)
    assert (saved["carStateChangeWindowEnable"], saved["carRespCmdWindowEnable"], saved["uploadFileWindowEnable"]) == (
        False, True, True)

    switch_language(page, "en-US")
    page.get_by_text(text("en-US", "alarmList", "notify.carStateChangeWindowEnable")).wait_for()
    switch_language(page, "zh-HK")
    page.get_by_text(text("zh-HK", "alarmList", "notify.carStateChangeWindowEnable")).wait_for()
    assert page.errors == []
