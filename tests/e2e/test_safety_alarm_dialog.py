"""The real-time safety alarm dialog in Chromium (issue 9 §4, console-spec §2) against the live stack: a
terminal of the test's own enterprise sends a real 0x0200 with a 0x65 DSM item (one attachment) over TCP to
the stack's gateway; the streams worker stores the alarm, pushes 13 and asks the terminal for the
attachment with 0x9208; the dialog pops up for the enterprise's user with no photo yet; the terminal
uploads its JPEG and its MP4 clip to the stack's attachment server as a real one does (0x1210, 0x1211,
the data, 0x1212), and the dialog's slider shows that photo (the very bytes sent) and plays the clip; the alarm is handled, and the dashboard's
unhandled count goes down.

The enterprise is the test's own (the simulated fleet's alarms belong to the demo enterprises), so the
counts it reads are its own.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
import time
from datetime import UTC, datetime
from typing import Any

from fleet.phones import canonical_phone
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    Authentication,
    FrameReader,
    LocationReport,
    Message,
    TerminalResponse,
    decode_frame,
    encode_frame,
)
from protocols.jt808.messages import PlatformResponse
from simulator.attachments import UploadResult, upload
from simulator.camera import record_clip, take_photo
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot
from warehouse.db import connect
from warehouse.seed import DemoEnterprise, _admin_user, _enterprise, _role

# The worker stores and pushes within a second; the slack is for a loaded machine (never a sleep).
PUSH_TIMEOUT_MS = 45_000
DSM_FATIGUE = 1
TERMINAL_ID = "E2E9DSM"  # the alarm number's 7-character terminal id


def _own_enterprise(stack: ConsoleStack) -> dict[str, Any]:
    """A new enterprise with an administrator, a car and its terminal (phone + auth code)."""
    tag = secrets.token_hex(3)
    ent = DemoEnterprise(f"e2e9{tag}", f"报警测试企业{tag}", f"报警测试{tag}", f"alarm_e2e_{tag}", "Z")
    phone = canonical_phone(f"0177{secrets.randbelow(10**8):08d}")
    plate = f"京Z{tag[:5].upper()}"
    with connect(stack.db_url) as conn:
        enterprise_id = _enterprise(conn, ent, None)
        _admin_user(conn, ent, enterprise_id, _role(conn, enterprise_id))
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, plate_color, vin) VALUES (%s, %s, 2, %s)"
                           " RETURNING id", (enterprise_id, plate, f"VIN9E2E{tag}")).fetchone()
        device = conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, auth_code, car_id, protocol,"
            " protocol_version) VALUES (%s, %s, %s, %s, 'E2E9', %s, 'jt808', '2013') RETURNING id",
            (enterprise_id, phone, f"SIM9{tag}", f"报警终端{tag}", car[0] if car else None)).fetchone()
        assert car is not None and device is not None
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device[0], car[0]))
        conn.commit()
    return {"user": ent.admin, "enterprise_id": enterprise_id, "car_id": car[0], "device_id": device[0],
            "phone": phone, "plate": plate}


class Terminal:
    """A bare JT/T 808 terminal over a blocking socket (Playwright's sync API owns this thread's loop).
    Replies are matched by serial; the platform's commands (0x9208, ...) are kept in arrival order."""

    def __init__(self, port: int, phone: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.settimeout(PUSH_TIMEOUT_MS / 1000)  # a loaded machine's slack, never a sleep
        self.phone, self.seq, self.frames = phone, 0, FrameReader()
        self.inbox: list[Message] = []
        self.commands: list[Message] = []

    def send(self, msg_id: int, body: Any, seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        self.sock.sendall(encode_frame(msg_id, body, phone=self.phone, seq=seq, version="2013"))
        return seq

    def _next(self) -> Message:
        while not self.inbox:
            data = self.sock.recv(65536)
            assert data, "the gateway closed the connection"
            self.inbox.extend(decode_frame(f) for f in self.frames.feed(data) if isinstance(f, bytes))
        return self.inbox.pop(0)

    def reply_to(self, seq: int) -> PlatformResponse:
        """The platform's 0x8001 answering ``seq`` (commands that come first are kept for ``next_command``)."""
        while True:
            msg = self._next()
            if isinstance(msg.body, PlatformResponse):
                if msg.body.reply_seq == seq:
                    return msg.body
            else:
                self.commands.append(msg)

    def next_command(self) -> Message:
        while not self.commands:
            msg = self._next()
            if not isinstance(msg.body, PlatformResponse):
                self.commands.append(msg)
        return self.commands.pop(0)

    def answer(self, command: Message) -> None:
        self.send(0x0001, TerminalResponse(command.header.seq, command.header.msg_id, 0))

    def close(self) -> None:
        self.sock.close()


def _dsm_report(fix_at: datetime) -> LocationReport:
    lat, lng = 39.9087, 116.3975
    dsm = {"alarm_id": 1, "flag": 0, "type": DSM_FATIGUE, "level": 2, "fatigue_degree": 7, "speed_kmh": 56,
           "altitude_m": 50, "lat": lat, "lng": lng, "time": fix_at.isoformat(), "vehicle_status": 1,
           "alarm_no": AlarmNumber(TERMINAL_ID, fix_at, 0, 2).to_json()}  # a photo and a clip
    return LocationReport(0, 3, lat, lng, 50, 56.0, 90, fix_at, {"mileage_km": 100.0, "dsm_alarm": dsm})


def _upload_in_thread(request: AlarmAttachmentUploadRequest, files: list[tuple[str, int, bytes]],
                      phone: str) -> UploadResult:
    """What the terminal does after 0x9208: its own connection to the server the request names. In a
    thread of its own, since this thread's event loop is Playwright's."""
    outcome: list[UploadResult | BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(upload(request.server_ip, request.tcp_port, request, files, TERMINAL_ID,
                                              phone=phone)))
        except BaseException as exc:  # re-raised in the test's thread
            outcome.append(exc)

    thread = threading.Thread(target=run, name="attachment-upload")
    thread.start()
    thread.join(PUSH_TIMEOUT_MS / 1000)
    assert outcome, "the attachment upload did not finish"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _shown_photo_key(page: Any) -> str:
    """The object key (alt) of the dialog's photo, once the browser has decoded it."""
    page.wait_for_function("() => { const img = document.querySelector('[data-testid=safety-alarm-dialog] "
                           "[data-testid=media-photo]'); return img && img.complete && img.naturalWidth > 0; }",
                           timeout=PUSH_TIMEOUT_MS)
    return str(page.get_by_test_id("safety-alarm-dialog").get_by_test_id("media-photo").get_attribute("alt"))


def _watch_subscriptions(page: Any) -> list[str]:
    """The STOMP frames the page's live socket sends (SUBSCRIBE among them), from now on."""
    sent: list[str] = []

    def on_socket(socket: Any) -> None:
        socket.on("framesent", lambda payload: sent.append(
            payload if isinstance(payload, str) else bytes(payload).decode(errors="replace")))

    page.on("websocket", on_socket)
    return sent


def _wait_subscribed(page: Any, sent: list[str]) -> None:
    """Until the console has subscribed to its enterprise's messages (pushes 2 and 13): an alarm raised
    before would pop nothing, as on any console opened after it."""
    deadline = time.monotonic() + PUSH_TIMEOUT_MS / 1000
    while not any(frame.startswith("SUBSCRIBE") and "/message" in frame for frame in sent):
        assert time.monotonic() < deadline, f"the console never subscribed to its messages: {sent[:5]}"
        page.wait_for_timeout(100)  # lets Playwright deliver the socket's events


def _wait_unhandled(page: Any, value: int) -> None:
    """The dashboard's unhandled counter (updated live: push 2, handling) shows ``value``."""
    page.wait_for_function("(v) => document.querySelector('[data-testid=alarm-counter-unhandled]')"
                           "?.getAttribute('data-value') === v", arg=str(value), timeout=PUSH_TIMEOUT_MS)


def test_a_dsm_alarm_pops_the_dialog_with_its_photo_and_handling_it_leaves_the_unhandled_count(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = _own_enterprise(console_stack)
    frames = _watch_subscriptions(page)
    sign_in(page, fleet["user"], path="/dashboard/index")
    page.get_by_test_id("alarm-counters").wait_for()
    _wait_unhandled(page, 0)
    _wait_subscribed(page, frames)

    terminal = Terminal(console_stack.gateway_port, fleet["phone"])
    try:
        assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
        seq = terminal.send(0x0200, _dsm_report(datetime.now(UTC).replace(microsecond=0)))
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
        uploaded = _upload_in_thread(asked, [(name, 0, photo), (clip_name, 2, clip)], fleet["phone"])
        assert uploaded.files_done == [name, clip_name]
        assert _shown_photo_key(page) == key
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

        dialog.get_by_test_id("safety-alarm-handle").click()
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
