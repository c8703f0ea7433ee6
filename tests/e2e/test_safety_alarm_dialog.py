"""The real-time safety alarm dialog in Chromium (console-spec §2) against the live stack: a
terminal of the test's own enterprise sends a real 0x0200 with a 0x65 DSM item (one attachment) over TCP to
the stack's gateway; the streams worker stores the alarm, pushes 13 and asks the terminal for the
attachment with 0x9208; the dialog pops up for the enterprise's user with no photo yet; the terminal
uploads its JPEG and its MP4 clip to the stack's attachment server as a real one does (0x1210, 0x1211,
the data, 0x1212), and the dialog's slider shows that photo (the very bytes sent) and plays the clip; the alarm is handled, and the dashboard's
unhandled count goes down.

At several alarms a minute the dialog stays workable: alarms pushed after the operator closed it queue
on the header's badge without re-opening it, in the order they came (a push delivered twice keeps its
first place and counts once); a muted level counts without popping up; with a photo at
1600 x 900 the buttons stay in the viewport; at 390 x 844 (a phone) nothing is wider than the screen.

The enterprise is the test's own (the simulated fleet's alarms belong to the demo enterprises), so the
counts it reads are its own.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from protocols.jt808 import AlarmAttachmentUploadRequest, Authentication, LocationReport
from simulator.camera import record_clip, take_photo
from tests.e2e.conftest import ConsoleStack
from tests.e2e.safety_terminal import (
    DSM_FATIGUE,
    PUSH_TIMEOUT_MS,
    Terminal,
    dsm_report,
    own_enterprise,
    redeliver_push,
    shown_photo_key,
    upload_in_thread,
    wait_subscribed,
    watch_subscriptions,
)
from tests.e2e.support import sign_in
from tests.e2e.test_console import OPEN_DROPDOWN, screenshot
from warehouse.db import connect


def _wait_unhandled(page: Any, value: int) -> None:
    """The dashboard's unhandled counter (updated live: push 2, handling) shows ``value``."""
    page.wait_for_function("(v) => document.querySelector('[data-testid=alarm-counter-unhandled]')"
                           "?.getAttribute('data-value') === v", arg=str(value), timeout=PUSH_TIMEOUT_MS)


