"""The footer's manuals in Chromium (linked as system files, path?t=modifyTime), at 1440 px and on a phone
(390 px): the open-platform API manual is the API's OpenAPI document rendered by the console (Swagger UI bundled from npm, nothing fetched from another
origin), and the user manual is a page of the console in the console's language; both read at 390 px
without scrolling sideways."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import CONSOLE_DIST, sign_in
from tests.e2e.test_console import switch_language
from tests.e2e.test_phone_layout_browser import OVERFLOW
from warehouse.seed import PARENT


def _offline(page: Any, base_url: str) -> list[str]:
    """Requests the page makes to any other origin (the console must work without the internet)."""
    own = urlsplit(base_url).netloc
    foreign: list[str] = []
    page.on("request", lambda r: foreign.append(r.url) if urlsplit(r.url).netloc not in (own, "") and
            not r.url.startswith(("data:", "blob:")) else None)
    return foreign


def _fits(page: Any) -> None:
    page.wait_for_timeout(500)
    found = page.evaluate(OVERFLOW)
    assert found["scrollWidth"] <= found["width"] and not found["offenders"], found


def _api_reference_rendered(page: Any) -> None:
    """The document's tags are listed (collapsed); the sign-in one opened shows its operations."""
    reference = page.get_by_test_id("api-reference")
    reference.locator(".opblock-tag").first.wait_for(timeout=60_000)  # Swagger UI renders a 300-path document
    assert reference.locator(".opblock-tag").count() > 5
    reference.locator('.opblock-tag[data-tag="auth"]').click()
    # Swagger UI breaks paths with zero-width spaces: found by its data-path
    reference.locator('.opblock-summary-path[data-path="/oauth2/token.json"]').first.wait_for()  # GET and POST


def test_the_footer_opens_the_rendered_api_reference(page: Any, console_stack: ConsoleStack) -> None:
    foreign = _offline(page, console_stack.base_url)
    sign_in(page, PARENT.admin, path="/dashboard/index")
    link = page.get_by_test_id("footer-apiManual")
    assert link.inner_text() == "开放平台接口手册"
    modified_ms = (CONSOLE_DIST / "api-reference.html").stat().st_mtime_ns // 1_000_000
    page.wait_for_function("([id, href]) => document.querySelector(`[data-testid=${id}]`)?.getAttribute('href') === href",
                           arg=["footer-apiManual", f"/api-reference.html?t={modified_ms}"])
    # the layout's logo too
    logo_ms = (CONSOLE_DIST / "favicon.svg").stat().st_mtime_ns // 1_000_000
    page.wait_for_function("(src) => [...document.querySelectorAll('[data-testid=logo-image]')]"
                           ".every((i) => i.getAttribute('src') === src) && !!document.querySelector('[data-testid=logo-image]')",
                           arg=f"/favicon.svg?t={logo_ms}")
    with page.context.expect_page() as opened:
        link.click()
    reference = opened.value
    reference_foreign = _offline(reference, console_stack.base_url)
    reference.wait_for_load_state()
    assert urlsplit(reference.url).path == "/api-reference.html"
    _api_reference_rendered(reference)
    assert reference.get_by_test_id("api-reference-title").inner_text() == "开放平台接口手册"
    assert foreign == [] and reference_foreign == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_api_reference_reads_on_a_phone(phone: Any) -> None:
    phone.goto("/api-reference.html")
    _api_reference_rendered(phone)
    phone.locator(".opblock-summary").first.click()  # an operation opened: its parameters and replies
    phone.locator(".opblock.is-open .responses-wrapper").first.wait_for()
    _fits(phone)
    assert phone.errors == []  # type: ignore[attr-defined]


def test_the_footer_s_user_manual_is_the_console_s_page_in_its_language(page: Any,
                                                                       console_stack: ConsoleStack) -> None:
    foreign = _offline(page, console_stack.base_url)
    sign_in(page, PARENT.admin, path="/dashboard/index")
    switch_language(page, "en-US")
    link = page.get_by_test_id("footer-userManual")
    assert link.inner_text() == "User manual"
    # linked as its system file, path?t=modifyTime (console-spec §7): a rebuilt manual is a new URL
    expect_href = f"/manual/en-US.html?t={(CONSOLE_DIST / 'manual/en-US.html').stat().st_mtime_ns // 1_000_000}"
    page.wait_for_function("([id, href]) => document.querySelector(`[data-testid=${id}]`)?.getAttribute('href') === href",
                           arg=["footer-userManual", expect_href])
    with page.context.expect_page() as opened:
        link.click()
    manual = opened.value
    manual.get_by_test_id("manual").wait_for()
    assert urlsplit(manual.url).path == "/manual/en-US.html"
    assert "Live monitoring" in manual.get_by_test_id("manual").inner_text()
    assert foreign == []


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_user_manual_reads_on_a_phone(phone: Any, language: str) -> None:
    phone.goto(f"/manual/{language}.html")
    phone.get_by_test_id("manual").wait_for()
    assert phone.evaluate("document.documentElement.lang") == language
    _fits(phone)
    font_px = float(phone.evaluate("parseFloat(getComputedStyle(document.querySelector('main p')).fontSize)"))
    assert font_px >= 14  # readable without zooming (the viewport meta is there)
