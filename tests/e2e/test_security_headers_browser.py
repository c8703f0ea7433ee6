"""The console under its Content-Security-Policy in Chromium: signing in, the map and
its live socket raise no CSP violation, and a page of another origin cannot frame the console."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import is_live_socket, other_origin_page, sign_in

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI}`);
});
"""


def csp_messages(messages: list[str]) -> list[str]:
    return [m for m in messages if "Content Security Policy" in m or "Content-Security-Policy" in m]


def test_console_signs_in_and_shows_the_live_map_without_csp_violations(page: Any) -> None:
    console: list[str] = []
    sockets: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.add_init_script(COLLECT_VIOLATIONS)
    sign_in(page, "admin", path="/dashboard/map")
    page.wait_for_url(re.compile(r"/dashboard/map"))
    page.get_by_test_id("live-map").wait_for()
    page.get_by_test_id("vehicle-tree").locator(".ant-tree-treenode:not([aria-hidden])").first.wait_for()
    page.wait_for_load_state("networkidle")
    deadline = time.monotonic() + 10
    while not any(is_live_socket(url) for url in sockets) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert any(is_live_socket(url) for url in sockets), sockets  # the live socket was allowed
    assert page.evaluate("() => window.__cspViolations") == []
    assert csp_messages(console) == []
    assert page.errors == []


def attacker_site(victim_url: str) -> Any:
    """A page on another origin that frames the console."""
    return other_origin_page(f'<!doctype html><iframe id="victim" src="{victim_url}"></iframe>'.encode())


def test_a_page_of_another_origin_cannot_frame_the_console(page: Any, console_stack: ConsoleStack) -> None:
    console: list[str] = []
    framed: list[int] = []
    page.on("console", lambda m: console.append(m.text))
    page.on("response", lambda r: framed.append(r.status) if r.url.startswith(console_stack.base_url) else None)
    with attacker_site(f"{console_stack.base_url}/user/login") as attacker:
        page.goto(attacker)
        page.wait_for_load_state("load")
    assert framed == [200]  # the console answered: it is the browser that refused to show it
    victim = [f for f in page.frames if f != page.main_frame]
    assert len(victim) == 1 and not victim[0].url.startswith(console_stack.base_url), victim[0].url
    assert page.frame_locator("#victim").locator("#root").count() == 0


def test_a_report_opened_by_its_address_preloads_its_chunks_once_without_csp_violations(page: Any) -> None:
    """The server names the report's page chunks in index.html (api/console_preload.py); the browser fetches
    each once (the preload and the module loader share it) and the CSP lets every one run."""
    sign_in(page, "admin", path="/dashboard/index")
    console: list[str] = []
    scripts: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    page.add_init_script(COLLECT_VIOLATIONS)
    page.goto("/report/dailyMileage")
    page.get_by_test_id("list-page-carDayReport").get_by_test_id("list-table").wait_for()
    page.wait_for_load_state("networkidle")
    preloaded = page.evaluate("() => [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => l.href)")
    page_chunk = [url for url in preloaded if re.search(r"/assets/dailyMileage-[^/]+\.js$", url)]
    assert len(page_chunk) == 1, preloaded  # the report's own chunk is named by the address
    fetched = [url for url in scripts if url in preloaded]
    assert page_chunk[0] in fetched and len(fetched) == len(set(fetched)), fetched  # each fetched once
    assert page.evaluate("() => window.__cspViolations") == []
    assert csp_messages(console) == []
    assert page.errors == []
