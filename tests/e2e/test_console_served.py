"""The API serves the built console on its own origin, compressed, and the stack behind it is live."""

from __future__ import annotations

import re
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import CONSOLE_DIST


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as reply:
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


def test_chromium_receives_the_console_brotli_compressed_and_runs_it(page: Any) -> None:
    """The main script and index.html arrive as the build's brotli twins (api/static.py), and decode: the
    console boots with them."""
    answers: dict[str, dict[str, str]] = {}
    page.on("response", lambda r: answers.setdefault(urlsplit(r.url).path, r.all_headers()))
    page.goto("/")
    page.wait_for_load_state("networkidle")
    assert page.locator("#root > *").count() > 0 and page.errors == []
    main = re.search(r'<script type="module" crossorigin src="(/assets/main-[^"]+\.js)"',
                     (CONSOLE_DIST / "index.html").read_text())
    assert main
    for path, twin in ((main.group(1), main.group(1).lstrip("/") + ".br"), ("/", "index.html.br")):
        headers = answers[path]
        assert headers["content-encoding"] == "br" and headers["vary"] == "Accept-Encoding", (path, headers)
        assert headers["content-length"] == str((CONSOLE_DIST / twin).stat().st_size), path


def test_a_client_without_brotli_gets_gzip_and_one_without_either_the_file_itself(console_stack: ConsoleStack) -> None:
    _, _, html = _get(f"{console_stack.base_url}/")
    script = html.split(b'src="/assets/', 1)[1].split(b'"', 1)[0].decode()
    assets = CONSOLE_DIST / "assets"
    status, headers, body = _get(f"{console_stack.base_url}/assets/{script}", {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and body == (assets / f"{script}.gz").read_bytes()
    status, headers, body = _get(f"{console_stack.base_url}/assets/{script}", {"Accept-Encoding": "identity"})
    assert status == 200 and "Content-Encoding" not in headers and body == (assets / script).read_bytes()
