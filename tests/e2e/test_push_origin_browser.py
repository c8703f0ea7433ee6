"""The push socket in Chromium: the console served by the API opens its live socket (SockJS at
/wss/stomp, console-spec §7), gets CONNECTED and shows an alarm pushed to its enterprise, while a page of another origin (a tiny http.server on another
port) that opens ``ws://<api>/wss/stomp`` is refused before the upgrade. And what the console sends under the
authorization protocols 1 and 2 (console-spec §7 "General"), each on an API of the same stack configured so."""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import ConsoleStack
from tests.e2e.safety_terminal import own_enterprise
from tests.e2e.support import (
    ApiProcess,
    is_live_socket,
    new_console_context,
    other_origin_page,
    sign_in,
    stomp_frames,
)
from warehouse.seed import DEMO_PASSWORD

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


def _alarm_push(fleet: dict[str, Any], alarm_id: int) -> bytes:
    """A push 2 (docs/topics.md) of an emergency alarm (key a0) on the enterprise's car."""
    data = {"alarmId": alarm_id, "deviceId": fleet["device_id"], "carId": fleet["car_id"],
            "plateNumber": fleet["plate"], "type": 1, "key": "a0", "ruleKey": "a0", "level": 1,
            "desc": "紧急报警", "startTime": int(time.time() * 1000), "lat": 39.9087, "lng": 116.3975,
            "speed": 50, "state": 0}
    event = {"kind": "push", "enterprise_id": fleet["enterprise_id"],
             "enterprise_path": f"/{fleet['enterprise_id']}/", "push": {"type": 2, "data": data}}
    return json.dumps(event, ensure_ascii=False).encode()


def test_the_console_receives_an_alarm_push_over_sockjs_from_its_own_origin(
        page: Any, console_stack: ConsoleStack, kafka_bootstrap: str) -> None:
    """console-spec §7: SockJS/STOMP at /wss/stomp. The console signs in, opens SockJS's websocket
    transport (open frame, STOMP inside a["..."]), gets CONNECTED, and an alarm push reaches its notice."""
    from kafka import KafkaProducer

    from fleet.topics import CONSOLE_EVENTS

    raw: list[str] = []
    received: list[str] = []
    urls: list[str] = []

    def on_frame(payload: Any) -> None:
        raw.append(str(payload))
        received.extend(stomp_frames(payload))

    def on_socket(ws: Any) -> None:
        urls.append(ws.url)
        if is_live_socket(ws.url):
            ws.on("framereceived", on_frame)

    fleet = own_enterprise(console_stack)
    page.on("websocket", on_socket)
    sign_in(page, fleet["user"], path="/dashboard/index")
    deadline = time.monotonic() + 15
    while not any(frame.startswith("CONNECTED") for frame in received) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert any(frame.startswith("CONNECTED") for frame in received), (urls, raw[:5])
    assert raw[0] == "o"  # SockJS's open frame, then STOMP inside a["..."]
    assert not any(url.endswith("/wss/stomp") for url in urls)  # the console speaks SockJS, not the plain socket
    alarm_id = 900_000_000 + secrets.randbelow(10**8)
    notice = page.locator(f"[data-testid=alarm-notice][data-alarm-id='{alarm_id}']")
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    try:
        deadline = time.monotonic() + 30
        while True:  # the API positions its push consumer on the first subscription: produce until shown
            producer.send(CONSOLE_EVENTS, _alarm_push(fleet, alarm_id), key=str(fleet["enterprise_id"]).encode())
            producer.flush()
            try:
                notice.first.wait_for(timeout=1000)
                break
            except PlaywrightTimeout:
                assert time.monotonic() < deadline, f"no alarm notice within 30 s: {received[-3:]}"
    finally:
        producer.close()
    assert notice.first.get_attribute("data-key") == "a0"
    assert any(frame.startswith("MESSAGE") and f'"alarmId":{alarm_id}' in frame.replace(" ", "")
               for frame in received)


def test_a_page_of_another_origin_cannot_open_the_stomp_socket(page: Any, other_origin: str,
                                                              console_stack: ConsoleStack) -> None:
    handshakes: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _payload: handshakes.append(1)))
    page.goto(other_origin)
    page.wait_for_function("() => window.__socket !== 'pending'", timeout=10_000)
    assert page.evaluate("() => window.__socket") == "refused"
    assert handshakes == []  # not one frame came through
    assert "refusing a STOMP socket from origin" in console_stack.api.log_tail(200)


@contextmanager
def _api_of_the_stack(console_stack: ConsoleStack, free_port: Callable[[], int], log_file: Path,
                      **settings: str) -> Iterator[ApiProcess]:
    """Another API of the same stack (database, Kafka, media store) with ``settings`` changed, for this block."""
    api = ApiProcess({**console_stack.api.env, **settings}, free_port(), log_file)
    try:
        api.start()
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{api.log_tail(30)}") from None
    try:
        yield api
    finally:
        api.stop()


