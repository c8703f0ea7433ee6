"""The alarm report's detail page (platform-spec §2 detail page report/alarm, route ``reportAlarmDetail``) in
Chromium, on three closed days of generated history built into reports (tests/support/report_history.py): a
count cell of the alarm report (a terminal's day) and of the enterprise daily report (an enterprise's day)
opens the alarms behind that number, as many rows as the cell showed, of that kind, vehicle or enterprise and
day, each linking to the alarm's own detail; the export holds the same rows with the titles shown; the page
reads in zh-CN, zh-HK and en-US; another enterprise's terminal lists nothing."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import choose, new_console_context, sign_in
from tests.e2e.test_console import switch_language, text
from tests.support.report_history import REPORT_ZONE, ReportDays, build_report_days
from warehouse.db import connect

DAYS = 3
PAGE_SIZE = 10  # the list framework's first page (dashboards/src/features/list/model.ts)


@pytest.fixture(scope="module")
def report_days(console_stack: ConsoleStack, tmp_path_factory: pytest.TempPathFactory) -> ReportDays:
    """Three closed days of history for the stack's vehicles, built (the days the report e2e tests use)."""
    return build_report_days(console_stack.db_url, DAYS, tmp_path_factory.mktemp("lake"))


def _day_bounds(day: int) -> tuple[datetime, datetime]:
    start = datetime.strptime(str(day), "%Y%m%d").replace(tzinfo=REPORT_ZONE)
    return start, start + timedelta(days=1)


def _start_times(url: str, day: int, *, device_id: int | None = None, enterprise_id: int | None = None,
                 safety_only: bool = False) -> list[str]:
    """Start times (as the console shows them, Asia/Shanghai) of the alarms of a terminal or of an enterprise's
    own terminals starting in a report day; active-safety ones (types 5-8) only if asked: the report's rule."""
    start, end = _day_bounds(day)
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT start_time FROM alarm WHERE start_time >= %s AND start_time < %s"
            " AND (%s::bigint IS NULL OR device_id = %s) AND (%s::bigint IS NULL OR enterprise_id = %s)"
            " AND (NOT %s OR type BETWEEN 5 AND 8)",
            (start, end, device_id, device_id, enterprise_id, enterprise_id, safety_only)).fetchall()
    return [row[0].astimezone(REPORT_ZONE).strftime("%Y-%m-%d %H:%M:%S") for row in rows]


def _most_active_safety(stack: ConsoleStack, days: ReportDays) -> Any:
    """The stack's vehicle with the most active-safety alarms (types 5-8) starting in the built days."""
    start = datetime(days.first.year, days.first.month, days.first.day, tzinfo=REPORT_ZONE)
    end = datetime(days.last.year, days.last.month, days.last.day, tzinfo=REPORT_ZONE) + timedelta(days=1)
    with connect(stack.db_url) as conn:
        counts = dict(conn.execute(
            "SELECT device_id, count(*) FROM alarm WHERE start_time >= %s AND start_time < %s AND type BETWEEN 5 AND 8"
            " GROUP BY device_id", (start, end)).fetchall())
    vehicle = max(stack.vehicles, key=lambda v: counts.get(v.device_id, 0))
    assert counts.get(vehicle.device_id, 0) > 0, "no active-safety alarm generated in the built days"
    return vehicle


def _total(list_page: Any, rows: int, language: str = "zh-CN") -> None:
    words = text(language, "list", "total").replace("{{total}}", str(rows))
    list_page.get_by_test_id("list-total").filter(has_text=re.compile(f"^{re.escape(words)}$")).wait_for()


def _headers(table: Any) -> list[str]:
    return [h.strip() for h in table.locator("thead th").all_inner_texts()]


def _open_count(page: Any, report: Any, field: str) -> tuple[int, dict[str, list[str]], str]:
    """Clicks the first non-zero count cell of ``field``: its number, its link's parameters, its row's text."""
    cell = report.locator(f"[data-testid=report-alarm-count][data-field={field}]").first
    cell.wait_for()
    # the number, the link and the row read at once: a list re-rendering between three reads mixes rows
    count, href, row = cell.evaluate("(a) => [Number(a.innerText), a.getAttribute('href') || '',"
                                     " a.closest('tr').innerText]")
    cell.click()
    page.wait_for_url(re.compile(r"/report/alarmDetail\?"))
    assert count > 0
    return count, parse_qs(urlparse(href).query), row


