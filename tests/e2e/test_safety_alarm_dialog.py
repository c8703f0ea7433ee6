"""The real-time safety alarm dialog in Chromium (issue 9 §4, console-spec §2) against the live stack: a
terminal of the test's own enterprise sends a real 0x0200 with a 0x65 DSM item over TCP to the stack's
gateway; the streams worker stores the alarm and pushes 13; the dialog pops up for the enterprise's user,
shows the photo attached to the alarm, is handled, and the dashboard's unhandled count goes down.

The enterprise is the test's own (the simulated fleet's alarms belong to the demo enterprises), so the
counts it reads are its own. The attachment is stored as the attachment server's step stores one (a
media-store object + a device_upload_file row with alarm_id, alarm.atted set).
"""

from __future__ import annotations

import hashlib
import secrets
import socket
from datetime import UTC, datetime
from typing import Any

from fleet.media_store import LocalMediaStore
from fleet.phones import canonical_phone
from protocols.jt808 import (
    AlarmNumber,
    Authentication,
    FrameReader,
    LocationReport,
    decode_frame,
    encode_frame,
)
from protocols.jt808.messages import PlatformResponse
from simulator.camera import take_photo
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.db import connect
from warehouse.seed import DemoEnterprise, _admin_user, _enterprise, _role

# The worker stores and pushes within a second; the slack is for a loaded machine (never a sleep).
PUSH_TIMEOUT_MS = 45_000
DSM_FATIGUE = 1


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
    """A bare JT/T 808 terminal over a blocking socket (Playwright's sync API owns this thread's loop)."""

    def __init__(self, port: int, phone: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.phone, self.seq, self.frames = phone, 0, FrameReader()
        self.inbox: list[Any] = []

    def send(self, msg_id: int, body: Any) -> int:
        self.seq += 1
        self.sock.sendall(encode_frame(msg_id, body, phone=self.phone, seq=self.seq, version="2013"))
        return self.seq

    def reply_to(self, seq: int) -> PlatformResponse:
        """The platform's 0x8001 answering ``seq`` (other downlinks, e.g. 0x9208, are skipped)."""
        while True:
            while not self.inbox:
                data = self.sock.recv(65536)
                assert data, "the gateway closed the connection"
                self.inbox.extend(decode_frame(f).body for f in self.frames.feed(data) if isinstance(f, bytes))
            body = self.inbox.pop(0)
            if isinstance(body, PlatformResponse) and body.reply_seq == seq:
                return body

    def close(self) -> None:
        self.sock.close()


def _dsm_report(fix_at: datetime) -> LocationReport:
    lat, lng = 39.9087, 116.3975
    dsm = {"alarm_id": 1, "flag": 0, "type": DSM_FATIGUE, "level": 2, "fatigue_degree": 7, "speed_kmh": 56,
           "altitude_m": 50, "lat": lat, "lng": lng, "time": fix_at.isoformat(), "vehicle_status": 1,
           "alarm_no": AlarmNumber("E2E9DSM", fix_at, 0, 1).to_json()}
    return LocationReport(0, 3, lat, lng, 50, 56.0, 90, fix_at, {"mileage_km": 100.0, "dsm_alarm": dsm})


def _attach_photo(stack: ConsoleStack, fleet: dict[str, Any], alarm_id: int) -> None:
    """What streams/alarm_files.py writes for an uploaded attachment: the file, its row, alarm.atted."""
    with connect(stack.db_url) as conn:
        found = conn.execute("SELECT warn_uuid FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
        assert found is not None
        warn_uuid = found[0] or ""
        data = take_photo(fleet["plate"], datetime.now(UTC), caption_ascii="DSM fatigue")
        key = f"/alarm/{fleet['enterprise_id']}/{datetime.now(UTC):%Y%m%d}/{warn_uuid or alarm_id}/00_65_6501_0.jpg"
        stored = LocalMediaStore(stack.logs / "media").put(key, data)
        conn.execute(
            "INSERT INTO device_upload_file (object_key, resource_type, file_store_type, enterprise_id, device_id,"
            " car_id, media_id, media_type, media_format, event_code, channel, size, sha256, alarm_id, warn_uuid,"
            " file_name) VALUES (%s, 1, 1, %s, %s, %s, %s, 0, 0, 0, 1, %s, %s, %s, %s, %s)",
            (stored.key, fleet["enterprise_id"], fleet["device_id"],
             fleet["car_id"], alarm_id, len(data), hashlib.sha256(data).hexdigest(), alarm_id, warn_uuid,
             "00_65_6501_0.jpg"))
        conn.execute("UPDATE alarm SET atted = true WHERE id = %s", (alarm_id,))
        conn.commit()


def _wait_unhandled(page: Any, value: int) -> None:
    """The dashboard's unhandled counter (updated live: push 2, handling) shows ``value``."""
    page.wait_for_function("(v) => document.querySelector('[data-testid=alarm-counter-unhandled]')"
                           "?.getAttribute('data-value') === v", arg=str(value), timeout=PUSH_TIMEOUT_MS)


def test_a_dsm_alarm_pops_the_dialog_with_its_photo_and_handling_it_leaves_the_unhandled_count(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = _own_enterprise(console_stack)
    sign_in(page, fleet["user"], path="/dashboard/index")
    page.get_by_test_id("alarm-counters").wait_for()
    _wait_unhandled(page, 0)

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
        page.wait_for_function("() => document.querySelector('[data-testid=safety-alarm-unhandled]')"
                               "?.textContent === '1'")
        alarm_id = int(dialog.get_attribute("data-alarm-id") or 0)
        with connect(console_stack.db_url) as conn:
            row = conn.execute("SELECT device_id, type, key, state FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
        assert row == (fleet["device_id"], 6, f"dsm_{DSM_FATIGUE}", 0)
        _wait_unhandled(page, 1)  # the dashboard behind the dialog counts it

        # The photo arrives after the alarm (as an upload through the attachment server would).
        _attach_photo(console_stack, fleet, alarm_id)
        photo = dialog.get_by_test_id("media-photo").first
        photo.wait_for(timeout=PUSH_TIMEOUT_MS)
        page.wait_for_function("() => { const img = document.querySelector('[data-testid=safety-alarm-dialog] "
                               "[data-testid=media-photo]'); return img && img.naturalWidth > 0; }")

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
