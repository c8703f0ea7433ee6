"""fleetwatch as the JT/T 809 superior platform watching an inferior platform's vehicle live (and a recording of it),
in Chromium, over the
whole real chain: the loopback inferior `fleet up` seeds (fleetwatch's own link service, logged in to its own
superior service in a ``python -m exchange.link`` process) forwards a camera vehicle of the shared stack; on the
exchange car screen an operator asks for channel 1; the superior service sends 0x9801 with the code the platform
reported by 0x1701; the inferior registers the stream, sends its terminal 0x9101 and answers 0x1801 with its media
server's address; our media server pulls that address and the browser plays the picture. Closing the dialog
stops it: the stream goes and 0x9802 goes down. A recording goes the same way with 0x9A01 / 0x1A01 / 0x9A02. The
dialog's texts in zh-CN, zh-HK and en-US."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from fleet.settings import ExchangeSettings
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import click_until, sign_in
from tests.e2e.test_console import screenshot
from tests.e2e.test_video_browser import camera_vehicles
from tests.integration.exchange.test_superior_service import ExchangeProcess
from tests.integration.streams.support import commit_group_at_end, wait_for
from warehouse.db import connect
from warehouse.exchange_seed import LOOPBACK_NAME, seed_loopback_inferior
from warehouse.seed import PARENT

TEXTS = {"zh-CN": ("实时视频", "请求视频", "音视频", "录像回放"), "zh-HK": ("即時視像", "請求視像", "影音", "錄像回放"),
         "en-US": ("Live video", "Request video", "Audio and video", "Recording")}
FRAMES_OVER_JS = ("(n) => { const v = document.querySelector('[data-testid=live-player]'); "
                  "return !!v && v.getVideoPlaybackQuality().totalVideoFrames > n; }")


def _one(db_url: str, sql: str, *args: Any) -> Any:
    with connect(db_url) as conn:
        row = conn.execute(sql, args).fetchone()
    return None if row is None else row[0]


@pytest.fixture(scope="module")
def loopback(console_stack: ConsoleStack, kafka_bootstrap: str, free_port: Any,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The seeded loopback inferior of the parent enterprise, exchanging a camera vehicle's enterprise (the parent or
    a subsidiary), linked."""
    db_url = console_stack.db_url
    vehicle = camera_vehicles(console_stack)[0]
    settings = ExchangeSettings(superior_port=free_port(), demo_inferior_down_link_port=free_port())
    with connect(db_url) as conn:
        exchanged = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (vehicle.car_id,)).fetchone()[0]  # type: ignore[index]
        root = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s", (PARENT.admin,)).fetchone()[0]  # type: ignore[index]
        enabled = [r[0] for r in conn.execute("SELECT id FROM superior_platform WHERE enabled").fetchall()]
        conn.execute("UPDATE superior_platform SET enabled = false")  # only the loopback links in this process
        seed_loopback_inferior(conn, root, exchanged, settings)  # as `fleet up` seeds it: a subsidiary's vehicles
        platform_id = conn.execute("SELECT id FROM superior_platform WHERE name = %s", (LOOPBACK_NAME,)).fetchone()[0]  # type: ignore[index]
        inferior_id = conn.execute("SELECT id FROM inferior_platform WHERE name = %s", (LOOPBACK_NAME,)).fetchone()[0]  # type: ignore[index]
        conn.commit()
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**console_stack.env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.5",
           "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2", "FLEET_EXCHANGE_RECONNECT_MAX_S": "1",
           "FLEET_EXCHANGE_SUPERIOR_HOST": "127.0.0.1", "FLEET_EXCHANGE_SUPERIOR_PORT": str(settings.superior_port),
           "FLEET_EXCHANGE_DEMO_INFERIOR_DOWN_LINK_PORT": str(settings.demo_inferior_down_link_port)}
    service = ExchangeProcess(env, Path(tmp_path_factory.mktemp("exchange-video")) / "exchange.log")
    service.start()
    try:
        exchanged = wait_for(lambda: _one(db_url, "SELECT v.id FROM exchange_vehicle v JOIN inferior_platform p ON "
                                          "p.id = v.inferior_platform_id WHERE p.name = %s AND v.plate = %s",
                                          LOOPBACK_NAME, vehicle.plate), 90, "the camera vehicle exchanged", service)
        wait_for(lambda: _one(db_url, "SELECT authorize_reported_at FROM inferior_platform WHERE id = %s",
                              inferior_id), 60, "the loopback's authorisation codes (0x1701)", service)
        yield {"vehicle": vehicle, "exchanged": exchanged, "inferior_id": inferior_id, "service": service}
    finally:
        service.stop()
        with connect(db_url) as conn:
            conn.execute("DELETE FROM superior_platform WHERE id = %s", (platform_id,))
            conn.execute("DELETE FROM inferior_platform WHERE id = %s", (inferior_id,))
            conn.execute("UPDATE superior_platform SET enabled = true WHERE id = ANY(%s)", (enabled,))
            conn.commit()


