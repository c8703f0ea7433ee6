"""The console on a phone (390 x 844): the alarm list, the registration policy and the video monitoring page fit
the screen (no element reaches past the viewport, the page never scrolls sideways), the alarm table scrolls inside
its own container; the API reference and the user manual read at 390 px."""

from __future__ import annotations

from typing import Any

from tests.e2e.support import sign_in
from tests.e2e.test_console import text
from warehouse.seed import PARENT

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


def _fits(page: Any) -> None:
    page.wait_for_timeout(500)  # layout settles (fonts, lazy chunks)
    found = page.evaluate(OVERFLOW)
    assert found["scrollWidth"] <= found["width"] and not found["offenders"], found


def test_the_alarm_list_fits_a_phone_and_its_table_scrolls_inside(phone: Any) -> None:
    sign_in(phone, PARENT.admin, path="/list/alarm")
    phone.get_by_test_id("list-page-alarm").wait_for()
    phone.get_by_test_id("list-table").locator(".ant-table-thead").wait_for()
    phone.get_by_test_id("list-filters").wait_for()  # the filter bar renders after the first rows; it must fit too
    _fits(phone)
    scroller = phone.get_by_test_id("list-table").locator(".ant-table-content, .ant-table-body").first
    assert scroller.evaluate("e => getComputedStyle(e).overflowX") in ("auto", "scroll")
    assert scroller.evaluate("e => e.scrollWidth > e.clientWidth")  # the columns are there, inside their box
    assert phone.errors == []


# Table cells whose text wraps a character or two a line (a column squeezed to ~30 px), as text and line count.
SQUEEZED_CELLS = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('.ant-table-cell')) {
    const text = cell.innerText.trim();
    if (text.length < 4) continue;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    if (lines >= 3 && lines * 3 >= text.length) out.push(`${text.slice(0, 30)} (${lines} lines)`);
  }
  return out.slice(0, 10);
}"""


def test_tables_of_settings_screens_scroll_sideways_on_a_phone_instead_of_squeezing_a_column(phone: Any) -> None:
    """The platform parameters, the alarm notification rules and the permission catalogue once gave a column
    ~30 px on a phone (a parameter's name and help a character a line); every table now scrolls inside its card."""
    sign_in(phone, PARENT.admin, path="/settings/param")
    for path, ready in (("/settings/param", "[data-testid=param-screen] .ant-table-row"),
                        ("/settings/notify", ".ant-table-row"), ("/user/permission", ".ant-table-row")):
        phone.goto(path)
        # the screens visited before stay open in hidden tabs, their rows in the page too
        phone.locator(f"{ready}:visible").first.wait_for()
        assert phone.evaluate(SQUEEZED_CELLS) == [], path
        _fits(phone)
    assert phone.errors == []


def test_the_registration_policy_reads_on_a_phone(phone: Any) -> None:
    """Each policy's name and what it does take the card's width under one another beside the switch, which a
    screen reader names by it; side by side with the switch and the hint the name had 42 px, a few characters a
    line."""
    sign_in(phone, PARENT.admin, path="/settings/registrationPolicy")
    panel = phone.get_by_test_id("registration-policy")
    for policy in ("requireImei", "approveReregistration"):
        name = text("zh-CN", "fleet", f"policy.{policy}")
        label = panel.get_by_text(name, exact=True)
        label.wait_for()
        box = label.bounding_box()
        assert box is not None and box["width"] >= 200, (policy, box)
        assert panel.get_by_role("switch", name=name).count() == 1
    _fits(phone)
    assert phone.errors == []


def test_the_video_page_fits_a_phone(phone: Any) -> None:
    sign_in(phone, PARENT.admin, path="/dashboard/monitor")
    phone.get_by_test_id("video-monitor").wait_for()
    _fits(phone)
    assert phone.errors == []
