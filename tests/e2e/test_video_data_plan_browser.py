"""Video that respects the SIM card's data plan, in Debian's Chromium against the shared stack:

- leaving the video page (another tab of the console: the page stays mounted, hidden) ends its streams
  once the grace passed, not before: the simulated terminal gets 0x9102 for each channel and answers it;
  coming back says why the windows are empty;
- a terminal that answers "unsupported" to 0x9101 makes each window say so instead of spinning;
- playback speeds: each rate offered plays, the terminal's answer shown as the player's state.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from fleet.settings import MediaServerSettings, SimulatorSettings
from simulator.commands import UNSUPPORTED, behaviour_for
from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import choose, sign_in
from tests.e2e.test_video_browser import _index, camera_vehicles, media_browser, open_monitor, video_page
from warehouse.seed import terminal_has_video

__all__ = ["media_browser", "video_page"]  # the fixtures this module's tests use

GRACE_S = MediaServerSettings().idle_stop_s  # the stack runs the default grace
STOP_9102 = 0x9102

# In-app navigation (react-router): the console keeps a tab's page mounted while another tab shows.
NAVIGATE_JS = "(path) => { window.history.pushState({}, '', path); window.dispatchEvent(new PopStateEvent('popstate')); }"


def _stops(console_stack: ConsoleStack, device_id: int, since: Any) -> list[tuple[int, str, int | None]]:
    """The 0x9102 commands of a device since ``since``: (channel, state, the terminal's result)."""
    with psycopg.connect(console_stack.db_url) as conn:
        rows = conn.execute("SELECT (payload->>'channelId')::int, state, result FROM command"
                            " WHERE device_id = %s AND msg_id = %s AND created_at > %s ORDER BY id",
                            (device_id, STOP_9102, since)).fetchall()
    return [(int(ch), str(state), result) for ch, state, result in rows]


def _db_now(console_stack: ConsoleStack) -> Any:
    with psycopg.connect(console_stack.db_url) as conn:
        return conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]


def test_leaving_the_video_page_ends_its_streams_after_the_grace_and_the_terminal_gets_0x9102(
        video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicles = camera_vehicles(console_stack)
    vehicle = vehicles[2] if len(vehicles) > 2 else vehicles[0]
    open_monitor(page, vehicle)
    page.get_by_test_id(f"play-car-{vehicle.car_id}").click()
    # the channels that play (on a loaded machine the media server may refuse some starts: 503)
    page.wait_for_function("""(prefix) => Array.from(document.querySelectorAll(`[data-key^="${prefix}"] video`))
        .some((v) => v.getVideoPlaybackQuality().totalVideoFrames > 0)""", arg=f"{vehicle.device_id}-", timeout=60_000)
    time.sleep(3)
    playing = sorted(int(k.split("-")[1]) for k in page.evaluate("""(prefix) => Array.from(
        document.querySelectorAll(`[data-key^="${prefix}"]`)).filter((w) => {
            const v = w.querySelector('video'); return v && v.getVideoPlaybackQuality().totalVideoFrames > 0; })
        .map((w) => w.dataset.key)""", f"{vehicle.device_id}-"))
    assert playing

    since = _db_now(console_stack)
    page.evaluate(NAVIGATE_JS, "/dashboard/index")  # another page of the console; the video page is hidden
    page.wait_for_function("() => document.querySelector('[data-testid=video-monitor]')?.offsetParent === null")
    left = time.monotonic()
    time.sleep(max(0.0, GRACE_S - 4))
    assert _stops(console_stack, vehicle.device_id, since) == [], "stopped before the grace"

    deadline = left + GRACE_S + 30
    stops: list[tuple[int, str, int | None]] = []
    while time.monotonic() < deadline:
        stops = _stops(console_stack, vehicle.device_id, since)
        if set(playing) <= {ch for ch, state, result in stops if state == "answered" and result == 0}:
            break
        time.sleep(0.5)
    answered = {ch for ch, state, result in stops if state == "answered" and result == 0}
    assert set(playing) <= answered, f"the terminal did not get and answer 0x9102 for each channel played: {stops}"
    assert time.monotonic() - left >= GRACE_S - 1

    page.evaluate(NAVIGATE_JS, "/dashboard/monitor")  # back: the windows are empty, and the page says why
    page.get_by_test_id("video-stopped-hidden").wait_for()
    assert page.locator("[data-testid=video-monitor] [data-testid=live-player]").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]