def _open_dialog(page: Any, loopback: dict[str, Any]) -> Any:
    cars = page.get_by_test_id("list-page-exchangeCar")
    cars.get_by_test_id("list-filter-plate").fill(loopback["vehicle"].plate)
    cars.get_by_test_id("list-search").click()
    dialog = page.get_by_test_id("exchange-video-dialog")
    click_until(lambda: cars.get_by_test_id(f"row-video-{loopback['exchanged']}").click(), dialog)
    return dialog


def _close_and_see_the_stop(page: Any, db_url: str, loopback: dict[str, Any], request: int, stop: int) -> None:
    """Closing the dialog ends the request and sends the platform ``stop`` (0x9802 or 0x9A02)."""
    page.keyboard.press("Escape")
    wait_for(lambda: _one(db_url, "SELECT state FROM exchange_video_pull WHERE id = %s", request) == "ended", 30,
             "the request ended", loopback["service"])
    wait_for(lambda: _one(db_url, "SELECT count(*) FROM exchange_message WHERE inferior_platform_id = %s AND "
                          "direction = 'down' AND data_type = %s", loopback["inferior_id"], stop), 15,
             f"0x{stop:04X} sent", loopback["service"])
    assert page.errors == []


def test_an_operator_watches_an_inferior_platforms_vehicle_through_its_platform(
        page: Any, console_stack: ConsoleStack, loopback: dict[str, Any]) -> None:
    db_url = console_stack.db_url
    sign_in(page, PARENT.admin, path="/exchange/car")
    dialog = _open_dialog(page, loopback)
    dialog.get_by_test_id("exchange-video-request").click()
    player = dialog.get_by_test_id("live-player")
    player.wait_for(timeout=60_000)  # 0x9801 -> the terminal's 0x9101 -> 0x1801 -> our pull
    page.wait_for_function(FRAMES_OVER_JS, arg=10, timeout=30_000)  # decoded pictures, not only a <video>
    screenshot(page, "exchange-video-pull.png")
    request = _one(db_url, "SELECT id FROM exchange_video_pull WHERE vehicle_id = %s ORDER BY id DESC LIMIT 1",
                   loopback["exchanged"])
    with connect(db_url) as conn:
        state, result, stream, port = conn.execute(
            "SELECT state, result, stream_id, server_port FROM exchange_video_pull WHERE id = %s", (request,)).fetchone()  # type: ignore[misc]
        sent = conn.execute("SELECT m.decoded -> 'data' ->> 'authorize_code', p.authorize_code_1 FROM exchange_message m"
                            " JOIN inferior_platform p ON p.id = m.inferior_platform_id WHERE p.id = %s AND"
                            " m.direction = 'down' AND m.data_type = 38913 ORDER BY m.id DESC LIMIT 1",
                            (loopback["inferior_id"],)).fetchone()
    assert (state, result, stream, port) == ("playing", 0, f"exchange-{request}", console_stack.media_port)
    assert sent is not None and sent[0] == sent[1] and len(sent[0]) == 64  # 0x9801 carried the platform's code

    _close_and_see_the_stop(page, db_url, loopback, request, 0x9802)  # our stream goes, then 0x9802 goes down
    # the list of what was asked under the vehicles: this request, ended, with its RESULT
    page.reload()
    listed = page.get_by_test_id("list-page-inferiorVideoRequest").locator(f'tr[data-row-key="{request}"]')
    listed.wait_for()
    for shown in ("已结束", "实时", "0 成功", loopback["vehicle"].plate):
        assert shown in listed.inner_text(), shown


def test_an_operator_plays_back_a_recording_through_the_inferior_platform(
        page: Any, console_stack: ConsoleStack, loopback: dict[str, Any]) -> None:
    """The last 10 minutes of channel 2 (the dialog's default period): 0x9A01 -> the terminal's 0x9201 -> 0x1A01 ->
    our pull, played; closing ends it with 0x9A02 (control 2)."""
    db_url = console_stack.db_url
    sign_in(page, PARENT.admin, path="/exchange/car")
    dialog = _open_dialog(page, loopback)
    dialog.get_by_test_id("exchange-video-kind").get_by_text("录像回放").click()
    dialog.get_by_test_id("exchange-video-range").first.wait_for()  # the period's start and end
    dialog.get_by_test_id("exchange-video-channel").fill("2")
    dialog.get_by_test_id("exchange-video-request").click()
    dialog.get_by_test_id("live-player").wait_for(timeout=60_000)
    page.wait_for_function(FRAMES_OVER_JS, arg=10, timeout=30_000)
    with connect(db_url) as conn:
        request, kind, channel, state, period = conn.execute(
            "SELECT id, kind, channel, state, end_time - start_time FROM exchange_video_pull WHERE vehicle_id = %s"
            " ORDER BY id DESC LIMIT 1", (loopback["exchanged"],)).fetchone()  # type: ignore[misc]
    assert (kind, channel, state, period.total_seconds()) == ("playback", 2, "playing", 600)
    _close_and_see_the_stop(page, db_url, loopback, request, 0x9A02)


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_video_dialog_in_each_language(page: Any, console_stack: ConsoleStack, loopback: dict[str, Any],
                                           language: str) -> None:
    action, button, av, recording = TEXTS[language]
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, PARENT.admin, path="/exchange/car")
    row = page.get_by_test_id("list-page-exchangeCar").get_by_test_id(f"row-video-{loopback['exchanged']}")
    page.get_by_test_id("list-page-exchangeCar").get_by_test_id("list-filter-plate").fill(loopback["vehicle"].plate)
    page.get_by_test_id("list-page-exchangeCar").get_by_test_id("list-search").click()
    row.wait_for()
    assert row.inner_text().strip() == action
    dialog = _open_dialog(page, loopback)
    assert button in dialog.get_by_test_id("exchange-video-request").inner_text()
    assert av in dialog.inner_text() and loopback["vehicle"].plate in page.locator(".ant-modal-title").inner_text()
    assert recording in dialog.get_by_test_id("exchange-video-kind").inner_text()
    assert page.errors == []


