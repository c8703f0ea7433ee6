"""The system monitor in Chromium for a subsidiary's administrator: the platform-wide sections (gateway
sessions, Kafka offsets, database size, throughput) say they are for the platform's administrators, and
no platform figure reaches the page; the licence usage counts the subsidiary's own vehicles."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, text
from warehouse.db import connect
from warehouse.seed import SUBSIDIARY_A


def test_a_subsidiary_administrator_sees_no_platform_wide_monitor_figures(page: Any,
                                                                          console_stack: ConsoleStack) -> None:
    sign_in(page, "admin_a", path="/settings/system")
    page.get_by_test_id("system-monitor").wait_for()
    for section in ("monitor-gateway", "monitor-kafka", "monitor-database", "monitor-throughput"):
        notice = page.get_by_test_id(f"{section}-restricted")
        notice.wait_for()
        assert notice.inner_text().strip() == text("zh-CN", "settings", "system.restricted")
    assert page.get_by_test_id("monitor-kafka-groups").count() == 0
    assert page.get_by_test_id("monitor-database-size").count() == 0
    assert page.get_by_text(text("zh-CN", "settings", "system.online")).count() == 0
    screenshot(page, "settings-system-subsidiary-zh-CN.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_subsidiary_administrator_sees_its_own_vehicles_in_the_licence_usage(page: Any,
                                                                              console_stack: ConsoleStack) -> None:
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT count(*) FILTER (WHERE e.path LIKE a.path || '%%'), count(*) FROM car c"
                           " JOIN enterprise e ON e.id = c.enterprise_id, enterprise a"
                           " WHERE c.record_state = 1 AND a.name = %s", (SUBSIDIARY_A.name,)).fetchone()
    assert row is not None
    own, everyone = row
    assert own < everyone
    sign_in(page, "admin_a", path="/settings/licenseDetail")
    usage = page.get_by_test_id("licence-usage")
    usage.wait_for()
    assert usage.inner_text().startswith(f"{text('zh-CN', 'settings', 'license.vehiclesUsed')}: {own} / ")
    assert page.errors == []  # type: ignore[attr-defined]
