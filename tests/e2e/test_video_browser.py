"""Live video and two-way talk in Debian's Chromium against the shared stack, whose
media server relays the simulated cameras (H.264 + AAC through Media Source Extensions):

- a vehicle's four channels open in a 4-window grid and all four advance (decoded frames > 0 and
  ``currentTime`` increasing), the same channel a second time is refused, the windows close with 9102;
- a talk session with Chromium's fake microphone (a 440 Hz tone file) reaches the simulated terminal,
  which writes what it heard to ``<phone>-ch<channel>.wav``: the tone is found there;
- the monitoring view (grid 60 %, map 40 % with the popup; removing the car stops its videos), playback of a
  recording found on the terminal and the video log, and listening from the map popup.

Screenshots of the grid and the talk dialog go to docs/screenshots/ with FLEET_SCREENSHOTS=1.
"""

from __future__ import annotations

import math
import re
import statistics
import struct
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fleet.settings import SimulatorSettings
from simulator.commands import NORMAL, behaviour_for
from tests.e2e.conftest import _FAILED, ConsoleStack, Vehicle
from tests.e2e.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    choose,
    new_console_context,
    offline,
    sign_in,
    trail_code_loads,
)
from tests.e2e.test_console import click_in_popup, screenshot
from warehouse.seed import terminal_has_video

TONE_HZ = 440
FAKE_MIC_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                 "--autoplay-policy=no-user-gesture-required"]

# What every <video> of the grid shows: decoded frames and the playing position.
PLAYERS_JS = """() => Array.from(document.querySelectorAll('[data-testid^=video-window-]')).map((w) => {
  const v = w.querySelector('video');
  return {key: w.dataset.key, status: w.dataset.status,
          frames: v ? v.getVideoPlaybackQuality().totalVideoFrames : 0, time: v ? v.currentTime : 0};
})"""


def _index(vehicle: Vehicle) -> int:
    return int(vehicle.phone) % 10**8


def camera_vehicles(stack: ConsoleStack) -> list[Vehicle]:
    """Vehicles whose simulated terminal has cameras and answers commands normally."""
    shares = SimulatorSettings()
    found = [v for v in stack.vehicles if terminal_has_video(_index(v))
             and behaviour_for(f"0138{_index(v):08d}", shares.unsupported_share, shares.silent_share) == NORMAL]
    assert len(found) >= 2, "the shared stack needs two answering vehicles with cameras"
    return found


def tone_wav(path: Path, seconds: float = 4.0, rate: int = 48000) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(struct.pack("<h", round(12000 * math.sin(2 * math.pi * TONE_HZ * n / rate)))
                                 for n in range(int(rate * seconds))))
    return path


def tone_strength(samples: list[int], rate: int = 8000, hz: float = TONE_HZ) -> float:
    """The share of the signal's power at ``hz`` (Goertzel): about 1 for a pure tone, near 0 for noise."""
    if not samples:
        return 0.0
    coeff = 2 * math.cos(2 * math.pi * hz / rate)
    s1 = s2 = 0.0
    for x in samples:
        s1, s2 = x + coeff * s1 - s2, s1
    power = s1 * s1 + s2 * s2 - coeff * s1 * s2
    total = sum(x * x for x in samples) * len(samples) / 2
    return power / total if total else 0.0


def tone_blocks(samples: list[int], block: int = 400, loud: int = 1000) -> list[float]:
    """``tone_strength`` of each loud 50 ms block (22 whole cycles of 440 Hz at 8 kHz).

    Measured over the whole recording, one phase jump (a capture buffer the browser dropped while the
    machine was busy) cancels part of the coherent sum, so a clean tone can score 0.4; block by block, a
    jump spoils one block and noise or a wrong tone still spoils them all."""
    chunks = (samples[i:i + block] for i in range(0, len(samples) - block + 1, block))
    return [tone_strength(c) for c in chunks if max(abs(x) for x in c) > loud]


