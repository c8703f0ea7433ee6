"""A terminal security notice (push type 15, docs/topics.md) pops up on whatever page the operator
has open, in the operator's language, and only for the operator's own enterprise tree.

The gateway and streams side (a takeover becomes this push) is proved in
tests/integration/gateway/test_takeover_stack.py; here the push enters at console.events.v1."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect


def _path_of(stack: ConsoleStack, vehicle: Vehicle) -> str:
    with connect(stack.db_url) as conn:
        row = conn.execute(
            "SELECT e.path FROM car c JOIN enterprise e ON e.id = c.enterprise_id WHERE c.id = %s", (vehicle.car_id,)
        ).fetchone()
    assert row is not None
    return str(row[0])


def _notice(stack: ConsoleStack, vehicle: Vehicle, peer: str, *, event: str = "session_replaced",
            message: str = "终端 (terminal)") -> bytes:
    path = _path_of(stack, vehicle)
    data = {
        "deviceId": vehicle.device_id, "carId": vehicle.car_id, "plateNumber": vehicle.plate,
        "phone": vehicle.phone, "event": event, "message": message, "peer": peer,
        "replacedPeer": "127.0.0.1:40001", "time": "2026-11-24T08:00:00Z",
    }
    event = {"kind": "push", "enterprise_id": int(path.strip("/").split("/")[-1]), "enterprise_path": path,
             "push": {"type": 15, "data": data}}
    return json.dumps(event, ensure_ascii=False).encode()


def _send_until_shown(page: Any, producer: Any, values: list[bytes], timeout_s: float = 20) -> Any:
    """Produces ``values`` every second until a notice shows (the socket subscribes after sign-in)."""
    from fleet.topics import CONSOLE_EVENTS

    shown = page.get_by_test_id("security-notice")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for value in values:
            producer.send(CONSOLE_EVENTS, value)
        producer.flush()
        try:
            shown.first.wait_for(timeout=1000)
            return shown
        except Exception:  # playwright TimeoutError: not subscribed yet
            continue
    raise AssertionError("no security notice shown within the time limit")


def test_security_notice_pops_up_for_own_enterprise_only_in_the_operators_language(
    page: Any, console_stack: ConsoleStack, kafka_bootstrap: str
) -> None:
    from kafka import KafkaProducer

    own, foreign = console_stack.of("a")[0], console_stack.of("b")[0]
    sign_in(page, "admin_a", path="/dashboard/index")
    page.wait_for_url(re.compile(r"/dashboard/index"))
    switch_language(page, "en-US")
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        # B's notice goes first in every round: if tenancy leaked, it would show before A's.
        shown = _send_until_shown(page, producer, [_notice(console_stack, foreign, "10.9.9.9:1"),
                                                   _notice(console_stack, own, "10.8.8.8:2")])
    finally:
        producer.close()
    notice = shown.first.inner_text()
    assert own.plate in notice and "10.8.8.8:2" in notice, notice
    assert notice.startswith(text("en-US", "layout", "security.session_replaced").split("{{")[0].strip())
    assert page.get_by_text(foreign.plate).count() == 0
    assert page.get_by_text("10.9.9.9:1").count() == 0
    page.get_by_text(text("en-US", "layout", "security.title")).first.wait_for()
    screenshot(page, "security-notice-en-US.png")


def test_a_notice_of_an_unknown_event_shows_its_text_in_the_operators_language(
    page: Any, console_stack: ConsoleStack, kafka_bootstrap: str
) -> None:
    """The push's message is the Chinese text, its localMessage the subscriber's language (as an error reply):
    the console shows the latter."""
    from kafka import KafkaProducer

    own = console_stack.of("a")[0]
    sign_in(page, "admin_a", path="/dashboard/index")
    page.wait_for_url(re.compile(r"/dashboard/index"))
    switch_language(page, "en-US")
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        shown = _send_until_shown(page, producer, [_notice(
            console_stack, own, "10.7.7.7:3", event="future_event",
            message="终端报告了新的安全事件 (the terminal reported a new kind of security event)")])
    finally:
        producer.close()
    notice = shown.first.inner_text()
    assert "the terminal reported a new kind of security event" in notice, notice
    assert "终端报告了新的安全事件" not in notice, notice