def test_an_answer_naming_a_video_server_outside_the_platforms_is_refused(
        page: Any, console_stack: ConsoleStack, loopback: dict[str, Any]) -> None:
    """The platform's video servers, typed into its form as a network, leave out the address its link service answers
    (127.0.0.1): the 0x1801 naming it is not pulled (our media server fetches only what the platform was given), the
    request fails with the refused address shown, and the platform is told 0x9802."""
    db_url = console_stack.db_url
    inferior = loopback["inferior_id"]
    before = _one(db_url, "SELECT video_hosts FROM inferior_platform WHERE id = %s", inferior)
    sign_in(page, PARENT.admin, path="/exchange/inferiorPlatform")
    platforms = page.get_by_test_id("list-page-inferiorPlatform")
    platforms.get_by_test_id("list-filter-name").fill(LOOPBACK_NAME)
    platforms.get_by_test_id("list-search").click()
    drawer = page.get_by_test_id("record-drawer")
    click_until(lambda: platforms.get_by_test_id(f"row-edit-{inferior}").click(), drawer)
    hosts = drawer.get_by_test_id("record-field-videoHosts")
    assert "主链路" in drawer.inner_text()  # the field's help: empty means the main link's address
    assert hosts.inner_text().split() == before  # as seeded: the address its link service answers with
    for _ in before:
        hosts.locator(".ant-select-selection-item-remove").first.click()
    hosts.locator("input").fill("10.9.9.0/24")
    hosts.locator("input").press("Enter")
    screenshot(page, "exchange-inferior-video-hosts.png")
    stops = _one(db_url, "SELECT count(*) FROM exchange_message WHERE inferior_platform_id = %s AND direction = 'down'"
                 " AND data_type = %s", inferior, 0x9802)
    try:
        drawer.get_by_test_id("record-save").click()
        wait_for(lambda: _one(db_url, "SELECT video_hosts FROM inferior_platform WHERE id = %s", inferior)
                 == ["10.9.9.0/24"], 15, "the platform's video servers saved", loopback["service"])
        page.wait_for_timeout(1_500)  # the superior service re-reads its platforms every FLEET_EXCHANGE_RELOAD_S (1 s)
        page.goto("/exchange/car")
        dialog = _open_dialog(page, loopback)
        dialog.get_by_test_id("exchange-video-request").click()
        state = dialog.get_by_test_id("exchange-video-state")
        page.locator('[data-testid=exchange-video-state][data-state=failed]').wait_for(timeout=60_000)
        assert "127.0.0.1:" in state.inner_text() and "不在该平台的视频服务器地址内" in state.inner_text()
        with connect(db_url) as conn:
            row = conn.execute("SELECT state, result, error, server_ip, stream_id FROM exchange_video_pull WHERE"
                               " vehicle_id = %s ORDER BY id DESC LIMIT 1", (loopback["exchanged"],)).fetchone()
        assert row == ("failed", 0, "address_refused", "127.0.0.1", None)
        wait_for(lambda: _one(db_url, "SELECT count(*) FROM exchange_message WHERE inferior_platform_id = %s AND "
                              "direction = 'down' AND data_type = %s", inferior, 0x9802) > stops, 15,
                 "0x9802 sent for the refused answer", loopback["service"])
        page.keyboard.press("Escape")
        listed = page.get_by_test_id("list-page-inferiorVideoRequest")
        page.reload()
        refused = listed.locator("tr.ant-table-row", has_text="应答地址不在允许范围")
        refused.first.wait_for()
        assert "127.0.0.1:" in refused.first.inner_text()
        assert page.errors == []
    finally:
        with connect(db_url) as conn:
            conn.execute("UPDATE inferior_platform SET video_hosts = %s WHERE id = %s",
                         (Jsonb(before), inferior))
            conn.commit()
