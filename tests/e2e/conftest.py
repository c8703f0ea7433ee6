"""The live stack the browser tests drive, started once per session on the session's PostgreSQL
server and Kafka broker: a private database with the demo seed (20 terminals), the streams worker,
the gateway, the attachment server (named by the worker's 0x9208), the media server (JT/T 1078 video,
listening and talk), the API (gunicorn) serving the built console, and the simulator (20 terminals,
2 s interval; every fourth has cameras) in a thread, all sharing one media store; plus Debian's
Chromium through Playwright."""

from __future__ import annotations

import json
import secrets
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import (
    ApiProcess,
    SimulatedFleet,
    console_build_problem,
    launch_chromium,
    new_console_context,
    offline,
    trail_code_loads,
)
from tests.support.databases import create_database, drop_database
from tests.support.processes import AttachmentServerProcess, GatewayProcess, MediaServerProcess

TERMINALS = 20
# Every report travels the whole chain (gateway, Kafka, worker, PostgreSQL, the API's push, Chromium's map) for
# the whole browser suite: at 1 s the twenty terminals kept a third of a core busy on a two-core machine.
REPORT_INTERVAL_S = 2.0


@dataclass
class Vehicle:
    car_id: int
    device_id: int
    plate: str
    enterprise: str  # "parent", "a", "b"
    phone: str

    @property
    def node(self) -> str:
        return f"tree-node-c_{self.car_id}_{self.device_id}"


@dataclass
class ConsoleStack:
    base_url: str
    db_url: str
    vehicles: list[Vehicle]
    api: ApiProcess
    logs: Path
    gateway_port: int = 0  # for tests whose own terminal connects (tests/e2e/test_safety_alarm_dialog.py)
    attachments_port: int = 0  # the attachment server the worker's 0x9208 names
    media_port: int = 0
    talk_dir: Path | None = None  # what simulated terminals heard in a talk: <phone>-ch<channel>.wav
    env: dict[str, str] = field(default_factory=dict)  # the stack's settings, for a test's own process of it

    def of(self, enterprise: str) -> list[Vehicle]:
        return [v for v in self.vehicles if v.enterprise == enterprise]

    def token(self, user: str) -> str:
        from warehouse.seed import DEMO_PASSWORD

        url = (f"{self.base_url}/oauth2/token.json?grant_type=password&username={user}"
               f"&password={urllib.request.quote(DEMO_PASSWORD)}")
        with urllib.request.urlopen(url, timeout=10) as reply:
            return str(json.load(reply)["data"]["access_token"])

    def get(self, path: str, token: str) -> Any:
        request = urllib.request.Request(f"{self.base_url}{path}", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = json.load(reply)
        assert body["code"] == 0, body
        return body["data"]

    def post(self, path: str, token: str, body: Any) -> Any:
        request = urllib.request.Request(f"{self.base_url}{path}", data=json.dumps(body).encode(), method="POST",
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            envelope = json.load(reply)
        assert envelope["code"] == 0, envelope
        return envelope["data"]


def _vehicles(db_url: str) -> list[Vehicle]:
    from warehouse.db import connect
    from warehouse.seed import SUBSIDIARY_A, SUBSIDIARY_B

    keys = {SUBSIDIARY_A.short_name: "a", SUBSIDIARY_B.short_name: "b"}
    with connect(db_url) as conn:
        rows = conn.execute(
            "SELECT c.id, d.id, c.plate_number, e.short_name, d.phone FROM car c"
            " JOIN device d ON d.id = c.master_device_id JOIN enterprise e ON e.id = c.enterprise_id"
            " ORDER BY d.phone").fetchall()
    return [Vehicle(int(car), int(dev), str(plate), keys.get(str(ent), "parent"), str(phone))
            for car, dev, plate, ent, phone in rows]


def _wait(predicate: Callable[[], Any], timeout_s: float, what: str, logs: Callable[[], str]) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}\n{logs()}")


_console_checks: list[str | None] = []  # the outcome of waiting for scripts/test.sh's console job, once


def _console_checks_problem() -> str | None:
    """Under scripts/test.sh the console's checks and build run beside pytest: the browser tests wait until they
    are done (so they drive this build, never a half-written dist/, and never run beside them); None when they
    passed or when pytest runs on its own (no FLEET_TEST_CONSOLE_STATUS)."""
    import os

    status = os.environ.get("FLEET_TEST_CONSOLE_STATUS")
    if not status:
        return None
    path = Path(status)
    deadline = time.monotonic() + 1800
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(1)
    if not path.exists():
        return f"the console's checks and build did not finish (no {path} after 30 minutes)"
    if path.read_text().strip() != "0":
        return f"the console's checks or build failed: {path.with_name('console.log')}"
    return None


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # Waits outside pytest-timeout's per-test timer (its wrapper is inside this one): the wait is not the test's.
    if not _console_checks and Path(str(item.path)).is_relative_to(Path(__file__).parent):
        _console_checks.append(_console_checks_problem())
    yield


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not _console_checks:
        _console_checks.append(_console_checks_problem())
    if _console_checks[0]:
        pytest.fail(_console_checks[0])


# Package scope: torn down when the last end-to-end test is done. Playwright's sync API keeps an
# event loop running in the main thread while it lives, which breaks any later test using asyncio.run.
@pytest.fixture(scope="package")
def console_stack(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str],
                  tmp_path_factory: pytest.TempPathFactory, free_port: Callable[[], int]) -> Iterator[ConsoleStack]:
    problem = console_build_problem()
    if problem:
        pytest.fail(problem)
    from tests.integration.streams.support import Worker, commit_group_at_end
    from warehouse.db import connect
    from warehouse.seed import seed_demo

    work = tmp_path_factory.mktemp("console-stack")
    db_url = create_database(pg_url, "fleet_e2e")
    seed_demo(db_url, terminals=TERMINALS)
    media_port = free_port()
    env = {**stack_env, "FLEET_DATABASE_URL": db_url, "FLEET_API_TOKEN_SECRET": secrets.token_urlsafe(32),
           "FLEET_MEDIA_ROOT": str(work / "media"),  # gateway, attachment server and API share this stack's media store
           # the API registers streams with, signs URLs for and names in 0x9101 the stack's media server
           "FLEET_MEDIA_SERVER_PORT": str(media_port), "FLEET_MEDIA_SERVER_PUBLIC_HOST": "127.0.0.1",
           "FLEET_MEDIA_SERVER_SECRET": secrets.token_urlsafe(32), "FLEET_API_MEDIA_PORT": str(media_port),
           # the rendered analyst notebooks the API serves (tests/e2e/test_notebook_pages_browser.py writes them)
           "FLEET_REPORT_NOTEBOOK_PAGES_DIR": str(work / "notebook_pages")}
    app_id = f"e2e-worker-{secrets.token_hex(3)}"
    commit_group_at_end(kafka_bootstrap, app_id)  # uplinks of earlier tests belong to other databases
    attachments = AttachmentServerProcess(env, free_port(), work / "attachments.log")
    # 0x9208 sends terminals to this stack's attachment server (not to 7613, which may be another stack's)
    worker = Worker(env | AttachmentServerProcess.env_for(attachments.port), work, app_id=app_id)
    gateway = GatewayProcess(env, free_port(), work / "gateway.log", gateway_id="gw-e2e")
    media = MediaServerProcess(env, media_port, work / "media.log")
    api = ApiProcess(env, free_port(), work / "api.log")
    fleet = SimulatedFleet(gateway.port, TERMINALS, REPORT_INTERVAL_S, work, talk_dir=work / "talk")

    def logs() -> str:
        return "\n".join(f"--- {name}\n{proc.log_tail(30)}" for name, proc in
                         (("worker", worker), ("gateway", gateway), ("attachments", attachments),
                          ("media", media), ("api", api)))

    try:
        attachments.start()
        worker.start()
        gateway.start()
        media.start()
        api.start()
        _wait(lambda: "ready" in worker.log_tail(400).lower(), 120, "the streams worker", logs)
        fleet.start()

        def positioned() -> bool:
            with connect(db_url) as conn:
                row = conn.execute("SELECT count(*) FROM device_last").fetchone()
            return row is not None and int(row[0]) >= TERMINALS

        _wait(positioned, 90, f"last positions of all {TERMINALS} terminals", logs)
        yield ConsoleStack(api.base_url, db_url, _vehicles(db_url), api, work, gateway.port, attachments.port,
                           media_port, work / "talk", env)
    finally:
        fleet.stop()
        api.stop()
        media.stop()
        gateway.stop()
        worker.stop()
        attachments.stop()
        drop_database(pg_url, db_url)
        if fleet.error is not None:
            print(f"simulated fleet ended with {fleet.error!r}")


