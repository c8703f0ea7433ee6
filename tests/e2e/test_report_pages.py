"""Reports, dashboards and cockpits in Chromium, on the shared stack with three closed days of
generated history built into reports (tests/support/report_history.py) and the simulated fleet live today:
the daily mileage report opens on the last 7 days with its rows and charts, filters to one vehicle, exports
XLSX and CSV (the files arrive and parse: one line per row), and reads the same in zh-CN, zh-HK and en-US
(a summary's export header too), and every report screen opens from the menu in each language; the alarm overview counts each alarm type and drills down to its alarms; the
dashboard index sums the month's running figures; the cockpits render (map canvas, figures not empty, the
fleet live over STOMP); a screenshot of each family with FLEET_SCREENSHOTS=1."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from api.routemap import REPORT_PAGES
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import CONSOLE_DIST, choose, click_until, sign_in
from tests.e2e.test_console import context_menu, screenshot, switch_language, text
from tests.support.report_history import REPORT_ZONE, ReportDays, build_report_days
from warehouse.db import connect

DAYS = 3
NEV_VEHICLES = 2


@pytest.fixture(scope="module")
def report_days(console_stack: ConsoleStack, tmp_path_factory: pytest.TempPathFactory) -> ReportDays:
    """Three closed days of history for the stack's 20 vehicles, built; the first two vehicles new-energy."""
    built = build_report_days(console_stack.db_url, DAYS, tmp_path_factory.mktemp("lake"))
    with connect(console_stack.db_url) as conn:
        conn.execute("UPDATE car SET car_type = 2 WHERE id = ANY(%s)",
                     ([v.car_id for v in console_stack.vehicles[:NEV_VEHICLES]],))
        conn.commit()
    return built


def _tree(url: str) -> str:
    """The enterprise path of ``admin``'s tree (the stack's parent enterprise; other tests add to it)."""
    with connect(url) as conn:
        row = conn.execute("SELECT e.path FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id"
                           " WHERE u.user_name = 'admin'").fetchone()
    assert row is not None
    return str(row[0])


def _day_rows(url: str, built: ReportDays, car_ids: list[int] | None = None, distinct: bool = False) -> int:
    """Day rows (or distinct vehicles with day rows) of the built days in admin's tree."""
    first, last = (int(d.strftime("%Y%m%d")) for d in (built.first, built.last))
    with connect(url) as conn:
        row = conn.execute("SELECT CASE WHEN %s THEN count(DISTINCT car_id) ELSE count(*) END FROM car_day_report"
                           " WHERE date BETWEEN %s AND %s AND enterprise_path LIKE %s || '%%'"
                           " AND (%s::bigint[] IS NULL OR car_id = ANY(%s))",
                           (distinct, first, last, _tree(url), car_ids, car_ids)).fetchone()
    return int(row[0]) if row else 0


def _tree_cars(url: str, car_type: int | None = None) -> int:
    """Live vehicles in admin's tree (of one energy type), a terminal or not: what the map lists and the
    cockpits count (the fleet figures, warehouse/queries/fleet_figures.py)."""
    with connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM car c"
                           " JOIN enterprise e ON e.id = c.enterprise_id WHERE c.record_state = 1"
                           " AND e.path LIKE %s || '%%' AND (%s::int IS NULL OR c.car_type = %s)",
                           (_tree(url), car_type, car_type)).fetchone()
    return int(row[0]) if row else 0


def _total(list_page: Any, rows: int, language: str = "zh-CN") -> None:
    words = text(language, "list", "total").replace("{{total}}", str(rows))
    list_page.get_by_test_id("list-total").filter(has_text=re.compile(f"^{re.escape(words)}$")).wait_for()


def _local_start(day: int) -> datetime:
    """The start of a report day (yyyymmdd) in the report zone."""
    return datetime.strptime(str(day), "%Y%m%d").replace(tzinfo=REPORT_ZONE)


def _alarms(url: str, key: str, first: int, last: int) -> int:
    """Alarms of one key in admin's tree that started in the report days first..last (yyyymmdd, both included);
    other modules' own enterprises sit outside that tree and the overview does not count them."""
    with connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM alarm a JOIN enterprise e ON e.id = a.enterprise_id"
                           " WHERE a.key = %s AND a.start_time >= %s AND a.start_time < %s AND e.path LIKE %s || '%%'",
                           (key, _local_start(first), _local_start(last) + timedelta(days=1), _tree(url))).fetchone()
    return int(row[0]) if row else 0


