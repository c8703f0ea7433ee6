"""The STOMP socket's Origin check in Chromium: the console served by the API opens
its live socket and gets CONNECTED, while a page of another origin (a tiny http.server on another
port) that opens ``ws://<api>/wss/stomp`` is refused before the upgrade."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import other_origin_page, sign_in

ATTACK_PAGE = """<!doctype html><title>another site</title><script>
window.__socket = 'pending';
const ws = new WebSocket('ws://127.0.0.1:%(api_port)d/wss/stomp', ['v12.stomp']);
ws.onopen = () => { window.__socket = 'open'; };
ws.onerror = () => { if (window.__socket === 'pending') window.__socket = 'refused'; };
</script>"""


@pytest.fixture
def other_origin(console_stack: ConsoleStack) -> Iterator[str]:
    """http://127.0.0.1:<another port>/, serving the page that opens the API's socket."""
    with other_origin_page((ATTACK_PAGE % {"api_port": console_stack.api.port}).encode()) as url:
        yield url


def test_the_console_socket_is_accepted_from_its_own_origin(page: Any) -> None:
    received: list[str] = []

    def on_socket(ws: Any) -> None:
        if ws.url.endswith("/wss/stomp"):
            ws.on("framereceived", lambda payload: received.append(str(payload)))

    page.on("websocket", on_socket)
    sign_in(page, "admin", path="/dashboard/map")
    page.get_by_test_id("live-map").wait_for()
    deadline = time.monotonic() + 15
    while not any(frame.startswith("CONNECTED") for frame in received) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert any(frame.startswith("CONNECTED") for frame in received), received


def test_a_page_of_another_origin_cannot_open_the_stomp_socket(page: Any, other_origin: str,
                                                              console_stack: ConsoleStack) -> None:
    handshakes: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _payload: handshakes.append(1)))
    page.goto(other_origin)
    page.wait_for_function("() => window.__socket !== 'pending'", timeout=10_000)
    assert page.evaluate("() => window.__socket") == "refused"
    assert handshakes == []  # not one frame came through
    assert "refusing a STOMP socket from origin" in console_stack.api.log_tail(200)