def test_under_authorization_protocol_1_the_console_sends_basic_on_rest_and_in_connect(
        page: Any, console_stack: ConsoleStack, free_port: Callable[[], int], tmp_path: Path) -> None:
    """console-spec §7 "General": with the authentication protocol 1 every request carries Basic
    userName:password, the push socket's CONNECT too (an API of the same stack configured so)."""
    with _api_of_the_stack(console_stack, free_port, tmp_path / "api1.log", FLEET_API_AUTH_PROTOCOL="1") as api:
        fleet = own_enterprise(console_stack)
        expected = "Basic " + base64.b64encode(f"{fleet['user']}:{DEMO_PASSWORD}".encode()).decode()
        calls: list[tuple[str, str]] = []
        sent: list[str] = []
        received: list[str] = []

        def on_request(request: Any) -> None:
            if "/api/" in request.url:
                calls.append((request.url, request.headers.get("authorization", "")))

        def on_socket(ws: Any) -> None:
            if is_live_socket(ws.url):
                ws.on("framesent", lambda payload: sent.extend(stomp_frames(payload)))
                ws.on("framereceived", lambda payload: received.extend(stomp_frames(payload)))

        page.on("request", on_request)
        page.on("websocket", on_socket)
        sign_in(page, fleet["user"], path=f"{api.base_url}/dashboard/index")
        deadline = time.monotonic() + 15
        while not any(frame.startswith("CONNECTED") for frame in received) and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert any(frame.startswith("CONNECTED") for frame in received), (sent[:2], received[:2])
        connect = next(frame for frame in sent if frame.startswith("CONNECT"))
        assert f"Authorization:{expected}" in connect.splitlines()
        after_sign_in = [auth for url, auth in calls if "/api/user/current.json" not in url]
        assert after_sign_in and all(auth == expected for auth in after_sign_in), calls[:6]


def test_under_authorization_protocol_2_the_console_signs_in_as_the_client_its_server_names(
        page: Any, console_stack: ConsoleStack, free_port: Callable[[], int], tmp_path: Path) -> None:
    """console-spec §7 "General": under protocol 2 the token calls carry the console's client credentials as
    Basic. The API of this stack names its console app (FLEET_API_CONSOLE_CLIENT_*) in index.html, so the one
    build signs in, and refreshes at once (an access token of 5 minutes is within the 10-minute refresh margin),
    as that app, then calls with its Bearer token; once the app's secret is renewed the sign-in is refused
    with the server's message."""
    admin = console_stack.token("admin")
    app = console_stack.post("/api/common/openApp.json", admin,
                             {"name": f"控制台-{secrets.token_hex(3)}", "apis": "vehicles", "rateLimitPerMin": 1000})
    with _api_of_the_stack(console_stack, free_port, tmp_path / "api2.log", FLEET_API_AUTH_PROTOCOL="2",
                           FLEET_API_ACCESS_TOKEN_TTL_S="300", FLEET_API_CONSOLE_CLIENT_ID=app["appKey"],
                           FLEET_API_CONSOLE_CLIENT_SECRET=app["appSecret"]) as api:
        fleet = own_enterprise(console_stack)
        client = "Basic " + base64.b64encode(f"{app['appKey']}:{app['appSecret']}".encode()).decode()
        token_calls: list[tuple[str, str, int]] = []
        calls: list[str] = []

        def on_response(response: Any) -> None:
            request = response.request
            if "/oauth2/token.json" in request.url:
                grant = "refresh" if "grant_type=refresh_token" in request.url else "password"
                token_calls.append((grant, request.headers.get("authorization", ""), response.status))
            elif "/api/" in request.url:
                calls.append(request.headers.get("authorization", ""))

        page.on("response", on_response)
        sign_in(page, fleet["user"], path=f"{api.base_url}/dashboard/index")
        page.get_by_test_id("menu").wait_for()
        deadline = time.monotonic() + 15
        while [grant for grant, _, _ in token_calls] != ["password", "refresh"] and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert token_calls == [("password", client, 200), ("refresh", client, 200)], token_calls
        assert calls and all(auth.startswith("Bearer ") for auth in calls), calls[:4]
        assert "/user/login" not in page.url

        console_stack.post(f"/api/common/openApp/{app['id']}/secret.json", admin, {})
        # a browser that never signed in (the open page may still try a refresh with the old secret: refused too)
        renewed = len(token_calls)
        fresh = new_console_context(page.context.browser, locale="zh-CN")
        try:
            again = fresh.new_page()
            again.on("response", on_response)
            again.goto(f"{api.base_url}/user/login")
            again.get_by_test_id("login-username").fill(fleet["user"])
            again.get_by_test_id("login-password").fill(DEMO_PASSWORD)
            again.get_by_test_id("login-submit").click()
            again.locator(".ant-notification-notice, .ant-message-notice", has_text="应用凭证错误").wait_for()
            assert ("password", client, 401) in token_calls[renewed:] and "/user/login" in again.url
            assert all(status == 401 for _, _, status in token_calls[renewed:]), token_calls[renewed:]
        finally:
            fresh.close()
