"""A report's export is what its screen shows, in Chromium on the shared stack with three closed days of
generated history built into reports (tests/support/report_history.py): for each report named, the XLSX and
CSV files downloaded from the screen have the table's header and the table's first page of rows, cell for
cell (dates, h:mm:ss, rounded kilometres, labels instead of codes), in the user's language; the KPI cards
print no long float."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language, text
from tests.support.report_history import ReportDays, build_report_days

DAYS = 3
LONG_FLOAT = re.compile(r"\d\.\d{7,}")  # float noise (316.6000000000058); coordinates keep 6 decimals


@pytest.fixture(scope="module")
def report_days(console_stack: ConsoleStack, tmp_path_factory: pytest.TempPathFactory) -> ReportDays:
    """Three closed days of history for the stack's vehicles, built (vehicles that have them already are kept)."""
    return build_report_days(console_stack.db_url, DAYS, tmp_path_factory.mktemp("lake"))


def _table(report: Any, language: str) -> tuple[list[str], list[list[str]]]:
    """The report table's header (without the row actions) and its rows, as the screen shows them."""
    table = report.get_by_test_id("list-table")
    table.locator("tbody tr.ant-table-row").first.wait_for()
    head = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    actions = text(language, "list", "actions")
    width = head.index(actions) if actions in head else len([h for h in head if h])
    rows = [[c.strip() for c in row.locator("td").all_inner_texts()[:width]]
            for row in table.locator("tbody tr.ant-table-row").all()]
    return head[:width], rows


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _downloads(page: Any, report: Any) -> tuple[list[list[str]], list[list[str]]]:
    with page.expect_download() as download:
        report.get_by_test_id("list-export-xlsx").click()
    sheet = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()), read_only=True).active
    assert sheet is not None
    xlsx = [[_cell(v) for v in r] for r in sheet.iter_rows(values_only=True)]
    with page.expect_download() as download:
        report.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    return xlsx, lines


def _padded(row: list[str], width: int) -> list[str]:
    return (row + [""] * width)[:width]


@pytest.mark.parametrize("path,testid,language", [
    ("/report/dailyMileage", "list-page-carDayReport", "zh-CN"),
    ("/report/online", "list-page-carDayReport", "zh-CN"),
    ("/report/drivingTrip", "list-page-trip", "zh-CN"),
    ("/report/alarmOverview", "list-page-deviceDayReport", "zh-CN"),
    ("/report/kpi", "list-page-kpiEnterpriseDay", "zh-CN"),
    ("/report/dailyMileage", "list-page-carDayReport", "en-US"),
])
def test_report_export_has_the_screen_s_header_and_rows(page: Any, console_stack: ConsoleStack,
                                                        report_days: ReportDays, path: str, testid: str,
                                                        language: str) -> None:
    sign_in(page, "admin", path=path)
    if language != "zh-CN":
        switch_language(page, language)
    report = page.locator(f"[data-testid={testid}]:visible")
    head, rows = _table(report, language)
    assert rows, path
    xlsx, lines = _downloads(page, report)
    width = len(head)
    for name, table in (("xlsx", xlsx), ("csv", lines)):
        assert _padded(table[0], width) == head, (path, name)
        shown = [_padded(r, width) for r in table[1:1 + len(rows)]]
        assert shown == rows, (path, name, shown[:2], rows[:2])
        # nothing raw: no yyyymmdd day, no long float; durations as h:mm:ss
        assert not any(LONG_FLOAT.search(c) for r in table[1:] for c in r), (path, name)
    if path == "/report/dailyMileage":
        assert any(re.fullmatch(r"\d{4}-\d{2}-\d{2}", c) for c in rows[0])
        assert any(re.fullmatch(r"\d+:\d{2}:\d{2}", c) for c in rows[0])
    assert page.errors == []  # type: ignore[attr-defined]


def test_kpi_cards_print_rounded_figures(page: Any, console_stack: ConsoleStack, report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/report/kpi")
    cards = page.get_by_test_id("kpi-summary")
    page.get_by_test_id("kpi-completenessRate").filter(has_text="%").wait_for()
    cards.filter(has_text=re.compile(r"\d / ")).wait_for()
    assert not re.search(r"\d\.\d{3,}", cards.inner_text()), cards.inner_text()  # counts as the tables round them
    assert page.errors == []  # type: ignore[attr-defined]
