"""Pieces of a live stack for the browser tests and the browser benchmark: a private database with
the demo seed, the API under gunicorn serving the built console, a simulated fleet in a thread, and
Debian's Chromium driven by Playwright (never Playwright's own browser download)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from fleet.settings import REPO_ROOT, SimulatorSettings
from tests.support.processes import ServiceProcess, wait_for_port

# The browser tests drive Debian's headless shell of Chromium (package chromium-headless-shell, what Playwright runs
# headless tests in by default): the same Blink and V8 as /usr/bin/chromium without the desktop browser around the
# page. A new browser context with the console's sign-in page took 0.5 s of CPU in it against 1.3-1.6 s in the full
# browser, and the browser lane is CPU-bound on two cores (docs/performance.md "The whole suite's time: the browser
# tests in Chromium's headless shell").
CHROMIUM = Path(os.environ.get("FLEET_CHROMIUM", "/usr/bin/chromium-headless-shell"))
# The benchmarks measure the console in the browser an operator runs: Debian's full Chromium.
CHROMIUM_FULL = Path(os.environ.get("FLEET_CHROMIUM_FULL", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",  # /dev/shm is small in containers
]
CONSOLE_DIST = REPO_ROOT / "dashboards" / "dist"
SCREENSHOT_DIR = REPO_ROOT / "docs" / "screenshots"


def console_build_problem(dist: Path = CONSOLE_DIST) -> str | None:
    """Why the console cannot be served (None when dist/ has index.html and its precompressed twins)."""
    if not (dist / "index.html").is_file():
        return f"{dist}/index.html is missing: build the console first (scripts/build-console.sh or make test)"
    if not (dist / "index.html.br").is_file():  # a build from before the precompressed twins (api/static.py)
        return f"{dist}/index.html.br is missing: rebuild the console (scripts/build-console.sh --force)"
    return None


class ApiProcess(ServiceProcess):
    """``python -m api`` (gunicorn's gevent worker, as under ``fleet up``) on a free port, serving
    ``console_dir``."""

    def __init__(self, env: dict[str, str], port: int, log_file: Path, console_dir: Path = CONSOLE_DIST) -> None:
        self.port = port
        self.log_file = log_file
        self.env = {
            **env,
            "FLEET_API_HOST": "127.0.0.1",
            "FLEET_API_PORT": str(port),
            "FLEET_API_WORKERS": "1",
            "FLEET_API_CONSOLE_DIR": str(console_dir),
            "FLEET_API_TOKEN_SECRET": env.get("FLEET_API_TOKEN_SECRET") or secrets.token_urlsafe(32),
            "PYTHONUNBUFFERED": "1",
        }

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60) -> None:
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "api"], cwd=REPO_ROOT, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, timeout_s, self.proc)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base_url}/api/health.json", timeout=5) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the API did not answer its health check:\n{self.log_tail()}")


class SimulatedFleet:
    """``simulator.fleet.run_fleet`` in a daemon thread with its own event loop, until ``stop()``."""

    def __init__(self, gateway_port: int, terminals: int, interval_s: float, work_dir: Path,
                 first_index: int = 1, alarm_rates_per_hour: tuple[float, float] = (0.0, 0.0),
                 talk_dir: Path | None = None) -> None:
        # No simulated alarms by default (terminal episodes, ADAS/DSM events): the stack is shared by
        # every end-to-end test, and each alarm opens a notice or the safety alarm dialog (a modal) on
        # the screens they drive. The alarm tests raise their own, from their own terminals.
        self.settings = SimulatorSettings(gateway_host="127.0.0.1", gateway_port=gateway_port,
                                          auth_cache=work_dir / "simulator-auth.json",
                                          alarm_rate_per_hour=alarm_rates_per_hour[0],
                                          safety_alarm_rate_per_hour=alarm_rates_per_hour[1],
                                          # cameras play the generic clips install made: no 720p render mid-test
                                          per_plate_clips=False, talk_dir=talk_dir or work_dir / "talk")
        self.terminals = terminals
        self.interval_s = interval_s
        self.first_index = first_index
        self.stats: Any = None
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="simulated-fleet", daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(10):
            raise AssertionError("the simulated fleet did not start")

    def _run(self) -> None:
        from simulator.fleet import run_fleet

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            self.stats = await run_fleet(self.settings, self.terminals, self.interval_s, None, stop=self._stop,
                                         first_index=self.first_index, progress_interval_s=3600,
                                         drain_timeout_s=5)

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported by the fixture, never swallowed silently
            self.error = exc
            self._ready.set()

    def stop(self, timeout_s: float = 30) -> None:
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:
                pass  # the loop already finished
        self._thread.join(timeout=timeout_s)


def new_console_context(browser: Any, **kwargs: Any) -> Any:
    """A browser context of the end-to-end tests: a user who asked the system for less motion, which the console
    honours (dashboards/src/components/reducedMotion.ts): no dialog zooms in, no menu slides, so a click lands where
    its target stays (a dialog's OK button clicked while the dialog was still growing from a fifth of its size lost
    the click under load). The benchmarks measure the console with its motion."""
    return browser.new_context(reduced_motion="reduce", **kwargs)


def launch_chromium(playwright: Any, *, full: bool = False, **kwargs: Any) -> Any:
    """Debian's Chromium, headless, with the flags the architecture brief names: its headless shell for the tests,
    the full browser (``full``) for the benchmarks."""
    executable, package = (CHROMIUM_FULL, "chromium") if full else (CHROMIUM, "chromium-headless-shell")
    if not executable.exists():
        raise AssertionError(f"{executable} is missing: run `make install` as root (apt-get install {package})")
    return playwright.chromium.launch(executable_path=str(executable), headless=True, args=CHROMIUM_ARGS, **kwargs)


# The console's live socket: SockJS's websocket transport under /wss/stomp (console-spec §7, api/sockjs.py).
LIVE_SOCKET = re.compile(r"/wss/stomp/[^/.]+/[^/.]+/websocket$")


def is_live_socket(url: str) -> bool:
    return bool(LIVE_SOCKET.search(url))


def stomp_frames(payload: Any) -> list[str]:
    """The STOMP frames inside one SockJS WebSocket message, either way (``a["..."]`` from the server,
    ``["..."]`` from the console); none for ``o``, ``h`` and ``c[...]``."""
    text = payload if isinstance(payload, str) else bytes(payload).decode(errors="replace")
    if text.startswith("a["):
        text = text[1:]
    if not text.startswith("["):
        return []
    return [str(item) for item in json.loads(text)]


# Every request off the loopback: the network base layers' tiles (console-spec §9). There is no internet here, and
# none is wanted in a test.
OFF_LOOPBACK = re.compile(r"^https?://(?!127\.0\.0\.1[:/])")


def offline(target: Any) -> None:
    """Fails every request of ``target`` (a page or a browser context) that leaves the loopback, at once. Left to
    DNS, a tile host fails after a lookup that may take seconds on a slow machine: the map's offline fallback (and
    the notice that moves the map down) then comes in the middle of a test's clicks instead of before them."""
    target.route(OFF_LOOPBACK, lambda route: route.abort())


