"""Fences in Chromium (platform-spec §2 settings fence / labelPoint, the route wizards, §9 label point business
type 4): a polygon drawn on the map becomes a platform fence, a bound vehicle crossing it raises its alarm on
the inOutAlarm list; the route wizard's 4 steps create a route fence with its segment's corridor and a bound
vehicle; a binding sheet (the drawer's template, filled in) binds the enterprise's car and refuses an unknown
plate row by row; a province / city / district picked in the cascader shows its outline and is named in the
list; the area vehicle search finds the vehicle that was inside with its entry and exit and links to its
replay; the screens read in the three languages. Each test has its own enterprise, car and terminal
(tests/e2e/safety_terminal.py), so the demo vehicles other modules read get no fence and no alarm."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import openpyxl
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from protocols.jt808 import Authentication, LocationReport
from tests.e2e.conftest import ConsoleStack
from tests.e2e.safety_terminal import Terminal, own_enterprise
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect

WAIT_MS = 45_000  # a loaded machine's slack for the worker and the API (never a sleep)


def _draw(page: Any, tool: str, offsets: list[tuple[int, int]]) -> Any:
    """Clicks the geoman ``tool`` then the map at ``offsets`` (px from the map's centre), then the tool's Finish
    action for a polygon or line. Answers the stored WGS-84 geometry the map shows."""
    area = page.get_by_test_id("fence-map").get_by_test_id("live-map")
    box = area.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.wait_for_function("() => document.querySelector('[data-testid=fence-map]').dataset.coord !== ''")
    time.sleep(0.5)  # the drawer's opening slide: a click during it lands beside the tool
    page.locator(f".leaflet-pm-icon-{tool}").first.click()
    page.locator(".button-container.active").first.wait_for()  # the tool is drawing
    for dx, dy in offsets:
        # The form above the map may grow while drawing (its hints): the map's centre is read for each point.
        box = area.bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # A point under one of the map's controls is a click on that control, not on the map: under the
        # active tool's action bar (Finish / Remove Last Vertex / Cancel) it ends drawing with no vertex.
        over = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.closest('.leaflet-control')?.className ?? ''",
            [cx + dx, cy + dy])
        assert over == "", f"({dx}, {dy}) from the map's centre lands on a map control ({over}), not on the map"
        # Geoman places a vertex where its hint marker is, and the hint marker follows mousemove events, one
        # per animation frame: a click that comes before the marker has moved is a click on the previous
        # vertex and adds nothing. So, as a user does: move to the point (several events), let two frames
        # pass, then click; for a polygon or a line, until that vertex is placed.
        frames = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        wanted = offsets.index((dx, dy)) + 1
        placed = ("(n) => document.querySelectorAll("
                  "'.leaflet-marker-pane .marker-icon:not(.cursor-marker)').length >= n")
        for attempt in range(3):
            page.mouse.move(cx + dx - 3, cy + dy - 3)
            page.mouse.move(cx + dx, cy + dy, steps=4)
            page.evaluate(frames)
            page.mouse.click(cx + dx, cy + dy)
            page.evaluate(frames)
            if tool not in ("polygon", "polyline"):
                break
            try:
                page.wait_for_function(placed, arg=wanted, timeout=3_000)
                break
            except PlaywrightTimeout:
                under = page.evaluate("([x, y]) => { const e = document.elementFromPoint(x, y); "
                                      "return e ? `${e.tagName}.${e.className}` : '' }", [cx + dx, cy + dy])
                assert attempt < 2, f"vertex {wanted} was never placed (under the point: {under})"
                box = area.bounding_box()
                cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if tool == "polygon":  # closes on its first vertex
        # The placed vertices, not geoman's cursor marker that follows the mouse (a marker-icon too).
        vertices = page.locator(".leaflet-marker-pane .marker-icon:not(.cursor-marker)")
        assert vertices.count() == len(offsets), (
            f"{vertices.count()} vertices, drawing: {page.locator('.button-container.active').count()}")
        vertices.first.click()
    elif tool == "polyline":
        page.locator(".leaflet-pm-actions-container .action-finish:visible").first.click()
    page.wait_for_function("() => document.querySelector('[data-testid=fence-map]').dataset.geometry !== ''")
    return json.loads(page.get_by_test_id("fence-map").get_attribute("data-geometry"))


def _pick_vehicle(page: Any, picker: str, plate: str) -> None:
    page.get_by_test_id(picker).click()
    page.keyboard.type(plate)
    page.locator(".ant-select-tree-treenode", has_text=plate).locator(".ant-select-tree-checkbox").click()
    page.keyboard.press("Escape")


def _authenticated(stack: ConsoleStack, fleet: dict[str, Any]) -> Terminal:
    terminal = Terminal(stack.gateway_port, fleet["phone"])
    assert terminal.reply_to(terminal.send(0x0102, Authentication("E2E9"))).result == 0
    return terminal


def _report(terminal: Terminal, lng: float, lat: float, at: datetime | None = None) -> None:
    report = LocationReport(0, 3, lat, lng, 50, 30.0, 90, at or terminal.next_fix_at(), {"mileage_km": 100.0})
    assert terminal.reply_to(terminal.send(0x0200, report)).result == 0


def _seen_outside(stack: ConsoleStack, device_id: int, fence_id: int) -> bool:
    """The worker's fence step has a position of the device (it keeps none of a device bound to no fence) and
    does not have it inside the fence (a vehicle far from every fence has no per-fence state)."""
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT jsonb_exists(state -> 'fences', %s) FROM fence_vehicle_state WHERE device_id = %s",
                           (str(fence_id), device_id)).fetchone()
    return row is not None and row[0] is False


def _centroid(ring: list[list[float]]) -> tuple[float, float]:
    return sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring)


def test_a_drawn_polygon_fence_bound_to_a_vehicle_shows_its_crossing_alarm(page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    sign_in(page, fleet["user"], path="/settings/fence")
    page.get_by_test_id("fence-create").click()
    page.get_by_test_id("fence-field-name").fill("E2E 多边形围栏")
    # The top row stays below the polygon tool's action bar, which opens beside the tool in the map's top left.
    geometry = _draw(page, "polygon", [(-120, -60), (120, -60), (120, 100), (-120, 100)])
    ring = geometry["rings"][0]
    assert len(ring) == 4
    page.get_by_test_id("fence-save").click()
    row = page.get_by_test_id("list-page-fence").locator("tr.ant-table-row", has_text="E2E 多边形围栏")
    row.wait_for()
    with connect(console_stack.db_url) as conn:
        stored = conn.execute("SELECT id, shape, geometry, business_type FROM fence WHERE enterprise_id = %s",
                              (fleet["enterprise_id"],)).fetchone()
    assert stored is not None and stored[1] == "polygon" and stored[3] == 1
    assert stored[2]["rings"][0] == ring  # what the map showed is what was stored, WGS-84
    fence_id = int(stored[0])

    page.get_by_test_id(f"row-bind-{fence_id}").click()
    page.get_by_test_id("binding-platform-note").wait_for()
    _pick_vehicle(page, "binding-picker", fleet["plate"])
    page.get_by_test_id("binding-add").click()
    page.get_by_test_id(f"binding-row-{fleet['car_id']}").wait_for()

    terminal = _authenticated(console_stack, fleet)
    try:
        inside = _centroid(ring)
        # The worker looks for new bindings every few seconds, and a vehicle it first sees inside a fence has
        # not crossed into it: well outside (the same place each time, so never a jump) until the worker's
        # state has the vehicle outside this fence.
        deadline = time.monotonic() + WAIT_MS / 1000
        while not _seen_outside(console_stack, fleet["device_id"], fence_id):
            assert time.monotonic() < deadline, "the worker never saw the vehicle outside the bound fence"
            _report(terminal, inside[0] + 0.3, inside[1])
            page.wait_for_timeout(500)
        for _ in range(3):
            _report(terminal, *inside)
        page.goto("/list/inOutAlarm")
        # The fence list stays open in its own (hidden) tab, with a row of the same name and its own search.
        alarms = page.get_by_test_id("list-page-inOutAlarm")
        crossing = alarms.locator("tr.ant-table-row", has_text="E2E 多边形围栏")
        deadline = time.monotonic() + WAIT_MS / 1000
        while crossing.count() == 0:
            assert time.monotonic() < deadline, "no crossing alarm of the fence on the inOutAlarm list"
            _report(terminal, *inside)
            alarms.get_by_test_id("list-search").click()
            page.wait_for_timeout(1000)
        assert crossing.first.get_by_text(fleet["plate"]).count() == 1
    finally:
        terminal.close()
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_route_wizard_creates_a_route_fence_with_its_segment_and_bound_vehicle(page: Any,
                                                                                  console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    sign_in(page, fleet["user"], path="/settings/fence")
    page.get_by_test_id("route-wizard-terminal").click()
    wizard = page.get_by_test_id("route-wizard")
    wizard.get_by_test_id("wizard-name").fill("E2E 线路")
    _draw(page, "polyline", [(-150, 0), (0, -60), (150, 0)])
    wizard.get_by_test_id("wizard-next").click()
    width = wizard.get_by_test_id("segment-width-0")
    width.fill("80")
    wizard.get_by_test_id("segment-maxTime-0").fill("900")
    wizard.get_by_test_id("wizard-next").click()
    wizard.get_by_test_id("fence-field-businessType").wait_for()
    wizard.get_by_test_id("wizard-next").click()
    _pick_vehicle(page, "wizard-picker", fleet["plate"])
    wizard.get_by_test_id("wizard-finish").click()
    page.get_by_test_id("list-page-fence").locator("tr.ant-table-row", has_text="E2E 线路").wait_for()
    with connect(console_stack.db_url) as conn:
        fence = conn.execute("SELECT id, fence_type, business_type, shape, geometry FROM fence WHERE enterprise_id = %s",
                             (fleet["enterprise_id"],)).fetchone()
        assert fence is not None
        bound = conn.execute("SELECT car_id FROM fence_binding WHERE fence_id = %s", (fence[0],)).fetchall()
    assert fence[1:4] == (4, 2, "route")
    segment = fence[4]["segments"][0]
    assert (segment["width"], segment["maxTime"], len(segment["points"])) == (80, 900, 3)
    assert [r[0] for r in bound] == [fleet["car_id"]]
    assert page.errors == []  # type: ignore[attr-defined]


def _terminal_fence(stack: ConsoleStack, fleet: dict[str, Any], name: str) -> int:
    """A terminal circle fence of the test's own enterprise (bound to nothing yet)."""
    with connect(stack.db_url) as conn:
        row = conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry)"
            " VALUES (%s, %s, 2, 2, 'circle', %s::jsonb) RETURNING id",
            (fleet["enterprise_id"], name, json.dumps({"center": [116.397, 39.909], "radius": 500}))).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0])