def _alarm_plates(url: str, key: str, first: int, last: int) -> set[str]:
    """Plates of the vehicles in admin's tree with an alarm of one key in the report days first..last."""
    with connect(url) as conn:
        rows = conn.execute("SELECT DISTINCT a.plate_number, c.plate_number FROM alarm a LEFT JOIN car c ON c.id = a.car_id"
                            " JOIN enterprise e ON e.id = a.enterprise_id"
                            " WHERE a.key = %s AND a.start_time >= %s AND a.start_time < %s AND e.path LIKE %s || '%%'",
                            (key, _local_start(first), _local_start(last) + timedelta(days=1), _tree(url))).fetchall()
    return {plate for row in rows for plate in row if plate}


def _column(table: Any, title: str) -> int:
    """The index of the column whose header reads ``title``."""
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    return headers.index(title)


def test_daily_mileage_report_filters_charts_and_exports(page: Any, console_stack: ConsoleStack,
                                                        report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/report/dailyMileage")
    report = page.get_by_test_id("list-page-carDayReport")
    everyone = _day_rows(console_stack.db_url, report_days)
    seeded = [v.car_id for v in console_stack.vehicles]
    assert _day_rows(console_stack.db_url, report_days, seeded) == DAYS * len(seeded)  # each built day of each
    _total(report, everyone)  # the last 7 days by default: the 3 built days of every vehicle of the tree
    report.locator("[data-testid=report-charts][data-loaded=true]").wait_for()
    mileage = report.get_by_test_id("report-chart-mileage")
    mileage.locator("canvas").wait_for()
    assert int(mileage.get_attribute("data-points") or 0) == DAYS
    report.get_by_test_id("report-chart-top").locator("canvas").wait_for()
    screenshot(page, "report-daily-mileage-zh-CN.png")

    vehicle = console_stack.vehicles[3]
    choose(page, report.get_by_test_id("list-filter-carId"), vehicle.plate)
    report.get_by_test_id("list-search").click()
    _total(report, DAYS)
    rows = report.get_by_test_id("list-table").locator("tbody tr.ant-table-row")
    assert rows.count() == DAYS and all(vehicle.plate in rows.nth(i).inner_text() for i in range(DAYS))

    with page.expect_download() as download:
        report.get_by_test_id("list-export-xlsx").click()
    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()), read_only=True).active
    assert sheet is not None
    table = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert len(table) == 1 + DAYS and "里程(km)" in table[0]
    plate_column = table[0].index("车牌号")
    assert {r[plate_column] for r in table[1:]} == {vehicle.plate}
    with page.expect_download() as download:
        report.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    assert len(lines) == 1 + DAYS and lines[0] == table[0]
    assert page.errors == []  # type: ignore[attr-defined]


