"""The alarm screens in Chromium, for a fresh enterprise and user of this test with alarm rows
inserted directly: the alarm management list in zh-CN and en-US, the state filter, handling one alarm from
the list (its state changes), its detail with the confirm record, and the notification rules screen saving
a rule that reads back after a reload (and from the API)."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import OPEN_OPTIONS, sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD


def _fresh_user(stack: ConsoleStack) -> tuple[str, dict[str, int]]:
    """A new enterprise with a user holding the alarm permission, and three alarms of one of the stack's
    terminals filed under that enterprise: overspeed (unhandled), ADAS forward collision level 1
    (unhandled), fatigue (finished)."""
    user = f"e2e_alarm_{secrets.token_hex(3)}"
    vehicle = stack.vehicles[0]
    now = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=secrets.randbelow(3600))
    with connect(stack.db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        enterprise_id = one("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                            (f"告警企业{user}", user[-10:]))
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (enterprise_id,))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                      (enterprise_id, f"告警{user}"))
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'alarm', %s)",
                     (role_id, ["query", "get", "update", "export"]))
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                      (enterprise_id, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        ids: dict[str, int] = {}
        for key, type_, level, minutes, state in (("a1", 1, None, 30, 0), ("adas_1", 5, 1, 20, 0),
                                                  ("a2", 1, None, 40, 2)):
            ids[key] = one(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level,"
                " start_time, state, opinion, lat, lng, speed) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " 39.9, 116.4, 66) RETURNING id",
                (enterprise_id, vehicle.device_id, vehicle.car_id, vehicle.plate, vehicle.phone, type_, key, level,
                 now - timedelta(minutes=minutes), state, "已处理" if state else None))
    return user, ids


def _wait_total(page: Any, shown: str) -> None:
    page.wait_for_function("(t) => document.querySelector('[data-testid=list-total]')?.innerText.trim() === t",
                           arg=shown)


def _row(page: Any, alarm_id: int) -> Any:
    return page.get_by_test_id("list-table").locator(f"tr[data-row-key='{alarm_id}']")


def test_alarm_list_filters_handles_and_shows_the_record(page: Any, console_stack: ConsoleStack) -> None:
    user, ids = _fresh_user(console_stack)
    sign_in(page, user, path="/list/alarm")
    page.get_by_test_id("list-page-alarm").wait_for()
    _wait_total(page, "共 3 条数据")
    _row(page, ids["adas_1"]).filter(has_text="一级 前向碰撞报警").wait_for()
    _row(page, ids["adas_1"]).filter(has_text=text("zh-CN", "alarmList", "enums.type.5")).wait_for()
    _row(page, ids["a1"]).filter(has_text=text("zh-CN", "alarmList", "enums.state.0")).wait_for()
    assert page.get_by_test_id(f"row-handle-{ids['a2']}").count() == 0  # already handled

    # filter by state: finished only
    page.get_by_test_id("list-filter-state").click()
    page.locator(OPEN_OPTIONS, has_text=text("zh-CN", "alarmList", "enums.state.2")).first.click()
    page.get_by_test_id("list-search").click()
    _wait_total(page, "共 1 条数据")
    _row(page, ids["a2"]).wait_for()
    page.get_by_test_id("list-reset").click()
    _wait_total(page, "共 3 条数据")

    # handle the overspeed alarm from the list: its state changes and the handle action goes
    opinion = f"已电话提醒{secrets.token_hex(2)}"
    page.get_by_test_id(f"row-handle-{ids['a1']}").click()
    page.get_by_test_id("handle-alarm-opinion").fill(opinion)
    page.locator(".ant-modal .ant-btn-primary").click()  # the dialog's save (antd spaces two CJK characters)
    _row(page, ids["a1"]).filter(has_text=opinion).wait_for()
    _row(page, ids["a1"]).filter(has_text=text("zh-CN", "alarmList", "enums.state.2")).wait_for()
    page.get_by_test_id(f"row-handle-{ids['a1']}").wait_for(state="detached")

    # its detail shows the confirm record, by this user
    page.get_by_test_id(f"row-detail-{ids['a1']}").click()
    page.get_by_test_id("alarm-detail").wait_for()
    records = page.get_by_test_id("alarm-confirm-records")
    records.locator("tr.ant-table-row", has_text=opinion).filter(has_text=user).wait_for()
    page.get_by_test_id("alarm-detail-fields").get_by_text("超速报警").wait_for()

    # the list in English
    page.goto("/list/alarm")
    page.get_by_test_id("list-page-alarm").wait_for()
    switch_language(page, "en-US")
    _wait_total(page, "Total: 3")
    _row(page, ids["adas_1"]).filter(has_text=text("en-US", "alarmList", "enums.type.5")).wait_for()
    _row(page, ids["a1"]).filter(has_text=text("en-US", "alarmList", "enums.state.2")).wait_for()
    page.get_by_test_id("list-table").get_by_text(text("en-US", "alarmList", "fields.plateNumber"), exact=True).first.wait_for()
    assert page.errors == []


def test_the_alarm_list_shows_the_address_of_each_alarms_point(page: Any, console_stack: ConsoleStack) -> None:
    """Alarms stored without an address (as the streams store them: a terminal bit and an ADAS event) show
    their point's address in the alarm list: the list fills it from the alarm's coordinates."""
    user, ids = _fresh_user(console_stack)
    sign_in(page, user, path="/list/alarm")
    page.get_by_test_id("list-page-alarm").wait_for()
    _wait_total(page, "共 3 条数据")
    table = page.get_by_test_id("list-table")
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    column = headers.index(text("zh-CN", "alarmList", "fields.address"))
    for alarm_id in ids.values():
        _row(page, alarm_id).locator("td").nth(column).filter(has_text=re.compile(r"^北京市.+区$")).wait_for()
    assert page.errors == []


def test_notify_settings_save_a_rule_and_read_it_back(page: Any, console_stack: ConsoleStack) -> None:
    user, _ = _fresh_user(console_stack)
    sign_in(page, user, path="/settings/notify")
    panel = page.get_by_test_id("notify-settings")
    panel.wait_for()
    page.get_by_test_id("notify-search").fill("a1")
    mute = page.get_by_test_id("notify-disabled-a1")
    mute.wait_for()
    assert mute.get_attribute("aria-checked") == "false"
    mute.click()
    page.get_by_test_id("notify-startHour-a1").fill("8")
    page.get_by_test_id("notify-save").click()
    page.get_by_text(text("zh-CN", "alarmList", "notify.saved")).wait_for()

    page.reload()
    page.get_by_test_id("notify-settings").wait_for()
    page.get_by_test_id("notify-search").fill("a1")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=notify-disabled-a1]')?.getAttribute('aria-checked') === 'true'")
    assert page.get_by_test_id("notify-startHour-a1").input_value() == "8"
    saved = console_stack.get("/api/alarm/notify/settings.json", console_stack.token(user))
    rules = saved.get("alarmRule") or saved.get("rules")
    rule = rules["a1"] if isinstance(rules, dict) else next(r for r in rules if r["alarmKey"] == "a1")
    rule = rule.get("alarmRule", rule)
    assert rule["disabled"] is True and rule["startHour"] == 8
