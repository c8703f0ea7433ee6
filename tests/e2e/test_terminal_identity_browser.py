"""Terminal identity in the console, in Chromium: the device form records the terminal id and IMEI the
gateway must see before the first registration; a re-registration held by the enterprise's policy
pops up with approve / refuse, which decide the request; the enterprise administrator edits the
registration policy.

The gateway side (a mismatch refused, a re-registration held until approved) is proved in
tests/integration/gateway/test_identity_stack.py; here the notice enters at console.events.v1."""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from tests.e2e.test_fleet_pages import _find
from tests.e2e.test_security_notice import _path_of
from warehouse.db import connect


def test_device_form_records_the_expected_terminal_id_and_imei(page: Any, console_stack: ConsoleStack) -> None:
    tag = secrets.token_hex(3).upper()
    phone = f"139{secrets.randbelow(10**8):08d}"
    sign_in(page, "admin_a", path="/list/device")
    page.get_by_test_id("list-page-device").wait_for()
    switch_language(page, "en-US")
    page.get_by_test_id("list-page-device").get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    drawer.get_by_text(text("en-US", "fleet", "device.fields.expectedImei")).first.wait_for()
    drawer.get_by_test_id("record-field-expectedImei").fill("86123")  # not 15 digits: refused on its field
    drawer.get_by_test_id("record-field-phone").fill(phone)
    drawer.get_by_test_id("record-field-deviceSn").fill(f"E2E{tag}")
    page.get_by_test_id("record-save").click()
    page.locator(".ant-form-item-explain-error").first.wait_for()
    assert drawer.is_visible()
    drawer.get_by_test_id("record-field-expectedImei").fill("861234567890123")
    drawer.get_by_test_id("record-field-expectedTerminalId").fill(f"T{tag}")
    screenshot(page, "device-expected-identity-en-US.png")
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    _find(page, "device", "phone", phone)
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT expected_terminal_id, expected_imei FROM device WHERE phone = %s",
                           (phone,)).fetchone()
    assert row == (f"T{tag}", "861234567890123")


def _pending_request(stack: ConsoleStack, vehicle: Vehicle) -> int:
    with connect(stack.db_url) as conn:
        conn.execute("UPDATE registration_request SET state = 'used' WHERE device_id = %s "
                     "AND state IN ('pending', 'approved')", (vehicle.device_id,))
        row = conn.execute(
            "INSERT INTO registration_request (enterprise_id, device_id, phone, terminal_id, manufacturer_id, "
            "terminal_model, peer) SELECT enterprise_id, id, phone, 'T1', 'FLEET', 'SIM-808', '10.7.7.7:1' "
            "FROM device WHERE id = %s RETURNING id", (vehicle.device_id,)).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0])


def _state(stack: ConsoleStack, request_id: int) -> str:
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT state FROM registration_request WHERE id = %s", (request_id,)).fetchone()
    assert row is not None
    return str(row[0])


def _held_notice(stack: ConsoleStack, vehicle: Vehicle, request_id: int, peer: str) -> bytes:
    path = _path_of(stack, vehicle)
    data = {"deviceId": vehicle.device_id, "carId": vehicle.car_id, "plateNumber": vehicle.plate,
            "phone": vehicle.phone, "event": "reregistration_pending", "message": "终端 (terminal)",
            "peer": peer, "replacedPeer": None, "requestId": request_id, "time": "2026-12-01T08:00:00Z"}
    event = {"kind": "push", "enterprise_id": int(path.strip("/").split("/")[-1]), "enterprise_path": path,
             "push": {"type": 15, "data": data}}
    return json.dumps(event, ensure_ascii=False).encode()