@pytest.fixture(scope="module")
def media_browser(playwright: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium with a fake microphone playing a 440 Hz tone, and autoplay allowed (a second browser
    from the run's one Playwright driver)."""
    wav = tone_wav(tmp_path_factory.mktemp("fake-mic") / "tone.wav")
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                          args=[*CHROMIUM_ARGS, *FAKE_MIC_ARGS,
                                                f"--use-file-for-fake-audio-capture={wav}"])
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def video_page(media_browser: Any, console_stack: ConsoleStack, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = new_console_context(media_browser, base_url=console_stack.base_url,
                                  viewport={"width": 1440, "height": 900}, locale="zh-CN",
                                  timezone_id="Asia/Shanghai")
    context.grant_permissions(["microphone"], origin=console_stack.base_url)
    context.set_default_timeout(20_000)
    offline(context)
    page = context.new_page()
    errors: list[str] = []
    trail: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: trail.append(f"console.{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("response", lambda r: trail.append(f"{r.status} {r.request.method} {r.url.split('?')[0]}")
            if "/api/" in r.url or f":{console_stack.media_port}/" in r.url else None)
    trail_code_loads(page, trail)
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        if request.node.stash.get(_FAILED, False):
            print("--- page trail (last 60) ---\n" + "\n".join(trail[-60:]))
            print("--- page errors ---\n" + "\n".join(errors))
            try:
                print("--- notices ---\n" + page.evaluate("() => Array.from(document.querySelectorAll("
                                                         "'.ant-message-notice, [data-testid=talk-status]'), e => e.textContent).join('\\n')"))
            except Exception as exc:  # the page may be gone
                print(f"(no notices: {exc!r})")
            print("--- media server log ---\n" + (console_stack.logs / "media.log").read_text(errors="replace")[-3000:])
        context.close()


def open_monitor(page: Any, vehicle: Vehicle) -> None:
    sign_in(page, "admin", path="/dashboard/monitor")
    page.get_by_test_id("video-monitor").wait_for()
    page.get_by_test_id("channel-search").locator("input").fill(vehicle.plate)
    page.get_by_test_id(f"play-car-{vehicle.car_id}").wait_for()


def test_four_cameras_of_a_vehicle_play_and_advance_in_a_4_window_grid(video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicle = camera_vehicles(console_stack)[0]
    open_monitor(page, vehicle)
    page.get_by_test_id(f"play-car-{vehicle.car_id}").click()
    keys = [f"{vehicle.device_id}-{channel}" for channel in (1, 2, 3, 4)]
    page.wait_for_function("""(keys) => keys.every((k) => {
        const w = document.querySelector(`[data-key="${k}"]`);
        const v = w && w.querySelector('video');
        return v && v.getVideoPlaybackQuality().totalVideoFrames > 0;
    })""", arg=keys, timeout=30_000)
    first = {p["key"]: p for p in page.evaluate(PLAYERS_JS) if p["key"]}
    time.sleep(1.5)
    second = {p["key"]: p for p in page.evaluate(PLAYERS_JS) if p["key"]}
    for key in keys:
        assert second[key]["frames"] > first[key]["frames"] > 0, (key, first, second)
        assert second[key]["time"] > first[key]["time"], (key, first, second)
        assert second[key]["status"] == "playing"
    assert page.get_by_test_id("video-grid").get_attribute("data-layout") == "4"
    # push 14 (the media server: channel online) marks the channel in the tree
    page.locator(f"[data-testid=channel-node-ch_{vehicle.car_id}_{vehicle.device_id}_1][data-streaming='1']").wait_for()
    screenshot(page, "video-grid.png")

    # The same device and channel a second time is refused; the grid still plays four.
    page.get_by_test_id(f"channel-node-ch_{vehicle.car_id}_{vehicle.device_id}_1").click()
    page.get_by_text("该设备的此通道正在播放").first.wait_for()
    assert sum(1 for p in page.evaluate(PLAYERS_JS) if p["key"]) == 4

    # Closing stops the streams (9102) and clears the windows.
    with page.expect_response(lambda r: "/9102.json" in r.url) as stopped:
        page.get_by_test_id("grid-close-all").click()
    assert stopped.value.ok
    page.wait_for_function("() => !document.querySelector('[data-testid=live-player]')")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_talk_session_carries_the_microphone_to_the_terminal(video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicle = camera_vehicles(console_stack)[1]
    assert console_stack.talk_dir is not None
    open_monitor(page, vehicle)
    page.get_by_test_id(f"talk-car-{vehicle.car_id}").click()
    dialog = page.get_by_test_id("talk-dialog")
    dialog.wait_for()
    # The socket opens 5 s after the start command; then about 25 frames a second reach the server.
    page.wait_for_function("() => document.querySelector('[data-testid=talk-dialog]')?.dataset.status === 'talking'",
                           timeout=30_000)
    page.wait_for_function("() => Number(document.querySelector('[data-testid=talk-dialog]').dataset.frames) >= 50",
                           timeout=15_000)
    page.get_by_test_id("talk-status").filter(has_text="请您开始说话").wait_for()
    screenshot(page, "video-talk.png")
    page.get_by_test_id("talk-stop").click()
    page.wait_for_function("() => ['ended', 'stopping'].includes(document.querySelector('[data-testid=talk-dialog]')?.dataset.status)")

    phone = f"0138{_index(vehicle):08d}"
    wav_path = console_stack.talk_dir / f"{phone}-ch1.wav"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (wav_path.exists() and wav_path.stat().st_size > 44 + 16000):
        time.sleep(0.2)
    with wave.open(str(wav_path), "rb") as heard:
        assert heard.getframerate() == 8000 and heard.getnchannels() == 1
        raw = heard.readframes(heard.getnframes())
    samples = list(struct.unpack(f"<{len(raw) // 2}h", raw))
    assert len(samples) >= 8000, f"only {len(samples)} samples reached the terminal"
    loud = samples[len(samples) // 4:]  # past the start, where the fake microphone may still be silent
    blocks = tone_blocks(loud)
    assert len(blocks) >= 10, f"only {len(blocks)} loud 50 ms blocks reached the terminal"
    assert statistics.median(blocks) > 0.8, "the terminal heard something other than the microphone's 440 Hz tone"
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_monitoring_view_plays_a_vehicle_beside_its_popup_and_removing_it_stops_its_videos(
        video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicle = camera_vehicles(console_stack)[0]
    # The channel tree's request is held until the vehicle is picked: a vehicle picked before the tree arrived
    # plays as soon as it does (on a loaded machine the car list often came first and the pick played nothing).
    held: list[Any] = []
    tree = re.compile(r".*/api/common/query/carView\.json\?.*orderBy=masterDeviceState.*")
    page.route(tree, lambda route: held.append(route))
    sign_in(page, "admin", path="/dashboard/videoMap")
    page.get_by_test_id("video-map").wait_for()
    choose(page, page.get_by_test_id("monitor-cars"), vehicle.plate,
           picked=page.get_by_test_id(f"monitor-car-{vehicle.car_id}"))
    assert held, "the channel tree was asked for before the pick"
    for route in held:
        route.continue_()
    page.unroute(tree)
    page.wait_for_function("""(k) => {
        const v = document.querySelector(`[data-key="${k}"] video`);
        return v && v.getVideoPlaybackQuality().totalVideoFrames > 0;
    }""", arg=f"{vehicle.device_id}-1", timeout=30_000)
    page.wait_for_function("(id) => document.querySelector(`[data-testid=vehicle-popup][data-device-id='${id}']`)",
                           arg=vehicle.device_id)
    grid_box = page.get_by_test_id("video-map-grid").bounding_box()
    map_box = page.get_by_test_id("video-map-map").bounding_box()
    assert grid_box and map_box and 1.3 < grid_box["width"] / map_box["width"] < 1.6  # 60 % : 40 %
    screenshot(page, "video-map.png")
    with page.expect_response(lambda r: "/9102.json" in r.url):
        page.get_by_test_id(f"monitor-remove-{vehicle.car_id}").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=live-player]')")


def test_a_recording_is_found_on_the_terminal_and_played_back_and_the_video_log_lists_viewers(
        video_page: Any, console_stack: ConsoleStack) -> None:
    page = video_page
    vehicle = camera_vehicles(console_stack)[1]
    sign_in(page, "admin", path="/dashboard/playback")
    choose(page, page.get_by_test_id("playback-car"), vehicle.plate)
    page.get_by_test_id("playback-search").click()
    page.get_by_test_id("playback-play-0").wait_for(timeout=30_000)
    page.get_by_test_id("playback-play-0").click()
    page.wait_for_function("""() => {
        const v = document.querySelector('[data-testid=playback-player] video');
        return v && v.getVideoPlaybackQuality().totalVideoFrames > 0;
    }""", timeout=30_000)
    with page.expect_response(lambda r: "/9202.json" in r.url) as paused:
        page.get_by_test_id("playback-pause").click()
    assert paused.value.ok
    page.get_by_test_id("playback-resume").click()
    screenshot(page, "video-playback.png")
    with page.expect_response(lambda r: "/9202.json" in r.url):
        page.get_by_test_id("playback-stop").click()
    page.get_by_test_id("playback-player").wait_for(state="detached")

    page.goto("/log/videoLog")
    page.get_by_test_id("list-page-videoLog").wait_for()
    page.locator("[data-testid=list-table] .ant-table-row").first.wait_for()
    shown = page.get_by_test_id("list-table").inner_text()
    assert vehicle.plate in shown and "回放" in shown  # the playback just watched, by its plate and kind


def test_the_map_popup_listens_to_a_vehicle(video_page: Any, console_stack: ConsoleStack) -> None:
    """The popup's listen button (it once said "later release"): data type 3, the cab's audio plays."""
    from tests.e2e.test_commands_browser import _open_popup
    from tests.e2e.test_console import open_map, set_clustering

    page = video_page
    vehicle = camera_vehicles(console_stack)[0]
    open_map(page)
    set_clustering(page, False)
    popup = _open_popup(page, vehicle)
    # the dialog's frame shows at once, its player when the player's code is in
    click_in_popup(popup, "listen", page.locator(".ant-modal-title", has_text=f"对【{vehicle.plate}】进行语音监听"))
    page.get_by_test_id("video-dialog-listen").wait_for(timeout=60_000)
    with page.expect_response(lambda r: "/9101.json" in r.url) as started:
        page.get_by_test_id("listen-start").click()
    assert started.value.json()["data"]["kind"] == "listen"
    page.wait_for_function("""() => {
        const v = document.querySelector('[data-testid=video-dialog-listen] [data-testid=live-player]');
        return v && v.currentTime > 1;
    }""", timeout=30_000)
    with page.expect_response(lambda r: "/9102.json" in r.url):
        page.locator(".ant-modal-close").first.click()