@pytest.fixture(scope="package")
def playwright() -> Iterator[Any]:
    """The one Playwright driver of the run: the sync API allows one per thread, so every browser of
    the e2e tests (this package's and a module's own, e.g. with a fake microphone) is launched from it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="package")
def browser(playwright: Any) -> Iterator[Any]:
    chromium = launch_chromium(playwright)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call":
        item.stash[_FAILED] = report.failed


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def page(browser: Any, console_stack: ConsoleStack, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser context (empty storage) at 1440 x 900, base URL set to the stack's API.
    ``page.errors`` collects uncaught page errors; when the test fails, the page's navigations,
    console errors and failed API replies are printed (pytest shows them with the failure)."""
    context = new_console_context(browser, base_url=console_stack.base_url, viewport={"width": 1440, "height": 900},
                                  locale="zh-CN", timezone_id="Asia/Shanghai")
    context.set_default_timeout(15_000)
    offline(context)
    page = context.new_page()
    errors: list[str] = []
    trail: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: trail.append(f"console.{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("framenavigated", lambda frame: trail.append(f"navigated: {frame.url}") if frame == page.main_frame else None)
    page.on("response", lambda r: trail.append(f"{r.status} {r.request.method} {r.url.split('?')[0]}")
            if "/api/" in r.url or "/oauth2/" in r.url else None)
    # a command's POST still unanswered when a test times out shows as sent without a reply
    page.on("request", lambda r: trail.append(f"sent {r.method} {r.url.split('?')[0]}")
            if r.method != "GET" and "/api/command/" in r.url else None)
    page.on("requestfailed", lambda r: trail.append(f"failed {r.method} {r.url.split('?')[0]}: {r.failure}")
            if "/api/" in r.url else None)
    trail_code_loads(page, trail)
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        if request.node.stash.get(_FAILED, False):
            print("--- page trail (last 60) ---\n" + "\n".join(trail[-60:]))
            print("--- page errors ---\n" + "\n".join(errors))
        context.close()


PHONE = {"width": 390, "height": 844}  # the phone the console must work on (390 px wide)


@pytest.fixture
def phone(browser: Any, console_stack: ConsoleStack) -> Iterator[Any]:
    """A page on a phone (touch, 390 px), signed out; ``page.errors`` collects uncaught page errors."""
    context = new_console_context(browser, base_url=console_stack.base_url, viewport=PHONE, locale="zh-CN",
                                  timezone_id="Asia/Shanghai", is_mobile=True, has_touch=True)
    context.set_default_timeout(15_000)
    offline(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        context.close()
