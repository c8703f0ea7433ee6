"""The analyst notebooks in Chromium: on two closed days of generated history built into reports and the lake,
one notebook is executed and rendered (warehouse/notebook_pages.py, as Dagster's ``analyst_notebooks`` does
nightly); the group's administrator opens 报表 > 分析笔记本 from the menu and reads the page with its zh-CN
title, the enterprises by name and its charts, without running anything, in a frame where no script runs;
the page's texts exist in zh-HK and en-US; a subsidiary's administrator is told the notebooks are for the
root enterprise (they hold every enterprise's figures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from tests.support.report_history import build_report_days

TITLE = "车队里程与出车率"


@pytest.fixture(scope="module")
def rendered(console_stack: ConsoleStack, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The enterprise names the rendered page must show."""
    from warehouse.notebook_pages import render_notebooks

    lake = tmp_path_factory.mktemp("lake")
    build_report_days(console_stack.db_url, 2, lake)
    pages = Path(console_stack.api.env["FLEET_REPORT_NOTEBOOK_PAGES_DIR"])
    done = render_notebooks(lake, pages, names=["fleet_mileage_utilisation"])  # one small case, not all four
    assert [(p.title, p.error) for p in done] == [(TITLE, "")]
    frame = pl.read_parquet(lake / "car_day_report" / "*" / "part-0.parquet")
    return set(frame["enterprise_name"].drop_nulls())


def test_group_admin_reads_a_rendered_notebook_with_enterprise_names_and_charts(
        page: Any, rendered: set[str]) -> None:
    p = page
    sign_in(p, "admin")
    p.get_by_role("menuitem", name=text("zh-CN", "menu", "menu.report")).first.click()
    p.get_by_role("menuitem", name=text("zh-CN", "menu", "menu.report.notebooks")).click()
    p.wait_for_url("**/report/notebooks**")
    p.get_by_test_id("notebook-list").get_by_text(TITLE).wait_for()
    frame = p.frame_locator("[data-testid=notebook-page]")
    frame.get_by_role("heading", name=TITLE).first.wait_for()
    body = frame.locator("body").inner_text()
    assert rendered and all(name in body for name in rendered), (rendered, body[:400])
    assert "出车率" in body and "里程(km)" in body
    charts = frame.locator("img[src^='data:image/png']")
    assert charts.count() >= 2
    assert all(charts.nth(i).evaluate("(img) => img.naturalWidth") > 200 for i in range(2))  # drawn, not broken
    assert p.get_by_test_id("notebook-page").get_attribute("sandbox") == ""
    screenshot(p, "report-notebooks.png")
    for language in ("zh-HK", "en-US"):
        switch_language(p, language)
        p.get_by_text(text(language, "report", "notebooks.intro")).wait_for()
    assert not p.errors


def test_subsidiary_admin_is_told_the_notebooks_are_for_the_root_enterprise(page: Any, rendered: set[str]) -> None:
    p = page
    sign_in(p, "admin_a", path="/report/notebooks")
    p.get_by_test_id("notebooks-unavailable").get_by_text(
        text("zh-CN", "report", "notebooks.forbidden")).wait_for()
    assert p.locator("[data-testid=notebook-page]").count() == 0
