"""fleetwatch as the JT/T 809 superior platform in Chromium, in zh-CN, zh-HK and en-US (数据交换): the
inferiorPlatform screen lists a platform with its link state, the authorisation codes it reported (0x1701) and the
inspection sent to it with its answer and latency, and sends a new inspection; the car and gps screens list the vehicles and positions it reported; the
map shows the vehicle at its last position, and its marker opens the vehicle's video dialog."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fleet.demo_fleet import SUBSIDIARY_A
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import OPEN_OPTIONS, click_until, sign_in
from warehouse.db import connect
from warehouse.queries import exchange_inferior as q
from warehouse.seed import PARENT

TEXTS = {
    "zh-CN": {"connected": "主链路: 已连接", "answered": "已应答", "inspection": "查岗", "backfilled": "补报",
              "menu": "数据交换", "codes": "时效口令", "show": "查看"},
    "zh-HK": {"connected": "主鏈路: 已連接", "answered": "已應答", "inspection": "查崗", "backfilled": "補報",
              "menu": "數據交換", "codes": "時效口令", "show": "查看"},
    "en-US": {"connected": "Main link: Connected", "answered": "Answered", "inspection": "Inspection",
              "backfilled": "Back-filled", "menu": "Data exchange", "codes": "Authorisation codes", "show": "Show"},
}


@pytest.fixture
def reported(console_stack: ConsoleStack) -> Iterator[dict[str, Any]]:
    """An inferior platform of the parent enterprise, linked, with a vehicle, its positions and an answered
    inspection (removed afterwards)."""
    tag = secrets.token_hex(3).upper()
    plate = f"粤E{tag}"
    now = datetime.now(UTC).replace(microsecond=0)
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s",
                                  (PARENT.admin,)).fetchone()[0]  # type: ignore[index]
        platform = conn.execute(
            "INSERT INTO inferior_platform (enterprise_id, name, user_id, password, centre_id) VALUES "
            "(%s, %s, %s, 'pw', 66001) RETURNING id",
            (enterprise, f"下级{tag}", random.randint(10**8, 4 * 10**9))).fetchone()[0]  # type: ignore[index]
        q.save_link_state(conn, platform, "main", {"state": "up", "since": now, "peer": "203.0.113.9:41000",
                                                   "last_heartbeat_at": now, "sent": 2, "received": 5,
                                                   "positions": 2, "last_error": None})
        vehicle = q.vehicle_id(conn, platform, enterprise, plate, 2)
        q.store_positions(conn, [{"vehicle_id": vehicle, "fix_at": now - timedelta(minutes=m), "received_at": now,
                                  "backfilled": m == 5, "lat": 22.54 + m / 1000, "lng": 114.06, "speed_kmh": 36.0,
                                  "direction_deg": 90, "altitude_m": 8, "mileage_km": None, "status": 3, "alarm": 0}
                                 for m in (1, 5)])
        request = q.queue_request(conn, {"platform_id": platform, "enterprise_id": enterprise, "kind": "inspection",
                                         "object_type": 1, "object_id": "66001", "content": f"查岗{tag}",
                                         "answer_minutes": 5, "created_by": None})
        q.mark_request_sent(conn, request, "sub", 9, now - timedelta(seconds=30))
        q.answer_request(conn, platform, "inspection", info_id=None, sn=9, answer=f"在岗{tag}", responder=None,
                         at=now - timedelta(seconds=18))
        # its 0x1701 as the superior service stores it (migration 0065)
        q.save_authorize_codes(conn, platform, {"platform_code": "66001", "code_1": f"home{tag}".ljust(64, "0"),
                                                "code_2": f"cross{tag}".ljust(64, "0"), "at": now})
        conn.commit()
    yield {"platform": platform, "vehicle": vehicle, "plate": plate, "tag": tag, "name": f"下级{tag}"}
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM inferior_platform WHERE id = %s", (platform,))
        conn.commit()


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_inferior_platform_screens_in_each_language(page: Any, console_stack: ConsoleStack,
                                                        reported: dict[str, Any], language: str) -> None:
    texts = TEXTS[language]
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, PARENT.admin, path="/exchange/inferiorPlatform")
    platforms = page.get_by_test_id("list-page-inferiorPlatform")
    platforms.get_by_test_id("list-filter-name").fill(reported["name"])
    platforms.get_by_test_id("list-search").click()
    row = platforms.locator(f'tr[data-row-key="{reported["platform"]}"]')
    row.wait_for()
    row.get_by_test_id(f"links-{reported['platform']}").get_by_text(texts["connected"]).wait_for()
    assert "66001" in row.inner_text()
    # the authorisation codes it reported: when, and the codes on demand
    assert texts["codes"] in platforms.get_by_test_id("list-table").locator("thead").inner_text()
    if language == "zh-CN":  # the codes themselves, asked for on demand (the same call in every language)
        row.get_by_test_id(f"authorize-show-{reported['platform']}").click()
        codes = page.get_by_test_id(f"authorize-codes-{reported['platform']}")
        codes.wait_for()
        assert f"home{reported['tag']}" in codes.get_by_test_id("authorize-code-1").inner_text()
        assert f"cross{reported['tag']}" in codes.inner_text()
        page.keyboard.press("Escape")
    requests = page.get_by_test_id("list-page-inferiorRequest")
    answer = requests.locator("tr.ant-table-row", has_text=f"在岗{reported['tag']}")
    answer.wait_for()
    for shown in (texts["answered"], texts["inspection"], "12000", reported["name"]):
        assert shown in answer.inner_text(), shown
    assert texts["menu"] in page.get_by_test_id("menu").inner_text()

    page.goto("/exchange/car")
    cars = page.get_by_test_id("list-page-exchangeCar")
    cars.get_by_test_id("list-filter-plate").fill(reported["plate"])
    cars.get_by_test_id("list-search").click()
    car = cars.locator(f'tr[data-row-key="{reported["vehicle"]}"]')
    car.wait_for()
    assert reported["name"] in car.inner_text() and "22.541" in car.inner_text()

    page.goto("/exchange/gps")
    gps = page.get_by_test_id("list-page-exchangeGps")
    gps.get_by_test_id("list-filter-plate").fill(reported["plate"])
    gps.get_by_test_id("list-search").click()
    rows = gps.locator("tr.ant-table-row", has_text=reported["plate"])
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert texts["backfilled"] in gps.get_by_test_id("list-table").inner_text()

    page.goto("/exchange/map")
    marker = page.get_by_test_id("exchange-map").get_by_test_id(f"marker-{reported['vehicle']}")
    marker.wait_for(state="attached")
    if language == "zh-CN":  # a marker opens the vehicle's video through its platform (the same in every language)
        click_until(marker.click, page.get_by_test_id("exchange-video-dialog"))
        assert reported["plate"] in page.locator(".ant-modal-title").inner_text()
    assert page.errors == []


def test_an_operator_sends_an_inspection_from_the_inferior_platform_screen(page: Any, console_stack: ConsoleStack,
                                                                          reported: dict[str, Any]) -> None:
    sign_in(page, PARENT.admin, path="/exchange/inferiorPlatform")
    platforms = page.get_by_test_id("list-page-inferiorPlatform")
    platforms.get_by_test_id("list-filter-name").fill(reported["name"])
    platforms.get_by_test_id("list-search").click()
    row = platforms.locator(f'tr[data-row-key="{reported["platform"]}"]')
    row.get_by_test_id(f"row-inspection-{reported['platform']}").click()
    page.get_by_test_id("send-request-content").fill("夜班值班人员请应答")
    # the send is clicked again when a click under load sent nothing (the dialog closes once it sent)
    click_until(lambda: page.locator(".ant-modal-footer .ant-btn-primary").click(),
                page.get_by_test_id("list-page-inferiorRequest").locator("tr.ant-table-row", has_text="夜班值班人员请应答"))
    with connect(console_stack.db_url) as conn:
        queued = conn.execute("SELECT kind, content, answer_minutes, state FROM inferior_request WHERE "
                              "inferior_platform_id = %s AND content = '夜班值班人员请应答'",
                              (reported["platform"],)).fetchall()
    assert queued == [("inspection", "夜班值班人员请应答", 10, "queued")]


def test_an_administrator_chooses_which_enterprises_a_superior_platform_gets(page: Any,
                                                                            console_stack: ConsoleStack) -> None:
    """The superiorPlatform form (JT/T 809, fleetwatch as the inferior): the enterprises whose vehicles go are picked
    by name from the enterprise tree (none: the whole tree, as the field's help says)."""
    name = f"上级{secrets.token_hex(3)}"
    sign_in(page, PARENT.admin, path="/exchange/superiorPlatform")
    listing = page.get_by_test_id("list-page-superiorPlatform")
    listing.get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    for field, value in (("name", name), ("host", "203.0.113.21"), ("port", "19009"), ("userId", "70001"),
                         ("password", "pw809"), ("centreId", "70001"), ("downLinkPort", "19010")):
        drawer.get_by_test_id(f"record-field-{field}").fill(value)
    enabled = drawer.get_by_test_id("record-field-enabled")
    assert enabled.get_attribute("aria-checked") == "true"  # as a create without it stores (the column's default)
    enabled.click()  # off: nothing dials the documentation address
    assert "全部下属企业" in drawer.inner_text()  # the help of the exchanged enterprises
    drawer.get_by_test_id("record-field-exchangedEnterpriseIds").click()
    page.keyboard.type(SUBSIDIARY_A.name)
    page.locator(OPEN_OPTIONS, has_text=SUBSIDIARY_A.name).first.click()
    page.keyboard.press("Escape")
    drawer.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    listing.locator("tr[data-row-key]", has_text=name).wait_for()
    try:
        with connect(console_stack.db_url) as conn:
            row = conn.execute("SELECT p.exchanged_enterprise_ids, p.enabled, e.name FROM superior_platform p"
                               " JOIN enterprise e ON e.id = (p.exchanged_enterprise_ids ->> 0)::bigint"
                               " WHERE p.name = %s", (name,)).fetchone()
        assert row is not None and len(row[0]) == 1 and row[1:] == (False, SUBSIDIARY_A.name)
    finally:
        with connect(console_stack.db_url) as conn:
            conn.execute("DELETE FROM superior_platform WHERE name = %s", (name,))
            conn.commit()
    assert page.errors == []