def test_a_dsm_alarm_pops_the_dialog_with_its_photo_and_handling_it_leaves_the_unhandled_count(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    frames = watch_subscriptions(page)
    sign_in(page, fleet["user"], path="/dashboard/index")
    page.get_by_test_id("alarm-counters").wait_for()
    _wait_unhandled(page, 0)
    wait_subscribed(page, frames)

    terminal = Terminal(console_stack.gateway_port, fleet["phone"])
    try:
        assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
        seq = terminal.send(0x0200, dsm_report(datetime.now(UTC).replace(microsecond=0)))
        assert terminal.reply_to(seq).result == 0

        dialog = page.get_by_test_id("safety-alarm-dialog")
        dialog.wait_for(timeout=PUSH_TIMEOUT_MS)
        page.get_by_text("实时安全报警").first.wait_for()
        assert dialog.get_by_test_id("safety-alarm-plate").inner_text() == fleet["plate"]
        assert dialog.get_by_test_id("safety-alarm-status").inner_text() == "处理状态：未处理"
        assert "疲劳" in dialog.get_by_test_id("safety-alarm-desc").inner_text()
        # the map beside the fields (height 300) with the vehicle's marker
        dialog.get_by_test_id("alarm-map").locator(".leaflet-marker-icon").first.wait_for()
        assert dialog.get_by_test_id("alarm-map").evaluate("(e) => e.offsetHeight") == 300  # layout, not the opening zoom
        page.wait_for_function("() => document.querySelector('[data-testid=safety-alarm-unhandled]')"
                               "?.textContent === '1'")
        alarm_id = int(dialog.get_attribute("data-alarm-id") or 0)
        with connect(console_stack.db_url) as conn:
            row = conn.execute("SELECT device_id, type, key, state FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
        assert row == (fleet["device_id"], 6, f"dsm_{DSM_FATIGUE}", 0)
        _wait_unhandled(page, 1)  # the dashboard behind the dialog counts it

        # The photo arrives after the alarm: the platform asks for it (0x9208 over the terminal's
        # connection), the terminal uploads it to the attachment server, the dialog shows it.
        dialog.get_by_test_id("alarm-no-attachment").wait_for()
        with connect(console_stack.db_url) as conn:
            found = conn.execute("SELECT warn_uuid, start_time FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
        assert found is not None
        warn_uuid, started = found
        request = terminal.next_command()
        assert request.header.msg_id == 0x9208, request
        terminal.answer(request)
        asked = request.body
        assert isinstance(asked, AlarmAttachmentUploadRequest)
        assert asked.tcp_port == console_stack.attachments_port
        assert len(asked.alarm_uuid) == 32 and asked.alarm_uuid != warn_uuid  # a one-time number, not the uuid
        name = f"00_65_6501_0_{warn_uuid}.jpg"
        key = f"/alarm/{fleet['enterprise_id']}/{started.astimezone(UTC):%Y%m%d}/{warn_uuid}/{name}"
        photo = take_photo(fleet["plate"], started, caption_ascii="DSM fatigue")
        # The bytes the API serves the page for the slider, relayed as they are (Chromium keeps no copy
        # of a body read as a blob, and the console's CSP keeps page scripts off blob: URLs).
        served: list[tuple[int, bytes]] = []

        def relay(route: Any) -> None:
            response = route.fetch()
            served.append((response.status, response.body()))
            route.fulfill(response=response)

        page.route(f"**/file{key}", relay)
        clip_name = f"02_65_6501_1_{warn_uuid}.mp4"
        clip = record_clip(fleet["plate"], started, caption_ascii="DSM fatigue")  # what the simulator sends
        uploaded = upload_in_thread(asked, [(name, 0, photo), (clip_name, 2, clip)], fleet["phone"])
        assert uploaded.files_done == [name, clip_name]
        assert shown_photo_key(page) == key
        assert served and served[-1] == (200, photo)
        # the clip is the slider's second slide, decoded by Chromium (H.264 in MP4)
        page.wait_for_function("() => document.querySelector('[data-testid=safety-alarm-dialog] "
                               "[data-testid=alarm-attachments]')?.getAttribute('data-count') === '2'")
        dialog.locator(".slick-dots li button").nth(1).click()  # the second dot: to the clip
        page.wait_for_function("() => { const v = document.querySelector('[data-testid=safety-alarm-dialog] "
                               "[data-testid=media-video]'); return v && v.readyState >= 2 && v.videoWidth === 352 "
                               "&& v.videoHeight === 288; }", timeout=PUSH_TIMEOUT_MS)
        screenshot(page, "safety-alarm-dialog-zh-CN.png")
        with connect(console_stack.db_url) as conn:
            atted = conn.execute("SELECT atted FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
        assert atted == (True,)

        page.get_by_test_id("safety-alarm-handle").click()
        form = page.get_by_test_id("handle-alarm-form")
        form.wait_for()
        page.get_by_test_id("handle-alarm-opinion").fill("已联系司机休息")
        page.locator(".ant-modal", has=form).locator(".ant-modal-footer .ant-btn-primary").click()
        page.get_by_text("保存成功！").first.wait_for()
        dialog.wait_for(state="detached", timeout=PUSH_TIMEOUT_MS)
    finally:
        terminal.close()

    with connect(console_stack.db_url) as conn:
        handled = conn.execute("SELECT state, opinion, confirm_name FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
    assert handled is not None
    state, opinion, confirm_name = handled
    assert (state, opinion) == (2, "已联系司机休息") and confirm_name
    _wait_unhandled(page, 0)

    # The bell's "view all" is a screen now (it was a 404): the notices, here none left unhandled.
    page.goto("/setting/notify/List")
    page.get_by_test_id("notify-list").wait_for()
    assert page.get_by_test_id("exception-404").count() == 0


# --- workable at several alarms a minute ----------------------------------------------------------

# A worker that has just joined its consumer group (the first test of a session) stores late.
STORE_TIMEOUT_S = 120
DIALOG_CLOSE = ".ant-modal:has([data-testid=safety-alarm-dialog]) .ant-modal-close"
DIALOG_WRAP = ".ant-modal-wrap:has([data-testid=safety-alarm-dialog])"
BUTTONS = ("safety-alarm-talk", "safety-alarm-tts", "safety-alarm-handle", "safety-alarm-ignore",
           "safety-alarm-details", "safety-alarm-previous", "safety-alarm-next")
# Elements (of the dialog, or of the page) reaching past the viewport's sides, as far as their scrolling or clipping
# ancestors let them show (the map's tiles and the slider's track are wider than their frames by design).
WIDER_THAN_VIEWPORT = """(wrapSelector) => {
  const root = document.querySelector(wrapSelector);
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let left = box.left, right = box.right;
    for (let up = el.parentElement; up && up !== root; up = up.parentElement) {
      if (getComputedStyle(up).overflowX === 'visible') continue;
      const frame = up.getBoundingClientRect();
      left = Math.max(left, frame.left);
      right = Math.min(right, frame.right);
    }
    if (right > left && (left < -1 || right > width + 1)) {
      out.push(`${el.tagName}.${String(el.className).slice(0, 40)} ${Math.round(left)}..${Math.round(right)}`);
    }
  }
  return out.slice(0, 10);
}"""

def _start(page: Any, stack: ConsoleStack, viewport: dict[str, int] | None = None) -> tuple[dict[str, Any], Terminal]:
    """The test's own enterprise signed in on the dashboard (subscribed to its pushes) and its terminal
    authenticated."""
    fleet = own_enterprise(stack)
    if viewport:
        page.set_viewport_size(viewport)
    frames = watch_subscriptions(page)
    sign_in(page, fleet["user"], path="/dashboard/index")
    wait_subscribed(page, frames)
    terminal = Terminal(stack.gateway_port, fleet["phone"])
    assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
    _wait_push_path(page, terminal)
    return fleet, terminal


def _wait_push_path(page: Any, terminal: Terminal) -> None:
    """Until the API relays the enterprise's pushes to the page: it positions its push consumer on a
    first subscription (bounded), and an alarm pushed before that is lost (the first test of a session).
    An emergency alarm (terminal bit 0: a push-2 notice, neither the safety dialog nor its queue) rises
    and falls again every few seconds until its notice shows."""
    deadline = time.monotonic() + STORE_TIMEOUT_S
    while True:
        for flags in (1, 0):
            at = terminal.next_fix_at()
            report = LocationReport(flags, 3, 39.9087, 116.3975, 50, 56.0, 90, at, {"mileage_km": 100.0})
            assert terminal.reply_to(terminal.send(0x0200, report)).result == 0
        try:
            page.locator("[data-testid=alarm-notice][data-key=a0]").first.wait_for(timeout=5_000)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, "the API never relayed a push to the page"


def _raise(stack: ConsoleStack, fleet: dict[str, Any], terminal: Terminal, dsm_type: int, level: int,
           attachments: int = 0) -> int:
    """A DSM alarm sent by the terminal, its id once the worker has stored it (a worker that has just
    joined its consumer group may take longer than a push; polled, never slept)."""
    at = terminal.next_fix_at()
    seq = terminal.send(0x0200, dsm_report(at, dsm_type, level, attachments))
    assert terminal.reply_to(seq).result == 0
    deadline = time.monotonic() + STORE_TIMEOUT_S
    while True:
        with connect(stack.db_url) as conn:
            row = conn.execute("SELECT id FROM alarm WHERE device_id = %s AND key = %s AND start_time = %s",
                               (fleet["device_id"], f"dsm_{dsm_type}", at)).fetchone()
        if row is not None:
            return int(row[0])
        assert time.monotonic() < deadline, f"the worker did not store the alarm dsm_{dsm_type} at {at}"
        time.sleep(0.1)  # polling the database


def _wait_notice(page: Any, key: str) -> None:
    """The push-2 notice of the alarm of ``key`` (its push 13 is sent with it)."""
    page.locator(f"[data-testid=alarm-notice][data-key={key}]").first.wait_for(timeout=PUSH_TIMEOUT_MS)


def _wait_queued(page: Any, count: int) -> None:
    page.wait_for_function("(n) => document.querySelector('[data-testid=safety-queue-badge]')"
                           "?.getAttribute('data-count') === n", arg=str(count), timeout=PUSH_TIMEOUT_MS)


# The dialog as the operator sees it: showing the alarm and done opening. antd renders its content at once,
# transparent, then zooms it in from the last click (the badge, at the screen's other side): a click
# before that ends may press a button that has moved away by the time it is released, and is lost.
SHOWN = """(id) => {
  const content = document.querySelector('[data-testid=safety-alarm-dialog]');
  const modal = content && content.closest('.ant-modal');
  return !!modal && content.getAttribute('data-alarm-id') === id && !/(^|\\s)ant-zoom-/.test(modal.className)
    && getComputedStyle(modal).opacity === '1';
}"""


def _wait_shown(page: Any, alarm_id: int) -> None:
    """Until the dialog shows the alarm ``alarm_id``, done opening (its buttons where they stay)."""
    page.wait_for_function(SHOWN, arg=str(alarm_id), timeout=PUSH_TIMEOUT_MS)


def _raise_with_photo(page: Any, stack: ConsoleStack, fleet: dict[str, Any], terminal: Terminal) -> None:
    """A DSM alarm whose photo the terminal uploads after 0x9208, until the dialog shows it."""
    alarm_id = _raise(stack, fleet, terminal, DSM_FATIGUE, 2, attachments=1)
    _wait_shown(page, alarm_id)
    with connect(stack.db_url) as conn:
        found = conn.execute("SELECT warn_uuid, start_time FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
    assert found is not None
    warn_uuid, started = found
    request = terminal.next_command()
    assert request.header.msg_id == 0x9208, request
    terminal.answer(request)
    assert isinstance(request.body, AlarmAttachmentUploadRequest)
    name = f"00_65_6501_0_{warn_uuid}.jpg"
    photo = take_photo(fleet["plate"], started, caption_ascii="DSM fatigue")
    assert upload_in_thread(request.body, [(name, 0, photo)], fleet["phone"]).files_done == [name]
    shown_photo_key(page)
    page.get_by_test_id("safety-alarm-next").wait_for()  # the car's counts are in: every button shows


def _buttons_out_of_reach(page: Any) -> list[str]:
    """The dialog's buttons not wholly inside the viewport, or covered at their centre (by a notice)."""
    size = page.viewport_size
    problems = []
    for test_id in BUTTONS:
        button = page.get_by_test_id(test_id)
        box = button.bounding_box()
        assert box is not None, test_id
        if box["x"] < 0 or box["y"] < 0 or box["x"] + box["width"] > size["width"] \
                or box["y"] + box["height"] > size["height"]:
            problems.append(f"{test_id} outside at {box}")
        elif not button.evaluate("(b) => { const r = b.getBoundingClientRect();"
                                 " return b.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }"):
            problems.append(f"{test_id} covered")
    return problems


def test_alarms_pushed_after_closing_queue_on_the_badge_without_reopening_the_dialog(
        page: Any, console_stack: ConsoleStack, kafka_bootstrap: str) -> None:
    fleet, terminal = _start(page, console_stack)
    dialog = page.get_by_test_id("safety-alarm-dialog")
    ids = []
    try:
        started = datetime.now(UTC)
        ids.append(_raise(console_stack, fleet, terminal, 1, 1))
        _wait_shown(page, ids[0])
        page.locator(DIALOG_CLOSE).click()
        dialog.wait_for(state="hidden")
        for count, dsm_type in enumerate((2, 3, 4), start=2):
            if dsm_type == 4:
                # Pushes are delivered at least once: the second alarm's push 13 comes again (before the
                # fourth's, on the same partition). It is the same alarm: no new count, no new place.
                redeliver_push(kafka_bootstrap, ids[1], 13, started)
            ids.append(_raise(console_stack, fleet, terminal, dsm_type, 1))
            _wait_notice(page, f"dsm_{dsm_type}")
            _wait_queued(page, count)
            assert dialog.is_hidden(), f"the dialog re-opened on the alarm number {count}"
    finally:
        terminal.close()

    # The badge opens the queue on its newest alarm; the operator steps to older ones, in the order they
    # came (the re-delivered one where it first came), down to the oldest.
    page.get_by_test_id("safety-queue-badge").click()
    _wait_shown(page, ids[-1])
    position = page.get_by_test_id("safety-queue-position")
    assert position.inner_text() == "队列第 1 / 4 条（最新在前）"
    for place, alarm_id in enumerate(reversed(ids[:-1]), start=2):
        page.get_by_test_id("safety-queue-older").click()
        page.wait_for_function("(p) => document.querySelector('[data-testid=safety-queue]')"
                               "?.getAttribute('data-place') === p", arg=str(place - 1))
        shown = dialog.get_attribute("data-alarm-id")
        assert shown == str(alarm_id), f"place {place} of the queue shows the alarm {shown}, not {alarm_id} (came {ids})"
        _wait_shown(page, alarm_id)
        assert position.inner_text() == f"队列第 {place} / 4 条（最新在前）", f"the alarm {alarm_id}"
        if place == 2:
            page.get_by_test_id("alarm-map").locator(".leaflet-marker-icon").first.wait_for()
            screenshot(page, "safety-alarm-queue-zh-CN.png")
    assert page.get_by_test_id("safety-queue-older").is_disabled()  # the oldest: nothing older
    assert page.get_by_test_id("safety-queue-badge").get_attribute("data-count") == "4"


def test_a_muted_level_counts_on_the_badge_but_does_not_pop_the_dialog_up(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet, terminal = _start(page, console_stack)
    dialog = page.get_by_test_id("safety-alarm-dialog")
    try:
        _wait_shown(page, _raise(console_stack, fleet, terminal, 1, 2))
        page.get_by_test_id("safety-mute").click()
        item = page.locator(OPEN_DROPDOWN).get_by_test_id("safety-mute-level-5")
        item.wait_for()
        item.dispatch_event("click")  # the menu may still be sliding in (a click there can miss); the click is what matters
        page.get_by_text("已静音 5 分钟：二级").first.wait_for()
        page.get_by_test_id("safety-alarm-ignore").click()  # the queue empties: the next alarm may pop up
        dialog.wait_for(state="hidden", timeout=PUSH_TIMEOUT_MS)

        _raise(console_stack, fleet, terminal, 2, 2)  # level 2: muted
        _wait_notice(page, "dsm_2")
        _wait_queued(page, 1)
        assert dialog.is_hidden(), "a muted level popped the dialog up"

        _wait_shown(page, _raise(console_stack, fleet, terminal, 3, 1))  # level 1
        _wait_queued(page, 2)
    finally:
        terminal.close()
    kept = page.evaluate("() => Object.keys(localStorage).filter((k) => k.startsWith('fleetwatch.safetyMutes.'))")
    assert len(kept) == 1, kept  # in the browser, under the user


def test_with_a_photo_at_1600x900_the_dialog_buttons_stay_in_the_viewport(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet, terminal = _start(page, console_stack, {"width": 1600, "height": 900})
    try:
        _raise_with_photo(page, console_stack, fleet, terminal)
    finally:
        terminal.close()
    assert _buttons_out_of_reach(page) == []
    # the content scrolls between the fixed header and footer
    body = page.locator(f"{DIALOG_WRAP} .ant-modal-body")
    assert body.evaluate("(e) => getComputedStyle(e).overflowY") == "auto"


def test_on_a_390_px_phone_the_dialog_fits_the_screen(page: Any, console_stack: ConsoleStack) -> None:
    fleet, terminal = _start(page, console_stack, {"width": 390, "height": 844})
    try:
        _raise_with_photo(page, console_stack, fleet, terminal)
    finally:
        terminal.close()
    assert _buttons_out_of_reach(page) == []
    assert page.evaluate(WIDER_THAN_VIEWPORT, DIALOG_WRAP) == []
    assert page.locator(DIALOG_WRAP).evaluate("(e) => e.scrollWidth <= e.clientWidth")  # no sideways scroll
    assert page.evaluate(WIDER_THAN_VIEWPORT, "body") == []  # the page behind, its header and badge included
    screenshot(page, "safety-alarm-dialog-phone-zh-CN.png")