def trail_code_loads(page: Any, trail: list[str], slow_ms: float = 1_000) -> None:
    """Adds to a failing test's trail the console's own files (scripts, styles) that failed or took longer than
    ``slow_ms``: a part loaded on first use (a dialog's player, a chart) that did not come shows as such, not as a
    click that opened nothing."""
    def finished(request: Any) -> None:
        took = request.timing.get("responseEnd", -1)
        if "/assets/" in request.url and took > slow_ms:
            trail.append(f"slow {request.method} {request.url.split('?')[0]}: {took:.0f} ms")

    page.on("requestfinished", finished)
    page.on("requestfailed", lambda r: trail.append(f"failed {r.method} {r.url.split('?')[0]}: {r.failure}")
            if "/assets/" in r.url else None)


def click_until(click: Callable[[], Any], shown: Any, attempts: int = 3) -> None:
    """Makes ``click`` until ``shown`` (a locator) is visible, as a user clicks again when a click opened nothing:
    a target that moves (a live marker) or unfolds (a menu group) can take a click beside it. Each wait is 5 s,
    the last one the default 15 s. A click made again whose target is gone (the first click did work and closed
    it, and what it opens is still loading) waits for ``shown`` instead."""
    for attempt in range(attempts):
        try:
            click()
        except PlaywrightTimeout:
            if attempt == 0:
                raise
            shown.wait_for(timeout=15_000)
            return
        try:
            shown.wait_for(timeout=5_000 if attempt < attempts - 1 else 15_000)
            return
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise


OPEN_OPTIONS = ".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option"


def choose(page: Any, select: Any, option: str, picked: Any = None) -> None:
    """Picks ``option`` in an antd ``select`` as a user does (open it, type, click the option) until ``picked`` (a
    locator; by default the select showing the option) is visible: a click on an option of a dropdown still
    opening is lost now and then under load (a record saved without the field, a video never requested), and a
    user who sees the choice missing picks it again. Nothing is picked twice: the second pick is made only when
    the first left no trace within 5 s."""
    shown = picked if picked is not None else \
        select.locator(".ant-select-content, .ant-select-selection-item", has_text=option).first
    for attempt in range(2):
        select.click()
        page.keyboard.type(option)
        page.locator(OPEN_OPTIONS, has_text=option).first.click()
        try:
            shown.wait_for(timeout=5_000 if attempt == 0 else 15_000)
            return
        except PlaywrightTimeout:
            if attempt:
                raise
            page.keyboard.press("Escape")


def sign_in(page: Any, user: str, password: str | None = None, path: str = "/") -> None:
    """Opens ``path`` (the login page when signed out), signs in, waits to leave the login page."""
    from warehouse.seed import DEMO_PASSWORD

    page.goto(path)
    page.get_by_test_id("login-username").fill(user)
    page.get_by_test_id("login-password").fill(password if password is not None else DEMO_PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_url(lambda url: "/user/login" not in url)



@contextmanager
def other_origin_page(html: bytes) -> Iterator[str]:
    """``http://127.0.0.1:<another port>/`` serving ``html``: a page of another origin (another port
    of the loopback, since Chromium refuses some requests across address spaces by itself, which would
    hide what the console's own checks do)."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
