"""The data-exchange notifyMessage screen (platform-spec §2 notifyMessage) in Chromium, in zh-CN, zh-HK and
en-US: a superior platform's message (JT/T 809 0x9302, acknowledged) and warning tip (0x9402 about one of our
vehicles, from a government platform, an overspeed) are listed newest first with their type, source, alarm
type and text, named in each language, under the data-exchange menu."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.db import connect
from warehouse.queries import exchange as q
from warehouse.seed import PARENT

TEXTS = {
    "zh-CN": {"message": "平台间报文", "tip": "报警预警", "government": "政府监管平台", "overspeed": "超速报警",
              "menu": "通知消息"},
    "zh-HK": {"message": "平台間報文", "tip": "報警預警", "government": "政府監管平台", "overspeed": "超速報警",
              "menu": "通知訊息"},
    "en-US": {"message": "Platform message", "tip": "Warning tip", "government": "Government platform",
              "overspeed": "Overspeed", "menu": "Notify messages"},
}


@pytest.fixture
def notices(console_stack: ConsoleStack) -> Iterator[dict[str, Any]]:
    """A superior platform of the parent enterprise with a message and a warning tip (removed afterwards)."""
    tag = secrets.token_hex(3).upper()
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s",
                                  (PARENT.admin,)).fetchone()[0]  # type: ignore[index]
        platform = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, "
            "down_link_port, enabled) VALUES (%s, %s, '127.0.0.1', 7809, 1, 'pw', 1, 7810, false) RETURNING id",
            (enterprise, f"监管{tag}")).fetchone()[0]  # type: ignore[index]
        common = {"platform_id": platform, "enterprises": [enterprise], "owner": enterprise, "object_type": None,
                  "object_id": None, "info_id": None, "plate": None, "plate_colour": None, "warn_src": None,
                  "warn_type": None, "warn_time": None}
        message = q.store_notice(conn, {**common, "data_type": 0x9302, "source_sn": 1, "info_id": 9,
                                        "content": f"请核查在线率 {tag}"})
        q.mark_notice_answered(conn, message)
        tip = q.store_notice(conn, {**common, "data_type": 0x9402, "source_sn": 2, "plate": f"粤W{tag}",
                                    "plate_colour": 2, "warn_src": 3, "warn_type": 1,
                                    "warn_time": datetime.now(UTC) - timedelta(minutes=5),
                                    "content": f"前方限速 {tag}"})
        conn.commit()
    yield {"message": message, "tip": tip, "tag": tag, "name": f"监管{tag}"}
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM superior_platform WHERE id = %s", (platform,))
        conn.commit()


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_superiors_messages_and_warning_tips_are_listed_in_each_language(
        page: Any, console_stack: ConsoleStack, notices: dict[str, Any], language: str) -> None:
    texts = TEXTS[language]
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, PARENT.admin, path="/exchange/notifyMessage")
    screen = page.get_by_test_id("list-page-notifyMessage")
    message = screen.locator(f'tr[data-row-key="{notices["message"]}"]')
    message.wait_for()
    for shown in (texts["message"], f"请核查在线率 {notices['tag']}", notices["name"]):
        assert shown in message.inner_text(), shown
    tip = screen.locator(f'tr[data-row-key="{notices["tip"]}"]')
    for shown in (texts["tip"], texts["government"], texts["overspeed"], f"粤W{notices['tag']}",
                  f"前方限速 {notices['tag']}"):
        assert shown in tip.inner_text(), shown
    assert texts["menu"] in page.get_by_test_id("menu").inner_text()
    assert page.errors == []
