"""A superior platform's JT/T 809 requests in the console (Chromium): its messages and warning tips are notices
of type 5 in the one notice list (opened from the bell), and an alarm it urged shows the urging's deadline on
the alarm's detail, in zh-CN and en-US. The rows are what the link service stores (exchange/link/service.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from protocols.china_time import CHINA_TZ
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_alarm_pages import _fresh_user
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect

VISIBLE_FIELDS = "[data-testid=alarm-detail-fields]:visible"  # the console keeps each visited page as a tab


def _exchange_rows(stack: ConsoleStack, user: str, alarm_id: int, deadline: datetime) -> None:
    with connect(stack.db_url) as conn:
        enterprise_id = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s", (user,)).fetchone()[0]  # type: ignore[index]
        platform_id = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, "
            "down_link_port, enabled) VALUES (%s, %s, '127.0.0.1', 7809, 1, 'pw', 1, 7810, false) RETURNING id",
            (enterprise_id, f"监管平台{user}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO exchange_notice (platform_id, enterprise_id, data_type, source_sn, info_id, content) "
                     "VALUES (%s, %s, 37634, 1, 7, '请加强夜间值守')", (platform_id, enterprise_id))  # 0x9302
        conn.execute(
            "INSERT INTO exchange_urging (platform_id, enterprise_id, alarm_id, source_sn, supervision_id, plate, "
            "plate_colour, warn_src, warn_type, warn_time, deadline, level) SELECT %s, %s, id, 2, '00000001', "
            "plate_number, 2, 1, 1, start_time, %s, 0 FROM alarm WHERE id = %s",
            (platform_id, enterprise_id, deadline, alarm_id))


def test_superior_notices_are_listed_and_an_urged_alarm_shows_its_deadline(page: Any,
                                                                            console_stack: ConsoleStack) -> None:
    user, ids = _fresh_user(console_stack)
    deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=45)
    _exchange_rows(console_stack, user, ids["a1"], deadline)

    sign_in(page, user, path="/setting/notify/List")
    listing = page.get_by_test_id("notify-list")
    listing.wait_for()
    row = listing.locator("tr.ant-table-row", has_text="请加强夜间值守")
    row.filter(has_text=text("zh-CN", "alarm", "notice.bizType.5")).filter(has_text="上级平台消息").wait_for()
    listing.locator("tr.ant-table-row", has_text="超速报警").wait_for()  # the alarms stay in the same list

    page.goto(f"/list/alarmDetail?id={ids['a1']}")
    page.locator(VISIBLE_FIELDS, has_text=text("zh-CN", "alarmList", "fields.urgingDeadline")).wait_for()
    shown = page.locator("[data-testid=alarm-detail-urging]:visible").inner_text()
    assert shown == deadline.astimezone(CHINA_TZ).strftime("%Y-%m-%d %H:%M:%S")  # the browser runs in Asia/Shanghai
    page.goto(f"/list/alarmDetail?id={ids['adas_1']}")  # not urged: no such field
    page.locator(VISIBLE_FIELDS, has_text="前向碰撞报警").wait_for()
    assert page.locator("[data-testid=alarm-detail-urging]:visible").count() == 0  # a1's tab stays, hidden

    switch_language(page, "en-US")
    page.goto(f"/list/alarmDetail?id={ids['a1']}")
    page.locator(VISIBLE_FIELDS, has_text=text("en-US", "alarmList", "fields.urgingDeadline")).wait_for()
    page.goto("/setting/notify/List")
    page.locator("[data-testid=notify-list]:visible tr.ant-table-row",
                 has_text="Message from the superior platform").wait_for()
    assert page.errors == []
