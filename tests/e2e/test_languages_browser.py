"""The console's languages in Chromium: server texts (alarm names, permission names) come in the
console's language, and zh-HK reads as Hong Kong writes (帳戶密碼登入, 即時監控, 報警), with no
Simplified Chinese from the server on the alarm list and the role editor."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD

# Characters only Simplified Chinese writes (their Traditional forms differ).
SIMPLIFIED_ONLY = set("报车辆级紧实时监数终视频设备务员单动态类统为无这们个间处状开关发线门录户罗")


def _simplified(text: str) -> list[str]:
    return sorted({char for char in text if char in SIMPLIFIED_ONLY})


@pytest.fixture
def alarm_user(console_stack: ConsoleStack) -> Iterator[tuple[str, int]]:
    """(user name, role id): a user of a fresh enterprise (names without Chinese: only the server's texts
    are), whose role grants the alarm screens, and two alarms of one of the stack's terminals under it:
    overspeed and ADAS forward collision level 1; the role id is of a role with the same rights in the
    demo administrator's enterprise (the role editor's)."""
    user = f"e2e_lang_{secrets.token_hex(3)}"
    vehicle = console_stack.vehicles[0]
    now = datetime.now(UTC).replace(microsecond=0)
    with connect(console_stack.db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        enterprise_id = one("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                            (f"Lang {user}", user[-10:]))
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (enterprise_id,))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (enterprise_id, user))
        # the same rights in a role of the demo administrator's enterprise, for the role editor
        admin_role_id = one("INSERT INTO role (enterprise_id, name) SELECT enterprise_id, %s FROM app_user"
                            " WHERE user_name = 'admin' RETURNING id", (user,))
        for code, actions in (("alarm", ["query", "get"]), ("monitor", ["query", "get"])):
            for role in (role_id, admin_role_id):
                conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                             (role, code, actions))
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                      (enterprise_id, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        for key, type_, level, minutes in (("a1", 1, None, 30), ("adas_1", 5, 1, 20)):
            conn.execute(
                "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level,"
                " start_time, state, lat, lng, speed) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 0,"
                " 39.9, 116.4, 66)",
                (enterprise_id, vehicle.device_id, vehicle.car_id, f"LANG{secrets.token_hex(2)}", vehicle.phone,
                 type_, key, level, now - timedelta(minutes=minutes)))
    yield user, int(admin_role_id)


def _in_language(page: Any, language: str) -> None:
    """The console starts in ``language`` (as chosen on an earlier visit)."""
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")


def _alarm_table(page: Any, user: str, first_row: str) -> str:
    sign_in(page, user, path="/list/alarm")
    table = page.get_by_test_id("list-table")
    table.locator("tr.ant-table-row", has_text=first_row).wait_for()
    return str(table.inner_text())


def _permission_matrix(page: Any, role_id: int, row: str) -> str:
    sign_in(page, "admin", path=f"/user/role/detail?id={role_id}")
    matrix = page.get_by_test_id("permission-matrix")
    matrix.get_by_text(row).first.wait_for()
    return str(matrix.inner_text())


def test_english_console_names_alarms_in_english(page: Any, alarm_user: tuple[str, int]) -> None:
    _in_language(page, "en-US")
    shown = _alarm_table(page, alarm_user[0], "Level 1 Forward collision warning")
    assert "Overspeed alarm" in shown
    assert "前向碰撞" not in shown and "超速报警" not in shown
    assert page.errors == []


def test_switching_to_english_renames_the_alarms_on_screen(page: Any, alarm_user: tuple[str, int]) -> None:
    _alarm_table(page, alarm_user[0], "一级 前向碰撞报警")
    switch_language(page, "en-US")
    table = page.get_by_test_id("list-table")
    table.locator("tr.ant-table-row", has_text="Level 1 Forward collision warning").wait_for()
    assert "前向碰撞" not in table.inner_text()
    assert page.errors == []


def test_english_role_editor_names_permissions_in_english(page: Any, alarm_user: tuple[str, int]) -> None:
    _in_language(page, "en-US")
    shown = _permission_matrix(page, alarm_user[1], "Live monitoring (monitor)")
    assert "Alarm management (alarm)" in shown and "Car management (car)" in shown
    assert "实时监控" not in shown and "报警管理" not in shown and "车辆管理" not in shown
    assert page.errors == []


def test_zh_hk_signs_in_and_monitors_as_hong_kong_writes(page: Any, alarm_user: tuple[str, int]) -> None:
    _in_language(page, "zh-HK")
    page.goto("/user/login")
    page.get_by_text("帳戶密碼登入").first.wait_for()
    assert "賬戶密碼登錄" not in page.locator("body").inner_text()
    shown = _permission_matrix(page, alarm_user[1], "即時監控 (monitor)")
    assert "報警管理 (alarm)" in shown and "車輛管理 (car)" in shown
    assert _simplified(shown) == []
    page.goto("/dashboard/index")
    page.get_by_test_id("menu").get_by_text("即時監控", exact=True).first.wait_for()
    assert "實時監控" not in page.get_by_test_id("menu").inner_text()
    assert page.errors == []


def test_zh_hk_alarm_list_has_no_simplified_server_text(page: Any, alarm_user: tuple[str, int]) -> None:
    _in_language(page, "zh-HK")
    shown = _alarm_table(page, alarm_user[0], "一級 前向碰撞報警")
    assert "超速報警" in shown
    assert _simplified(shown) == []
    assert "告警" not in page.locator("body").inner_text()
    assert page.errors == []
