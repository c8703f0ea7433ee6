"""The live log and the traffic-control alarm list in Chromium, against the shared stack's database seeded as
``fleet up`` seeds the demo (warehouse/demo_events_seed.py: yesterday's live sessions with their 0x9101 / 0x9102
and viewer rows, last night's night driving alarm at a fix of a vehicle):

- /log/live lists enterprise A's sessions with the database's plate, user, terminal data and end reason; a row's
  link opens /log/liveDetail (the live log stays highlighted in the menu), whose fields and timeline are the
  session's rows, in zh-CN, en-US and zh-HK;
- /list/trafficControlAlarm lists the night driving alarm (plate, name, unhandled) with its detail link and the
  handle action of the alarm list, and nothing of another kind.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fleet.platform_alarm_rules import DEFAULT_RULES
from protocols.china_time import CHINA_TZ
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect
from warehouse.demo_events_seed import seed_live_sessions, seed_night_alarms


def shown_bytes(value: int) -> str:
    """features/liveLog/format.ts formatBytes."""
    shown, unit = float(value), 0
    while shown >= 1024 and unit < 3:
        shown, unit = shown / 1024, unit + 1
    return f"{value} B" if unit == 0 else f"{shown:.{0 if shown >= 100 else 1}f} {['B', 'KB', 'MB', 'GB'][unit]}"


@pytest.fixture(scope="module")
def seeded(console_stack: ConsoleStack) -> dict[str, Any]:
    now = datetime.now(UTC)
    # the start of the seed's night window: this fix is the device's first there, so its alarm starts at it
    night = now.astimezone(CHINA_TZ).replace(hour=DEFAULT_RULES.night_start_hour, minute=30, second=0, microsecond=0)
    if night > now:
        night -= timedelta(days=1)
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT id FROM enterprise WHERE short_name = '示范一分公司'").fetchone()[0]  # type: ignore[index]
        device_id, car_id = conn.execute(
            "SELECT d.id, d.car_id FROM device d WHERE d.enterprise_id = %s AND d.car_id IS NOT NULL ORDER BY d.id"
            " LIMIT 1", (enterprise,)).fetchone()  # type: ignore[misc]
        conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                     " VALUES (%s, %s, %s, %s, 113.3, 23.1, 58)"
                     " ON CONFLICT (device_id, fix_at) DO UPDATE SET speed_kmh = 58",  # a parked history fix there moves
                     (device_id, night, car_id, enterprise))
        seed_live_sessions(conn, now)
        seed_night_alarms(conn, now)
        conn.commit()
        session = conn.execute(
            "SELECT s.id, c.plate_number, s.user_name, s.bytes_in, s.channel FROM live_session s"
            " JOIN car c ON c.id = s.car_id WHERE s.enterprise_id = %s AND s.user_id IS NOT NULL"  # a user's (the seed's),
            " ORDER BY s.request_time DESC, s.id DESC LIMIT 1",  # not one a superior platform asked for (no user)
            (enterprise,)).fetchone()
        alarm = conn.execute(
            "SELECT a.id, a.plate_number FROM alarm a WHERE a.device_id = %s AND a.key = 'p_night' AND a.start_time = %s",
            (device_id, night)).fetchone()
    assert session is not None and alarm is not None
    return {"session": session, "alarm": alarm}


def test_live_log_and_its_detail_show_the_sessions_rows_in_three_languages(page: Any, seeded: dict[str, Any]) -> None:
    session_id, plate, user_name, bytes_in, channel = seeded["session"]
    sign_in(page, "admin_a", path="/log/live")
    page.goto("/log/live")
    list_page = page.get_by_test_id("list-page-liveLog")
    list_page.wait_for()
    table = list_page.get_by_test_id("list-table")
    row = table.locator("tr", has=page.locator(f'a[href*="/log/liveDetail?id={session_id}"]'))
    row.wait_for()
    for shown in (plate, user_name, shown_bytes(bytes_in), text("zh-CN", "liveLog", "enums.endReason.user")):
        row.get_by_text(shown, exact=True).first.wait_for()

    row.locator(f'a[href*="/log/liveDetail?id={session_id}"]').first.click()
    page.wait_for_url(f"**/log/liveDetail?id={session_id}")
    detail = page.get_by_test_id("live-detail")
    detail.wait_for()
    assert detail.get_by_test_id("live-detail-plateNumber").inner_text() == plate
    assert detail.get_by_test_id("live-detail-channel").inner_text() == str(channel)
    assert detail.get_by_test_id("live-detail-bytesIn").inner_text() == shown_bytes(bytes_in)
    assert detail.get_by_test_id("live-detail-endReason").inner_text() == text("zh-CN", "liveLog", "enums.endReason.user")
    timeline = detail.get_by_test_id("live-detail-timeline")
    assert timeline.get_by_test_id("live-timeline-command").count() == 2  # the 0x9101 and the 0x9102
    timeline.get_by_test_id("live-timeline-firstFrame").wait_for()
    timeline.get_by_test_id("live-timeline-ended").filter(has_text=shown_bytes(bytes_in)).wait_for()
    detail.get_by_test_id("live-detail-viewers").get_by_text(user_name).first.wait_for()
    # the detail is invisible in the menu: the live log's entry stays highlighted
    page.locator(".ant-menu-item-selected").filter(has_text=text("zh-CN", "menu", "menu.log.live")).first.wait_for()

    for language in ("en-US", "zh-HK"):
        switch_language(page, language)
        reason = text(language, "liveLog", "enums.endReason.user")
        detail.get_by_test_id("live-detail-endReason").filter(has_text=reason).wait_for()
        detail.get_by_text(text(language, "liveLog", "detail.timeline"), exact=True).wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_traffic_control_list_shows_the_night_driving_alarm_with_its_detail_and_handling(
        page: Any, seeded: dict[str, Any]) -> None:
    alarm_id, plate = seeded["alarm"]
    sign_in(page, "admin_a", path="/list/trafficControlAlarm")
    page.goto("/list/trafficControlAlarm")
    list_page = page.get_by_test_id("list-page-alarm")
    list_page.wait_for()
    table = list_page.get_by_test_id("list-table")
    row = table.locator("tr", has=page.locator(f'a[href*="/list/alarmDetail?id={alarm_id}"]'))
    row.wait_for()
    row.get_by_text(plate, exact=True).first.wait_for()
    row.get_by_text("夜间行驶报警").first.wait_for()
    row.get_by_text(text("zh-CN", "alarmList", "actions.handle"), exact=True).first.wait_for()  # unhandled: handle
    names = table.locator("tbody tr.ant-table-row").all_inner_texts()
    assert names and all("夜间行驶报警" in shown for shown in names)  # the condition: no alarm of another kind

    switch_language(page, "en-US")
    row.get_by_text("Night driving alarm").first.wait_for()
    assert page.errors == []  # type: ignore[attr-defined]