def test_a_binding_sheet_binds_the_enterprises_car_and_refuses_an_unknown_plate_row(
        page: Any, console_stack: ConsoleStack, tmp_path: Any) -> None:
    fleet = own_enterprise(console_stack)
    fence_id = _terminal_fence(console_stack, fleet, "E2E 导入围栏")
    sign_in(page, fleet["user"], path="/settings/fence")
    page.get_by_test_id(f"row-bind-{fence_id}").click()
    page.get_by_test_id("binding-table").wait_for()
    assert page.get_by_test_id(f"binding-row-{fleet['car_id']}").count() == 0
    page.get_by_test_id("binding-import").click()
    dialog = page.get_by_test_id("binding-import-dialog")
    # The drawer's template names its fence; the user fills in the plates. The template is written in the
    # browser, so its download follows the click at once; a click made while the dialog was still zooming open
    # was once lost under load (no download in 15 s), and a user clicks again.
    dialog.get_by_test_id("import-template").wait_for()  # the dialog's root has no box of its own: never "visible"
    page.wait_for_function("() => !document.querySelector('.ant-zoom-appear, .ant-zoom-enter')")
    for attempt in range(2):
        try:
            with page.expect_download(timeout=5_000 if attempt == 0 else 15_000) as download:
                dialog.get_by_test_id("import-template").click()
            break
        except PlaywrightTimeout:
            if attempt:
                raise
    sheet_path = tmp_path / "bindings.xlsx"
    download.value.save_as(sheet_path)
    book = openpyxl.load_workbook(sheet_path)
    sheet = book.active
    assert sheet is not None
    assert [c.value for c in sheet[1]] == ["围栏名称", "车牌号"] and sheet["A2"].value == "E2E 导入围栏"
    sheet["B2"] = fleet["plate"]
    sheet.append(["E2E 导入围栏", "京Z无此车"])
    book.save(sheet_path)

    dialog.locator("input[type=file]").set_input_files(str(sheet_path))
    summary = text("zh-CN", "list", "import.summary")
    for key, value in {"processed": 2, "total": 2, "created": 1, "failed": 1}.items():
        summary = summary.replace("{{" + key + "}}", str(value))
    dialog.get_by_test_id("import-summary").filter(has_text=summary).wait_for(timeout=WAIT_MS)
    refused = dialog.get_by_test_id("import-errors").locator("tr.ant-table-row")
    assert refused.count() == 1
    assert refused.first.locator("td").first.inner_text().strip() == "3"
    assert "车辆不存在或不属于围栏的企业" in refused.first.inner_text() and "京Z无此车" in refused.first.inner_text()
    dialog.get_by_role("button", name=text("zh-CN", "list", "import.close")).click()

    # The drawer reads its vehicles and their sync state again: the car is bound, its terminal state shown.
    bound = page.get_by_test_id(f"binding-row-{fleet['car_id']}")
    bound.wait_for()
    assert fleet["plate"] in bound.inner_text()
    bound.get_by_test_id(f"binding-sync-{fleet['car_id']}").wait_for()
    with connect(console_stack.db_url) as conn:
        rows = conn.execute("SELECT car_id FROM fence_binding WHERE fence_id = %s", (fence_id,)).fetchall()
    assert [r[0] for r in rows] == [fleet["car_id"]]
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_district_picked_by_province_city_and_district_shows_its_outline_and_is_named_in_the_list(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    sign_in(page, fleet["user"], path="/settings/fence")
    page.get_by_test_id("fence-create").click()
    page.get_by_test_id("fence-field-name").fill("E2E 行政区围栏")
    page.get_by_test_id("fence-field-shape").click()
    page.locator(".ant-select-item-option", has_text=text("zh-CN", "fence", "fence.enums.shape.district")).click()
    page.get_by_test_id("fence-field-district").click()
    menus = page.locator(".ant-cascader-dropdown:visible")
    for name in ("广东省", "深圳市"):
        menus.locator(".ant-cascader-menu-item", has_text=name).first.click()
    # A city the data has no outline of is the way on to its districts, not an area.
    page.get_by_test_id("fence-field-district-no-outline").filter(has_text="深圳市").wait_for()
    menus.locator(".ant-cascader-menu-item", has_text="南山区").first.click()
    assert page.get_by_test_id("fence-field-district-no-outline").count() == 0
    # The chosen district's outline (geoMapData) is on the map before anything is saved.
    page.get_by_test_id("fence-map").locator(".leaflet-overlay-pane path").first.wait_for(timeout=WAIT_MS)
    assert "南山区" in page.get_by_test_id("fence-field-district").inner_text()
    screenshot(page, "settings-fence-district-zh-CN.png")
    page.get_by_test_id("fence-save").click()
    row = page.get_by_test_id("list-page-fence").locator("tr.ant-table-row", has_text="E2E 行政区围栏")
    row.wait_for()
    with connect(console_stack.db_url) as conn:
        stored = conn.execute("SELECT id, shape, geometry FROM fence WHERE enterprise_id = %s",
                              (fleet["enterprise_id"],)).fetchone()
    assert stored is not None and stored[1:] == ("district", {"districtId": "440305"})
    named = row.get_by_test_id(f"fence-district-{stored[0]}")
    named.filter(has_text="广东省深圳市南山区").wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_area_vehicle_search_lists_the_vehicle_inside_with_its_entry_and_links_to_the_replay(
        page: Any, console_stack: ConsoleStack) -> None:
    fleet = own_enterprise(console_stack)
    sign_in(page, fleet["user"], path="/dashboard/areaSearch")
    page.get_by_test_id("area-search-shape").get_by_text("矩形").click()
    geometry = _draw(page, "rectangle", [(-150, -120), (150, 120)])
    (west, north), (east, south) = geometry["topLeft"], geometry["bottomRight"]
    terminal = _authenticated(console_stack, fleet)
    # Fixes of the last minute, a second apart: a search made "now" covers them all (fixes stamped a few
    # seconds ahead of the browser's clock would fall after the window the screen sends).
    at = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=60)
    try:
        _report(terminal, east + 0.2, north, at)
        for second in range(1, 4):
            _report(terminal, (west + east) / 2, (north + south) / 2, at + timedelta(seconds=second))
        _report(terminal, east + 0.2, north, at + timedelta(seconds=4))
    finally:
        terminal.close()
    with connect(console_stack.db_url) as conn:  # the worker has stored the fixes (polled, never slept)
        deadline = time.monotonic() + WAIT_MS / 1000
        while conn.execute("SELECT count(*) FROM gps WHERE device_id = %s", (fleet["device_id"],)).fetchone()[0] < 5:
            assert time.monotonic() < deadline, "the worker did not store the terminal's fixes"
            time.sleep(0.2)
    page.get_by_test_id("area-search-submit").click()
    visit = page.get_by_test_id(f"area-visit-{fleet['car_id']}")
    visit.wait_for(timeout=WAIT_MS)
    assert fleet["plate"] in visit.inner_text()
    visit.get_by_test_id(f"area-visit-replay-{fleet['car_id']}").click()
    page.wait_for_url(lambda url: "/dashboard/trace" in url and f"carId={fleet['car_id']}" in url)
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_fence_screens_read_in_the_three_languages(page: Any, console_stack: ConsoleStack) -> None:
    sign_in(page, "admin", path="/settings/fence")
    page.get_by_test_id("fence-create").get_by_text("新增围栏").wait_for()
    page.get_by_test_id("fence-create").click()
    page.get_by_test_id("fence-map").wait_for()
    page.get_by_text("区域属性").wait_for()
    page.get_by_test_id("fence-attribute-15").get_by_text("进区域采集 GNSS 详细定位数据").wait_for()
    screenshot(page, "settings-fence-zh-CN.png")
    page.get_by_test_id("fence-cancel").click()
    switch_language(page, "en-US")
    page.get_by_test_id("fence-create").get_by_text("New fence").wait_for()
    page.get_by_test_id("route-wizard-platform").get_by_text("Platform route wizard").wait_for()
    switch_language(page, "zh-HK")
    page.get_by_test_id("fence-create").get_by_text("新增圍欄").wait_for()
    page.goto("/settings/labelPoint")
    page.get_by_test_id("label-point-create").get_by_text("新增標註點").wait_for()
    assert page.errors == []  # type: ignore[attr-defined]