def _show(page: Any, producer: Any, value: bytes, peer: str, timeout_s: float = 20) -> Any:
    """Produces ``value`` every second until the notice naming ``peer`` shows (the socket subscribes after
    sign-in); returns that notice."""
    from fleet.topics import CONSOLE_EVENTS

    shown = page.get_by_test_id("security-notice").filter(has_text=peer)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        producer.send(CONSOLE_EVENTS, value)
        producer.flush()
        try:
            shown.first.wait_for(timeout=1000)
            return shown.first
        except Exception:  # playwright TimeoutError: not subscribed yet
            continue
    raise AssertionError("no security notice shown within the time limit")


def _wait_state(stack: ConsoleStack, request_id: int, state: str) -> None:
    deadline = time.monotonic() + 10
    while _state(stack, request_id) != state:
        assert time.monotonic() < deadline, _state(stack, request_id)
        time.sleep(0.2)


def test_held_re_registration_notice_approves_and_refuses_in_the_operators_language(
    page: Any, console_stack: ConsoleStack, kafka_bootstrap: str
) -> None:
    from kafka import KafkaProducer

    first, second = console_stack.of("a")[:2]
    approve_id, refuse_id = _pending_request(console_stack, first), _pending_request(console_stack, second)
    sign_in(page, "admin_a", path="/dashboard/index")
    page.wait_for_url(re.compile(r"/dashboard/index"))
    switch_language(page, "zh-CN")
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        notice = _show(page, producer, _held_notice(console_stack, first, approve_id, "10.6.6.6:1"), "10.6.6.6:1")
        assert first.plate in notice.inner_text()
        assert notice.inner_text().startswith(
            text("zh-CN", "layout", "security.reregistration_pending").split("{{")[0].strip())
        screenshot(page, "reregistration-notice-zh-CN.png")
        notice.get_by_test_id("registration-approve").click()
        notice.get_by_test_id("registration-decided").wait_for()
        assert notice.get_by_test_id("registration-decided").inner_text() == text("zh-CN", "layout", "security.approved")
        _wait_state(console_stack, approve_id, "approved")

        switch_language(page, "en-US")  # with the notice still open: it opens below the header
        notice = _show(page, producer, _held_notice(console_stack, second, refuse_id, "10.5.5.5:1"), "10.5.5.5:1")
        notice.get_by_test_id("registration-refuse").click()
        notice.get_by_test_id("registration-decided").wait_for()
        assert notice.get_by_test_id("registration-decided").inner_text() == text("en-US", "layout", "security.refused")
        _wait_state(console_stack, refuse_id, "refused")
    finally:
        producer.close()
        with connect(console_stack.db_url) as conn:  # leave the simulated terminals free to re-register
            conn.execute("UPDATE registration_request SET state = 'used' WHERE id = ANY(%s)", ([approve_id, refuse_id],))
            conn.commit()


def test_enterprise_administrator_sets_the_registration_policy(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, "admin_a", path="/settings/registrationPolicy")
    panel = page.get_by_test_id("registration-policy")
    panel.wait_for()
    switch_language(page, "zh-HK")
    panel.get_by_text(text("zh-HK", "fleet", "policy.approveReregistration")).wait_for()
    try:
        page.get_by_test_id("policy-approveReregistration").click()
        window = page.get_by_test_id("policy-approvalWindowMin")
        window.fill("30")
        page.get_by_test_id("registration-policy-save").click()
        page.get_by_text(text("zh-HK", "fleet", "policy.saved")).first.wait_for()
        screenshot(page, "registration-policy-zh-HK.png")
        with connect(console_stack.db_url) as conn:
            row = conn.execute(
                "SELECT p.require_imei, p.approve_reregistration, p.approval_window_min "
                "FROM enterprise_registration_policy p JOIN app_user u ON u.enterprise_id = p.enterprise_id "
                "WHERE u.user_name = 'admin_a'").fetchone()
        assert row == (False, True, 30)
    finally:  # the simulated fleet keeps today's behaviour for the other tests
        with connect(console_stack.db_url) as conn:
            conn.execute("DELETE FROM enterprise_registration_policy")
            conn.commit()