def test_an_active_safety_count_opens_exactly_those_alarms_of_that_vehicle(
        page: Any, console_stack: ConsoleStack, report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/report/alarm")
    report = page.get_by_test_id("list-page-deviceDayReport")
    # the generated history draws active-safety events at random: the report's first page may show none, so
    # the vehicle with the most of them in the built days is picked in the report's vehicle filter
    vehicle = _most_active_safety(console_stack, report_days)
    choose(page, report.get_by_test_id("list-filter-carId"), vehicle.plate)
    report.get_by_test_id("list-search").click()
    # the unfiltered first page stays on screen until the filtered one replaces it: wait for that one
    rows = report.locator("tbody tr.ant-table-row")
    rows.filter(has_text=vehicle.plate).first.wait_for()
    expect(rows.filter(has_not_text=vehicle.plate)).to_have_count(0)
    count, query, row = _open_count(page, report, "activeSafety")
    device_id, day = int(query["deviceId"][0]), int(query["startDate"][0])
    assert query["endDate"] == [str(day)] and query["kind"] == ["activeSafety"]
    with connect(console_stack.db_url) as conn:  # any terminal (other tests add devices to the stack's cars)
        plate = conn.execute("SELECT c.plate_number FROM device d JOIN car c ON c.id = d.car_id WHERE d.id = %s",
                             (device_id,)).fetchone()[0]  # type: ignore[index]
    assert plate in row  # the link is the clicked row's terminal
    expected = _start_times(console_stack.db_url, day, device_id=device_id, safety_only=True)
    assert len(expected) == count  # the report counted that terminal's active-safety alarms of that day

    detail = page.locator("[data-testid=list-page-alarm]:visible")
    page.get_by_test_id("report-alarm-title").filter(has_text=text("zh-CN", "report", "fields.activeSafety")).wait_for()
    _total(detail, count)
    table = detail.get_by_test_id("list-table")
    rows = table.locator("tbody tr.ant-table-row")
    rows.nth(min(count, PAGE_SIZE) - 1).wait_for()
    assert rows.count() == min(count, PAGE_SIZE)
    start_column = _headers(table).index(text("zh-CN", "alarmList", "fields.startTime"))
    for i in range(rows.count()):
        assert plate in rows.nth(i).inner_text()
        assert rows.nth(i).locator("td").nth(start_column).inner_text().strip() in expected
    # every row opens the alarm's own detail (listAlarmDetail)
    link = rows.first.locator("[data-testid^=row-detail-]")
    assert re.fullmatch(r"/list/alarmDetail\?id=\d+", link.get_attribute("href") or "")

    # the file: every row of the detail (all pages), with the titles the table shows
    shown = [h for h in _headers(table) if h]
    with page.expect_download() as download:
        detail.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    assert lines[0] == shown[:len(lines[0])] and text("zh-CN", "alarmList", "fields.plateNumber") in lines[0]
    assert len(lines) == 1 + count
    started = lines[0].index(text("zh-CN", "alarmList", "fields.startTime"))
    assert sorted(line[started] for line in lines[1:]) == sorted(expected)
    assert page.errors == []  # type: ignore[attr-defined]


def test_an_alarm_total_opens_every_alarm_of_that_terminal_s_day(
        page: Any, console_stack: ConsoleStack, report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/report/alarm")
    report = page.get_by_test_id("list-page-deviceDayReport")
    count, query, _ = _open_count(page, report, "alarmTotal")
    device_id, day = int(query["deviceId"][0]), int(query["startDate"][0])
    assert len(_start_times(console_stack.db_url, day, device_id=device_id)) == count
    detail = page.locator("[data-testid=list-page-alarm]:visible")
    page.get_by_test_id("report-alarm-title").filter(has_text=text("zh-CN", "report", "fields.alarmTotal")).wait_for()
    _total(detail, count)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_an_enterprise_s_alarm_count_opens_its_alarms_in_each_language(
        page: Any, console_stack: ConsoleStack, report_days: ReportDays, language: str) -> None:
    sign_in(page, "admin", path="/report/enterpriseDailyMileage")
    if language != "zh-CN":
        switch_language(page, language)
    report = page.locator("[data-testid=list-page-enterpriseDayReport]:visible")
    count, query, _ = _open_count(page, report, "alarms")
    enterprise_id, day = int(query["enterpriseId"][0]), int(query["startDate"][0])
    assert len(_start_times(console_stack.db_url, day, enterprise_id=enterprise_id)) == count
    detail = page.locator("[data-testid=list-page-alarm]:visible")
    _total(detail, count, language)
    page.locator("[data-testid^='tab-/report/alarmDetail?']").filter(
        has_text=text(language, "menu", "menu.report.alarmDetail")).wait_for()
    page.get_by_test_id("report-alarm-title").filter(has_text=text(language, "report", "fields.alarmTotal")).wait_for()
    table = detail.get_by_test_id("list-table")
    for field in ("plateNumber", "startTime", "endTime", "address"):
        table.locator("thead th").filter(
            has_text=re.compile(f"^{re.escape(text(language, 'alarmList', f'fields.{field}'))}$")).wait_for()
    table.locator("thead th").filter(
        has_text=re.compile(f"^{re.escape(text(language, 'report', 'fields.durationS'))}$")).wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_another_enterprise_s_terminal_lists_no_alarms(page: Any, console_stack: ConsoleStack,
                                                       report_days: ReportDays) -> None:
    """The detail's rows are the alarm query's, scoped to the caller's tree on the server: subsidiary b's
    terminal in a link opened by subsidiary a's administrator lists nothing, while its own tree sees them."""
    day = int(report_days.first.strftime("%Y%m%d"))
    vehicle = max(console_stack.of("b"),
                  key=lambda v: len(_start_times(console_stack.db_url, day, device_id=v.device_id)))
    alarms = len(_start_times(console_stack.db_url, day, device_id=vehicle.device_id))
    assert alarms > 0
    path = f"/report/alarmDetail?deviceId={vehicle.device_id}&startDate={day}&endDate={day}&kind=alarmTotal"
    conditions = {"deviceId.eq": vehicle.device_id}
    query = "/api/common/query/alarm.json?isParent=true&countable=true&pageSize=1000"
    assert console_stack.post(query, console_stack.token("admin_b"), conditions)["total"] >= alarms
    assert console_stack.post(query, console_stack.token("admin_a"), conditions)["list"] == []

    sign_in(page, "admin_b", path=path)
    _total(page.get_by_test_id("list-page-alarm"), alarms)
    other = new_console_context(page.context.browser, base_url=console_stack.base_url, locale="zh-CN",
                                timezone_id="Asia/Shanghai")
    try:
        page_a = other.new_page()
        sign_in(page_a, "admin_a", path=path)
        detail = page_a.get_by_test_id("list-page-alarm")
        detail.locator(".ant-table-placeholder").wait_for()
        page_a.wait_for_load_state("networkidle")
        assert detail.locator("tbody tr.ant-table-row").count() == 0
    finally:
        other.close()
    assert page.errors == []  # type: ignore[attr-defined]
