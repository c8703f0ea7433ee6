"""The API serves the built console on its own origin, and the stack behind it is live."""

from __future__ import annotations

import urllib.request
from typing import Any

from tests.e2e.conftest import ConsoleStack


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.status, dict(reply.headers), reply.read()


def test_history_urls_and_hashed_assets_are_served_with_their_cache_policy(console_stack: ConsoleStack) -> None:
    status, headers, body = _get(f"{console_stack.base_url}/dashboard/map")
    assert status == 200 and b'<div id="root"' in body and headers["Cache-Control"] == "no-cache"
    script = body.split(b'src="/assets/', 1)[1].split(b'"', 1)[0].decode()
    status, headers, _ = _get(f"{console_stack.base_url}/assets/{script}")
    assert status == 200 and "immutable" in headers["Cache-Control"]


def test_console_boots_without_script_errors(page: Any) -> None:
    page.goto("/")
    page.wait_for_load_state("networkidle")
    assert page.locator("#root > *").count() > 0
    assert page.errors == []
