"""The system monitor in Chromium for a subsidiary's administrator: the platform-wide sections (gateway
sessions, Kafka offsets, database size, throughput) say they are for the platform's administrators, and
no platform figure reaches the page."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, text


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
