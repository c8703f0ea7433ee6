"""The data-exchange playback screen (platform-spec §2 playback) in Chromium, in zh-CN, zh-HK and en-US: a
superior platform's JT/T 1078 video requests (a 0x9A01 remote playback with its time range, a 0x9801 real-time
request) are listed with the vehicle, channel and the result fleetwatch answered, named in each language."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot
from warehouse.db import connect
from warehouse.queries import exchange_video as qv
from warehouse.seed import PARENT

TEXTS = {
    "zh-CN": {"playback": "远程录像回放请求", "live": "实时音视频请求", "success": "成功", "failure": "失败",
              "menu": "视频请求(回放)"},
    "zh-HK": {"playback": "遠程錄像回放請求", "live": "即時影音請求", "success": "成功", "failure": "失敗",
              "menu": "視像請求(回放)"},
    "en-US": {"playback": "Playback request", "live": "Real-time video request", "success": "Success",
              "failure": "Failure", "menu": "Video requests (playback)"},
}


@pytest.fixture
def requested(console_stack: ConsoleStack) -> Iterator[dict[str, Any]]:
    """A superior platform of the parent enterprise with two video requests answered (removed afterwards)."""
    tag = secrets.token_hex(3).upper()
    plate = f"粤V{tag}"
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s",
                                  (PARENT.admin,)).fetchone()[0]  # type: ignore[index]
        platform = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, "
            "down_link_port, enabled) VALUES (%s, %s, '127.0.0.1', 7809, 1, 'pw', 1, 7810, false) RETURNING id",
            (enterprise, f"监管{tag}")).fetchone()[0]  # type: ignore[index]
        ids = []
        for data_type, channel, result, window in ((0x9A01, 3, 0, (start, start + timedelta(minutes=10))),
                                                   (0x9801, 1, 1, (None, None))):
            row = {"platform_id": platform, "data_type": data_type, "source_sn": len(ids) + 1, "plate": plate,
                   "plate_colour": 2, "car_id": None, "channel_id": channel, "av_item_type": 0, "stream_type": None,
                   "mem_type": None, "start_at": window[0], "end_at": window[1], "control_type": None}
            ids.append(qv.store_video_request(conn, row))
            qv.mark_video_answered(conn, ids[-1], result)
        conn.commit()
    yield {"plate": plate, "ids": ids, "name": f"监管{tag}"}
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM superior_platform WHERE id = %s", (platform,))
        conn.commit()


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_superiors_video_requests_are_listed_with_their_answer_in_each_language(
        page: Any, console_stack: ConsoleStack, requested: dict[str, Any], language: str) -> None:
    texts = TEXTS[language]
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, PARENT.admin, path="/exchange/playback")
    screen = page.get_by_test_id("list-page-exchangePlayback")
    screen.get_by_test_id("list-filter-plate").fill(requested["plate"])
    screen.get_by_test_id("list-search").click()
    playback_id, live_id = requested["ids"]
    playback = screen.locator(f'tr[data-row-key="{playback_id}"]')
    playback.wait_for()
    for shown in (texts["playback"], texts["success"], requested["name"], requested["plate"]):
        assert shown in playback.inner_text(), shown
    live = screen.locator(f'tr[data-row-key="{live_id}"]')
    assert texts["live"] in live.inner_text() and texts["failure"] in live.inner_text()
    assert screen.locator("tr.ant-table-row").count() == 2
    assert texts["menu"] in page.get_by_test_id("menu").inner_text()
    if language == "zh-CN":
        screenshot(page, "exchange-playback-zh-CN.png")
    assert page.errors == []