def _unsupported_camera(console_stack: ConsoleStack) -> Vehicle:
    shares = SimulatorSettings()
    found = [v for v in console_stack.vehicles if terminal_has_video(_index(v))
             and behaviour_for(f"0138{_index(v):08d}", shares.unsupported_share, shares.silent_share) == UNSUPPORTED]
    assert found, "the shared stack needs a vehicle with cameras whose terminal answers 'unsupported'"
    return found[0]


def test_a_terminal_answering_unsupported_makes_each_window_say_so_instead_of_spinning(
        video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicle = _unsupported_camera(console_stack)
    open_monitor(page, vehicle)
    page.get_by_test_id(f"play-car-{vehicle.car_id}").click()
    page.wait_for_function("""(prefix) => {
        const ws = Array.from(document.querySelectorAll(`[data-key^="${prefix}"]`));
        return ws.length === 4 && ws.every((w) => w.dataset.status === 'refused');
    }""", arg=f"{vehicle.device_id}-", timeout=30_000)
    refusals = page.locator("[data-testid^=window-refusal-]")
    assert refusals.count() == 4
    for i in range(4):
        assert refusals.nth(i).get_attribute("data-reason") == "unsupported"
        assert refusals.nth(i).inner_text() == "终端不支持该音视频请求"
    assert page.locator("[data-testid=video-grid] .fw-video-spinner").count() == 0
    assert page.locator("[data-testid=video-grid] [data-testid=live-player]").count() == 0


def test_each_playback_rate_is_taken_once_the_terminal_accepted_it_and_the_picture_goes_on(
        video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicles = camera_vehicles(console_stack)
    vehicle = vehicles[3] if len(vehicles) > 3 else vehicles[-1]
    sign_in(page, "admin", path="/dashboard/playback")
    choose(page, page.get_by_test_id("playback-car"), vehicle.plate)
    page.get_by_test_id("playback-search").click()
    page.get_by_test_id("playback-play-0").wait_for(timeout=30_000)
    page.get_by_test_id("playback-play-0").click()
    page.wait_for_function("""() => {
        const v = document.querySelector('[data-testid=playback-player] video');
        return v && v.getVideoPlaybackQuality().totalVideoFrames > 0;
    }""", timeout=30_000)
    state = page.get_by_test_id("playback-state")
    for rate in ("2", "1.5", "0.7", "1"):
        page.get_by_test_id("playback-speed").click()
        page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option",
                     has_text=f"{rate}x").first.click()
        page.wait_for_function("(rate) => { const s = document.querySelector('[data-testid=playback-state]');"
                               " return s && s.dataset.state === 'playing' && s.dataset.rate === rate; }",
                               arg=rate, timeout=40_000)
        assert state.inner_text() == f"{rate}倍速播放中"
        # the picture goes on at that rate (no freeze after the 0x9202)
        first = page.evaluate("() => document.querySelector('[data-testid=playback-player] video').currentTime")
        page.wait_for_function("([t0, rate]) => { const v = document.querySelector('[data-testid=playback-player] video');"
                               " return v && v.playbackRate === rate && v.currentTime > t0 + 1; }",
                               arg=[first, float(rate)], timeout=15_000)
    with psycopg.connect(console_stack.db_url) as conn:
        answered = conn.execute("SELECT payload->>'control', payload->>'speed', result FROM command"
                                " WHERE device_id = %s AND msg_id = %s AND state = 'answered' ORDER BY id",
                                (vehicle.device_id, 0x9202)).fetchall()
    assert [tuple(r) for r in answered][-4:] == [("3", "2", 0), ("3", "2", 0), ("0", "1", 0), ("0", "1", 0)]
    page.get_by_test_id("playback-stop").click()