FIRST_ROW_PROBE = """
(() => {
  let seen = false;
  const check = () => {
    if (seen || !document.querySelector('[data-testid=list-table] tbody tr.ant-table-row')) return;
    seen = true;
    window.__firstRowAt = performance.now();
    window.__firstRow(Boolean(document.querySelector('[data-testid=list-filters]')));
  };
  const start = () => new MutationObserver(check).observe(document.documentElement, { subtree: true, childList: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""


# The reloaded document's requests, in the order they left, each with whether it left before the first row: its
# resource timing, not the browser's request events, in which the page being replaced still asks for things.
DOCUMENT_CALLS = """() => performance.getEntriesByType('resource')
  .sort((a, b) => a.startTime - b.startTime)
  .map((e) => [new URL(e.name).pathname, e.startTime < window.__firstRowAt])"""

# The shell's deferred calls answered (resource timing lists a request once it is done).
SHELL_CALLS_DONE = """() => ['/api/system/dictionary/dictionary.json', '/api/notice/overView.json'].every(
  (call) => performance.getEntriesByType('resource').some((e) => e.name.includes(call)))"""


def test_report_opens_with_its_rows_before_the_filter_bar_and_the_shell_calls(page: Any, console_stack: ConsoleStack,
                                                                              report_days: ReportDays) -> None:
    # A report's first rows come first (performance target: first rows <= 1 s): the filter bar's tree and
    # pickers, the notice overview and the start-up dictionaries follow them, and then all of them work.
    sign_in(page, "admin", path="/report/dailyMileage")
    page.get_by_test_id("list-page-carDayReport").get_by_test_id("list-total").wait_for()
    rows: list[str] = []
    page.expose_function("__firstRow", lambda filters: rows.append("filters" if filters else ""))
    page.add_init_script(FIRST_ROW_PROBE)
    page.reload()  # the opening page of a signed-in session, as after a bookmark
    report = page.get_by_test_id("list-page-carDayReport")
    _total(report, _day_rows(console_stack.db_url, report_days))
    report.get_by_test_id("list-filters").wait_for()
    page.wait_for_function(SHELL_CALLS_DONE)
    assert rows == [""], rows  # no filter bar yet when the first row shows
    calls = page.evaluate(DOCUMENT_CALLS)
    before = {path for path, early in calls if early}
    assert "/api/common/query/carDayReport.json" in before
    for deferred in ("/api/notice/overView.json", "/api/system/dictionary/dictionary.json", "/api/aas/subsidiary.json",
                     "/api/common/meta/car.json"):
        assert deferred not in before, (deferred, calls)
    after = {path for path, early in calls if not early}
    assert {"/api/notice/overView.json", "/api/system/dictionary/dictionary.json"} <= after
    vehicle = console_stack.vehicles[3]
    choose(page, report.get_by_test_id("list-filter-carId"), vehicle.plate)
    report.get_by_test_id("list-search").click()
    _total(report, DAYS)
    assert page.errors == []  # type: ignore[attr-defined]


# Every <style> antd inserts into the page before the report's first row, with the start of its text.
RUNTIME_STYLE_PROBE = """
(() => {
  const inserted = [];
  window.__antdStyles = inserted;
  let row = false;
  const isRow = (node) => node.nodeType === 1
    && (node.matches('[data-testid=list-table] tbody tr.ant-table-row')
        || node.querySelector('[data-testid=list-table] tbody tr.ant-table-row') !== null);
  const check = (mutations) => {
    for (const m of mutations) for (const node of m.addedNodes) {
      if (row) return;
      if (node.nodeName === 'STYLE') inserted.push((node.textContent || '').slice(0, 160));
      else if (isRow(node)) row = true;
    }
  };
  const start = () => new MutationObserver(check).observe(document.documentElement, { subtree: true, childList: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""
RGB_OF = "(selector) => getComputedStyle(document.querySelector(selector)).backgroundColor.match(/\\d+/g).map(Number)"
COLOUR_IS = f"([selector, want]) => ({RGB_OF})(selector).slice(0, 3).join() === want.join()"
DARK = f"(selector) => ({RGB_OF})(selector).slice(0, 3).reduce((a, b) => a + b) < 150"


def _rgb(page: Any, selector: str, prop: str) -> tuple[int, ...]:
    value = page.eval_on_selector(selector, f"(e) => getComputedStyle(e).{prop}")
    found = re.match(r"rgba?\((\d+), (\d+), (\d+)", value)
    assert found, (selector, prop, value)
    return tuple(int(found.group(i)) for i in (1, 2, 3))


@pytest.mark.parametrize("path,entity,own", [
    ("/report/alarmOverview", "deviceDayReport", ()),
    ("/list/car", "car", ("/api/aas/subsidiary.json",)),  # the enterprise column's names
])
def test_a_list_page_of_another_kind_also_opens_with_its_rows_before_the_shell_calls(
        page: Any, report_days: ReportDays, path: str, entity: str, own: tuple[str, ...]) -> None:
    # The alarm overview sums its entity's rows in the browser (another source than the list's query), the
    # vehicle list is an administrator's list: each page names its entity too, so its meta leaves with its
    # chunk and the shell's calls wait for its first rows; only the page's own calls go with them.
    sign_in(page, "admin", path=path)
    overview = page.get_by_test_id(f"list-page-{entity}")
    overview.locator("tbody tr.ant-table-row").first.wait_for()
    rows: list[str] = []
    page.expose_function("__firstRow", lambda filters: rows.append("filters" if filters else ""))
    page.add_init_script(FIRST_ROW_PROBE)
    page.reload()
    overview.locator("tbody tr.ant-table-row").first.wait_for()
    page.wait_for_function(SHELL_CALLS_DONE)
    assert len(rows) == 1, rows
    calls = page.evaluate(DOCUMENT_CALLS)
    before = [path for path, early in calls if early and path.startswith("/api/")]
    assert before == [f"/api/common/meta/{entity}.json", f"/api/common/query/{entity}.json", *own], calls
    after = {path for path, early in calls if not early}
    assert {"/api/notice/overView.json", "/api/system/dictionary/dictionary.json"} <= after
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_a_report_whose_code_does_not_load_says_so_and_opens_after_reload(
        page: Any, console_stack: ConsoleStack, report_days: ReportDays, language: str) -> None:
    # A page's chunk that fails, or does not come within 120 s (console-spec §8), shows the exception page with
    # a reload button, not a spinner for ever; the page opened from the menu loads its code at that moment.
    manifest = json.loads((CONSOLE_DIST / ".vite" / "manifest.json").read_text())
    chunk = "/" + manifest["src/screens/report/dailyMileage.tsx"]["file"]
    sign_in(page, "admin", path="/dashboard/index")
    if language != "zh-CN":
        switch_language(page, language)
    page.route(f"**{chunk}", lambda route: route.abort())
    menu = page.get_by_test_id("menu")
    title = text(language, "menu", "menu.report.dailyMileage")

    def open_entry() -> None:
        entry = menu.get_by_text(title, exact=True)
        if not entry.is_visible():
            menu.get_by_text(text(language, "menu", "menu.report"), exact=True).click()
        entry.click()

    click_until(open_entry, page.get_by_test_id("tab-/report/dailyMileage"))
    failed = page.locator(".ant-result").filter(has_text=text(language, "exception", "loadFailed"))
    failed.wait_for()
    assert page.get_by_test_id("list-page-carDayReport").count() == 0
    page.unroute(f"**{chunk}")
    reload = failed.locator(".ant-btn-primary")
    assert reload.inner_text().replace(" ", "") == text(language, "exception", "reload")  # antd spaces 2 CJK
    reload.click()
    report = page.get_by_test_id("list-page-carDayReport")
    _total(report, _day_rows(console_stack.db_url, report_days), language)


def test_report_first_render_uses_the_built_antd_styles_and_themes_still_restyle(
        page: Any, console_stack: ConsoleStack, report_days: ReportDays) -> None:
    # A report's first rows <= 1 s (docs/performance.md, sixth pass): antd's component styles of a list page's
    # first render come from the stylesheet the build wrote (dashboards/scripts/antdStaticStyle.ts), none is
    # built in the browser before the first row; the theme stays runtime CSS variables, so the settings
    # drawer's primary colour and night mode restyle the page (console-spec §2 "Settings drawer").
    sign_in(page, "admin", path="/report/dailyMileage")
    page.get_by_test_id("list-page-carDayReport").get_by_test_id("list-total").wait_for()
    page.add_init_script(RUNTIME_STYLE_PROBE)
    page.reload()  # the opening page of a signed-in session
    report = page.get_by_test_id("list-page-carDayReport")
    _total(report, _day_rows(console_stack.db_url, report_days))
    linked = page.eval_on_selector_all("link[rel=stylesheet]", "(ls) => ls.map((l) => new URL(l.href).pathname)")
    assert linked and re.fullmatch(r"/assets/antd-static-[0-9a-f]+\.css", linked[0]), linked
    built_here = [s for s in page.evaluate("() => window.__antdStyles") if ":where(.css-" in s]
    assert built_here == [], built_here  # every component style of the first render came from the file
    table = "[data-testid=list-page-carDayReport] .ant-table"
    assert page.eval_on_selector(table, "(e) => getComputedStyle(e).fontSize") == "14px"
    assert _rgb(page, table, "backgroundColor") == (255, 255, 255)
    search = "[data-testid=list-page-carDayReport] [data-testid=list-search]"
    report.get_by_test_id("list-search").wait_for()
    assert _rgb(page, search, "backgroundColor") == (24, 144, 255)  # the default primary colour, daybreak

    page.get_by_test_id("settings-toggle").click()
    drawer = page.get_by_test_id("settings-drawer")
    drawer.get_by_test_id("settings-color-dust").click()
    page.wait_for_function(COLOUR_IS, arg=[search, [245, 34, 45]])
    drawer.get_by_text(text("zh-CN", "layout", "settings.navTheme.night"), exact=True).click()
    page.wait_for_function(DARK, arg=table)
    red, green, blue = _rgb(page, search, "backgroundColor")  # night mode derives its own shade of the colour
    assert red > 150 and green < 90 and blue < 90, (red, green, blue)
    drawer.get_by_text(text("zh-CN", "layout", "settings.navTheme.light"), exact=True).click()
    page.wait_for_function(COLOUR_IS, arg=[table, [255, 255, 255]])
    assert page.errors == []  # type: ignore[attr-defined]


def test_daily_mileage_report_reads_in_three_languages(page: Any, console_stack: ConsoleStack,
                                                        report_days: ReportDays) -> None:
    """The same report in zh-CN, zh-HK and en-US: its tab, column titles, chart titles, total, export buttons;
    a browser-written export's header in English."""
    sign_in(page, "admin", path="/report/dailyMileage")
    report = page.get_by_test_id("list-page-carDayReport")
    rows = _day_rows(console_stack.db_url, report_days)
    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            switch_language(page, language)
        _total(report, rows, language)
        page.get_by_test_id("tab-/report/dailyMileage").filter(
            has_text=text(language, "menu", "menu.report.dailyMileage")).wait_for()
        table = report.get_by_test_id("list-table")
        for field in ("plateNumber", "mileageKm", "driveS"):
            table.locator("thead th").filter(has_text=re.compile(f"^{re.escape(text(language, 'report', f'fields.{field}'))}$")).wait_for()
        charts = report.locator("[data-testid=report-charts][data-loaded=true]")
        for chart in ("mileagePerDay", "topMileage"):
            charts.get_by_text(text(language, "report", f"chart.{chart}"), exact=True).wait_for()
        report.get_by_test_id("list-export-csv").filter(has_text=text(language, "list", "export.csv")).wait_for()
    report.get_by_test_id("report-chart-mileage").locator("canvas").wait_for()
    screenshot(page, "report-daily-mileage-en-US.png")

    with page.expect_download() as download:
        report.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    assert len(lines) == 1 + rows  # the server's file: its header is the entity's labels (zh-CN) in any language
    # a report summed in the browser writes its file with the columns as shown: in English here
    page.goto("/report/mileage")
    summary = page.locator("[data-testid=list-page-carDayReport]:visible")  # the daily report's tab stays open
    summary.locator("[data-testid=report-charts][data-loaded=true]").wait_for()
    _total(summary, _day_rows(console_stack.db_url, report_days, distinct=True), "en-US")
    with page.expect_download() as download:
        summary.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    assert {text("en-US", "report", "fields.plateNumber"), text("en-US", "report", "fields.mileageKm")} <= set(lines[0])
    assert len(lines) == 1 + _day_rows(console_stack.db_url, report_days, distinct=True)
    switch_language(page, "zh-CN")
    assert page.errors == []  # type: ignore[attr-defined]


def test_alarm_overview_drills_down_to_the_alarms_of_a_type(page: Any, console_stack: ConsoleStack,
                                                           report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/report/alarmOverview")
    overview = page.get_by_test_id("list-page-deviceDayReport")
    overview.locator("[data-testid=report-charts][data-loaded=true]").wait_for()
    overview.get_by_test_id("report-chart-types").locator("canvas").wait_for()
    table = overview.get_by_test_id("list-table")
    top = table.locator("tbody tr.ant-table-row").first
    top.wait_for()
    key = top.get_attribute("data-row-key") or ""
    cells = top.locator("td")
    count = int(cells.nth(_column(table, text("zh-CN", "report", "fields.alarms"))).inner_text())
    name = cells.nth(_column(table, text("zh-CN", "report", "fields.alarmType"))).inner_text().strip()
    first, last = (int(d.strftime("%Y%m%d")) for d in (report_days.first, report_days.last))
    # the types are counted from the built day rows: the generated alarms of that key in those days
    assert count == _alarms(console_stack.db_url, key, first, last) > 0

    top.get_by_test_id(f"row-detail-{key}").click()
    page.wait_for_url(re.compile(r"/report/alarmOverviewDetail\?"))
    query = parse_qs(urlparse(page.url).query)
    assert query["key"] == [key]
    start, end = int(query["startDate"][0]), int(query["endDate"][0])
    assert start <= first and end >= last  # the overview's days
    detail = page.get_by_test_id("list-page-alarm")
    page.get_by_test_id("report-alarm-title").filter(has_text=name).wait_for()
    _total(detail, _alarms(console_stack.db_url, key, start, end))
    alarms = detail.get_by_test_id("list-table").locator("tbody tr.ant-table-row")
    alarms.first.wait_for()
    # every row is an alarm of that key in those days (other tests' vehicles raise some too)
    plates = _alarm_plates(console_stack.db_url, key, start, end)
    assert plates and all(any(p in alarms.nth(i).inner_text() for p in plates) for i in range(alarms.count()))
    assert page.errors == []  # type: ignore[attr-defined]


def test_online_report_exports_the_columns_the_screen_shows(page: Any, console_stack: ConsoleStack,
                                                          report_days: ReportDays) -> None:
    """The online report's file: the table's header, then each row's cells as the table shows them."""
    sign_in(page, "admin", path="/report/online")
    report = page.get_by_test_id("list-page-carDayReport")
    vehicle = console_stack.vehicles[2]
    choose(page, report.get_by_test_id("list-filter-carId"), vehicle.plate)
    report.get_by_test_id("list-search").click()
    _total(report, DAYS)
    table = report.get_by_test_id("list-table")
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    headers = [h for h in headers if h]  # the selection column has no title
    shown = [[c.strip() for c in row.locator("td").all_inner_texts()]
             for row in table.locator("tbody tr.ant-table-row").all()]
    with page.expect_download() as download:
        report.get_by_test_id("list-export-csv").click()
    lines = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8-sig"))))
    assert lines[0] == headers, (lines[0], headers)
    assert sorted(lines[1:]) == sorted(r[-len(headers):] for r in shown)
    assert page.errors == []  # type: ignore[attr-defined]


def test_report_summed_in_the_browser_exports_its_own_file(page: Any, console_stack: ConsoleStack,
                                                          report_days: ReportDays) -> None:
    """The mileage summary's rows come from dayReport/page/sum: its XLSX is written in the browser."""
    sign_in(page, "admin", path="/report/mileage")
    report = page.get_by_test_id("list-page-carDayReport")
    vehicles = _day_rows(console_stack.db_url, report_days, distinct=True)
    assert vehicles >= len(console_stack.vehicles)
    _total(report, vehicles)
    report.get_by_test_id("report-chart-top").locator("canvas").wait_for()
    screenshot(page, "report-mileage-summary-zh-CN.png")
    with page.expect_download() as download:
        report.get_by_test_id("list-export-xlsx").click()
    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()), read_only=True).active
    assert sheet is not None
    table = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert len(table) == 1 + vehicles
    km = table[0].index("里程(km)")
    plate = table[0].index("车牌号")
    assert all(isinstance(r[km], int | float) for r in table[1:])  # numbers, not text
    seeded = {v.plate for v in console_stack.vehicles}
    assert sum(1 for r in table[1:] if r[plate] in seeded and r[km] > 0) == len(seeded)  # the generated vehicles drove


def _open_cockpit(console: Any, link: str, path: str, errors: list[str]) -> Any:
    """The header's cockpit link opens the cockpit in a new browser tab (console-spec §1): that tab."""
    with console.context.expect_page() as opened:
        console.get_by_test_id(link).click()
    cockpit = opened.value
    cockpit.on("pageerror", lambda exc: errors.append(str(exc)))
    cockpit.wait_for_url(f"**{path}")
    return cockpit


def test_cockpits_render_live_figures_on_the_map(page: Any, console_stack: ConsoleStack,
                                                report_days: ReportDays) -> None:
    sign_in(page, "admin", path="/dashboard/index")
    stats = page.get_by_test_id("running-stats")
    stats.wait_for()
    # this month's running figures: the sum of the tree's day rows from the 1st to today
    stats.get_by_test_id("running-range").get_by_text(text("zh-CN", "dashboard", "running.range.month"), exact=True).click()
    page.locator("[data-testid=running-stats][data-range=month]").wait_for()
    today = datetime.now(REPORT_ZONE).date()
    with connect(console_stack.db_url) as conn:
        row = conn.execute("SELECT sum(mileage_km) FROM car_day_report WHERE date BETWEEN %s AND %s"
                           " AND enterprise_path LIKE %s || '%%'",
                           (int(today.strftime("%Y%m01")), int(today.strftime("%Y%m%d")), _tree(console_stack.db_url))).fetchone()
    km = int((row[0] if row and row[0] is not None else 0) + 0.5)
    stats.get_by_test_id("running-mileageKm").filter(has_text=re.compile(f"^{km:,}$")).wait_for()
    if report_days.first.month == today.month:
        assert km > 0
        stats.get_by_test_id("running-chart").locator("canvas").wait_for()
    screenshot(page, "dashboard-index-zh-CN.png")

    console, errors = page, []
    page = _open_cockpit(console, "open-cockpit", "/cockpit/index", errors)  # a browser tab of its own
    page.locator("[data-testid=cockpit-index][data-ready=true]").wait_for(timeout=60_000)  # the server's figures in
    board = page.get_by_test_id("cockpit-index")
    board.locator("[data-testid=cockpit-live][data-status=connected]").wait_for()  # its own STOMP session
    board.get_by_test_id("cockpit-map").locator("canvas").wait_for()
    page.wait_for_function("() => document.body.dataset.cockpitPainted !== undefined")
    total = board.get_by_test_id("cockpit-figure-total")
    assert total.get_attribute("data-value") == str(_tree_cars(console_stack.db_url))
    # the simulated fleet is online: the figures fill from the bulk read and stay live over STOMP
    page.wait_for_function("() => Number(document.querySelector('[data-testid=cockpit-figure-online]')"
                           "?.getAttribute('data-value')) > 0")
    page.wait_for_function("() => Number(document.querySelector('[data-testid=cockpit-map]')"
                           "?.getAttribute('data-points')) > 0")
    assert int(board.get_by_test_id("cockpit-map").get_attribute("data-provinces") or 0) >= 1  # vehicles per province
    # the tests' browser asks for less motion (support.new_console_context): alarming vehicles ripple under the pointer
    assert board.get_by_test_id("cockpit-map").get_attribute("data-ripple") == "hover"
    board.get_by_test_id("cockpit-chart-km").locator("canvas").wait_for()
    board.get_by_test_id("cockpit-chart-safety").or_(board.locator(".fw-cockpit-empty")).first.wait_for()
    for name in ("todayKm", "alarmsToday", "driving", "offline"):
        assert board.get_by_test_id(f"cockpit-figure-{name}").inner_text().strip() != ""
    screenshot(page, "cockpit-index-zh-CN.png")

    page.close()
    page = _open_cockpit(console, "open-cockpit-nev1", "/cockpit/nev1/index", errors)
    page.locator("[data-testid=cockpit-nev1-index][data-ready=true]").wait_for(timeout=60_000)
    nev = page.get_by_test_id("cockpit-nev1-index")
    nev.get_by_test_id("cockpit-map").locator("canvas").wait_for()
    assert nev.get_by_test_id("cockpit-figure-total").get_attribute("data-value") == str(_tree_cars(console_stack.db_url, 2))
    assert _tree_cars(console_stack.db_url, 2) >= NEV_VEHICLES
    nev.get_by_test_id("cockpit-figure-soc").wait_for()  # its value: tests/e2e/test_nev_console_browser.py
    screenshot(page, "cockpit-nev1-zh-CN.png")
    assert console.errors == [] and errors == []


def test_alarm_overview_counts_the_adas_and_dsm_alarms_of_the_seeded_days(page: Any, console_stack: ConsoleStack,
                                                                        report_days: ReportDays) -> None:
    """The generated history carries the live stream's active-safety mix, so 报警总览 of the built days lists
    ADAS and DSM types (with the counts of their rows) beside the terminal bits."""
    sign_in(page, "admin", path="/report/alarmOverview")
    overview = page.get_by_test_id("list-page-deviceDayReport")
    table = overview.get_by_test_id("list-table")
    table.locator("tbody tr.ant-table-row").first.wait_for(timeout=60_000)  # a loaded shared machine: seconds
    first, last = (int(d.strftime("%Y%m%d")) for d in (report_days.first, report_days.last))
    for family in ("adas", "dsm"):
        row = table.locator(f"tbody tr.ant-table-row[data-row-key^='{family}_']").first
        row.wait_for()
        key = row.get_attribute("data-row-key") or ""
        count = int(row.locator("td").nth(_column(table, text("zh-CN", "report", "fields.alarms"))).inner_text())
        assert count == _alarms(console_stack.db_url, key, first, last) > 0, key
    assert page.errors == []  # type: ignore[attr-defined]


def test_report_screens_open_with_their_charts(page: Any, console_stack: ConsoleStack, report_days: ReportDays) -> None:
    """A screen of each family: an overview summed in the browser, the KPIs, the running charts."""
    sign_in(page, "admin", path="/report/alarmOverview")
    page.locator("[data-testid=report-charts][data-loaded=true]").wait_for()
    screenshot(page, "report-alarm-overview-zh-CN.png")
    page.goto("/report/kpi")
    page.get_by_test_id("kpi-qualificationRate").filter(has_text="%").wait_for()
    page.get_by_test_id("report-chart-kpi").locator("canvas").wait_for()
    screenshot(page, "report-kpi-zh-CN.png")
    page.goto("/dashboard/analysis")
    for chart in ("speed", "mileage", "overspeed", "driving", "avgSpeed"):
        page.get_by_test_id(f"analysis-chart-{chart}").locator("canvas").wait_for()
    assert int(page.get_by_test_id("analysis-chart-mileage").get_attribute("data-points") or 0) == DAYS
    screenshot(page, "dashboard-analysis-zh-CN.png")
    assert page.errors == []  # type: ignore[attr-defined]


UNTRANSLATED = re.compile(r"^[A-Za-z]+:[\w.]+$|(^|\.)(fields|chart|enums)\.")  # an i18n key shown instead of its text


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_every_report_screen_opens_from_the_menu(page: Any, console_stack: ConsoleStack, report_days: ReportDays,
                                                 language: str) -> None:
    """Each report of the menu (and the drivers' attendance log), opened as a user does, in each language: its
    tab and menu entry read the language's title, its table answers with the language's total (or says what to
    choose first), its charts load;
    no column or chart title is an untranslated key; no page error."""
    sign_in(page, "admin", path="/dashboard/index")
    if language != "zh-CN":
        switch_language(page, language)
    menu = page.get_by_test_id("menu")
    screens = [(f"/report/{name}", "menu.report", f"menu.report.{name}") for name, _ in REPORT_PAGES]
    screens.append(("/log/driverAttendance", "menu.log", "menu.log.driverAttendance"))
    total = re.compile("^" + re.escape(text(language, "list", "total")).replace(re.escape("{{total}}"), r"\d+") + "$")
    for path, group, key in screens:
        title = text(language, "menu", key)
        # A user opens the entry's group when the entry is hidden, and clicks the entry again when a click made
        # while the group was still unfolding opened nothing (seen under load: no navigation, no tab).
        def open_entry(title: str = title, group: str = group) -> None:
            entry = menu.get_by_text(title, exact=True)
            if not entry.is_visible():
                menu.get_by_text(text(language, "menu", group), exact=True).click()
            entry.click()

        click_until(open_entry, page.get_by_test_id(f"tab-{path}").filter(has_text=title))
        screen = page.locator("[data-testid^=list-page-]:visible")
        # the table's total; or, loaded and empty (no active-safety alarm generated), its placeholder; or what to
        # choose first (the track report: a vehicle and its hours)
        answered = screen.get_by_test_id("list-total").filter(has_text=total)
        empty = screen.locator("[data-testid=list-table]:not(:has(.ant-spin-spinning)) .ant-table-placeholder")
        answered.or_(empty).or_(screen.get_by_test_id("list-required")).first.wait_for()
        charts = screen.locator("[data-testid=report-charts]")
        if charts.count() and not screen.get_by_test_id("list-required").count():
            screen.locator("[data-testid=report-charts][data-loaded=true]").wait_for()
        shown = screen.locator("thead th").all_inner_texts() + (charts.first.inner_text().splitlines() if charts.count() else [])
        assert not [t for t in shown if UNTRANSLATED.search(t.strip())], (path, shown)
        context_menu(page, path, "closeCurrent")
    assert page.errors == []  # type: ignore[attr-defined]
