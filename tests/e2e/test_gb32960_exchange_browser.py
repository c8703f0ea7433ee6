"""The gb32960 data exchange in Chromium (platform-spec §2: the gb32960 exchange's superiorPlatform, car and
inferiorPlatform), in zh-CN, zh-HK and en-US: the superiorPlatform screen lists a platform with its encryption
rule, version and link state as the link service saved it; the car screen lists its vehicle with plate, VIN,
platform and link state; the inferiorPlatform screen lists an inferior platform's account with its link as the GB
gateways wrote it (online, frames relayed, vehicles, a refused login's reason as the last error) with the logins
refused for a username no platform has above it, and its platform
login in the exchange upstream frame log under its platform kind, named as GB/T 32960's command 0x05, never with
its password.
Then an operator configures a platform in the form (address, port, username, password, AES-128 with its key and
IV, version, vehicles) and the row the link service reads holds it; the list says a key is set, never which."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import OPEN_OPTIONS, sign_in
from tests.e2e.test_console import screenshot
from warehouse.db import connect
from warehouse.queries import gb32960_exchange as q
from warehouse.seed import PARENT

TEXTS = {
    "zh-CN": {"connected": "已登入", "none": "不加密", "menu": "新能源", "enabled": "启用", "online": "在线",
              "wrong_password": "用户名或密码错误", "frames": "转发报文数", "kind": "GB/T 32960 下级平台", "open": "详情",
              "login": "0x05 平台登入", "unknown": "未知用户名的平台登入"},
    "zh-HK": {"connected": "已登入", "none": "不加密", "menu": "新能源", "enabled": "啓用", "online": "在線",
              "wrong_password": "用戶名稱或密碼錯誤", "frames": "轉發報文數", "kind": "GB/T 32960 下級平台", "open": "詳情",
              "login": "0x05 平台登入", "unknown": "未知用戶名稱的平台登入"},
    "en-US": {"connected": "Logged in", "none": "None", "menu": "New energy", "enabled": "Enabled", "online": "Online",
              "wrong_password": "Wrong username or password", "frames": "Frames relayed",
              "kind": "GB/T 32960 inferior platform", "open": "Details", "login": "0x05 Platform login",
              "unknown": "Platform logins with an unknown username"},
}


def _parent(db_url: str) -> tuple[int, int, str, str]:
    """The parent demo enterprise, and one car of its tree: (enterprise, car id, plate, vin or '')."""
    with connect(db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s",
                                  (PARENT.admin,)).fetchone()[0]  # type: ignore[index]
        car = conn.execute(
            "SELECT c.id, c.plate_number, COALESCE(c.vin, '') FROM car c JOIN enterprise e ON e.id = c.enterprise_id "
            "WHERE e.path LIKE (SELECT path FROM enterprise WHERE id = %s) || '%%' ORDER BY c.id LIMIT 1",
            (enterprise,)).fetchone()
    assert car is not None
    return int(enterprise), int(car[0]), str(car[1]), str(car[2])


@pytest.fixture
def platform(console_stack: ConsoleStack) -> Iterator[dict[str, Any]]:
    """A gb32960 superior platform of the parent enterprise with one vehicle, its link logged in (removed after)."""
    tag = secrets.token_hex(3).upper()
    enterprise, car, plate, vin = _parent(console_stack.db_url)
    with connect(console_stack.db_url) as conn:
        platform_id = conn.execute(
            "INSERT INTO gb32960_superior_platform (enterprise_id, name, host, port, username, password, version, "
            "enabled) VALUES (%s, %s, '198.51.100.7', 19006, 'nev32960', 'pw', '2025', false) RETURNING id",
            (enterprise, f"国标平台{tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO gb32960_exchange_car (enterprise_id, platform_id, car_id) VALUES (%s, %s, %s)",
                     (enterprise, platform_id, car))
        inferior_id = conn.execute(
            "INSERT INTO gb32960_inferior_platform (enterprise_id, name, username, password) VALUES (%s, %s, %s, "
            "'pw') RETURNING id", (enterprise, f"国标下级{tag}", f"inf{tag}")).fetchone()[0]  # type: ignore[index]
        # as a GB gateway writes it (gateway/gb/inferior_links.py): a live session, and a refused login
        conn.execute(
            "INSERT INTO gb32960_inferior_link_state (platform_id, gateway_id, state, since, peer, last_frame_at, "
            "logins, frames, refused, vehicles, last_error, last_error_at) VALUES (%s, 'gb-e2e', 'online', now(), "
            "'203.0.113.9:40100', now(), 2, 4321, 1, 17, 'wrong_password', now())", (inferior_id,))
        # its login in the frame log (a writer that kept the password and bytes: the view still hides them)
        conn.execute(
            "INSERT INTO exchange_message (gb32960_inferior_platform_id, platform_kind, direction, link, msg_id, "
            "decoded, raw_hex) VALUES (%s, 'gb32960_inferior', 'up', 'main', 5, %s, '232305FE')",
            (inferior_id, Jsonb({"name": "platform login", "body": {"user": f"inf{tag}", "password": "pw-e2e"}})))
        # a login with a username no platform has, as the GB gateway writes it (migration 0064)
        conn.execute("INSERT INTO gb32960_unknown_login (username, address, gateway_id, first_at, last_at, attempts)"
                     " VALUES (%s, '203.0.113.66', 'gb-e2e', now() - interval '5 minutes', now(), 7)", (f"probe{tag}",))
        q.save_link_state(conn, platform_id, {"state": "connected", "since": datetime.now(UTC),
                                              "last_heartbeat_at": None, "sent": 120, "backfilled": 7, "skipped": 0,
                                              "last_error": None})
        conn.commit()
    yield {"id": platform_id, "name": f"国标平台{tag}", "car": car, "plate": plate, "vin": vin,
           "inferior": inferior_id, "inferior_name": f"国标下级{tag}", "inferior_user": f"inf{tag}",
           "probe": f"probe{tag}"}
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM gb32960_superior_platform WHERE id = %s", (platform_id,))
        conn.execute("DELETE FROM gb32960_inferior_platform WHERE id = %s", (inferior_id,))
        conn.execute("DELETE FROM gb32960_unknown_login WHERE username = %s", (f"probe{tag}",))
        conn.commit()


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_gb32960_exchange_screens_in_each_language(page: Any, console_stack: ConsoleStack,
                                                       platform: dict[str, Any], language: str) -> None:
    texts = TEXTS[language]
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, PARENT.admin, path="/gb32960/superiorPlatform")
    platforms = page.get_by_test_id("list-page-gb32960SuperiorPlatform")
    platforms.get_by_test_id("list-filter-name").fill(platform["name"])
    platforms.get_by_test_id("list-search").click()
    row = platforms.locator(f'tr[data-row-key="{platform["id"]}"]')
    row.wait_for()
    state = row.get_by_test_id("gb32960-link-state")
    assert state.get_attribute("data-state") == "connected" and state.inner_text() == texts["connected"]
    for shown in ("198.51.100.7", "19006", "nev32960", texts["none"], "GB/T 32960.3-2025 ($$)", "120", "7"):
        assert shown in row.inner_text(), shown
    menu = page.get_by_test_id("menu").inner_text()
    assert texts["menu"] in menu

    page.goto("/gb32960/car")
    cars = page.get_by_test_id("list-page-gb32960ExchangeCar")
    cars.get_by_test_id("list-filter-plateNumber").fill(platform["plate"])
    cars.get_by_test_id("list-search").click()
    car = cars.locator("tr.ant-table-row", has_text=platform["name"])
    car.wait_for()
    assert platform["plate"] in car.inner_text() and platform["vin"] in car.inner_text()
    car_state = car.get_by_test_id("gb32960-car-link-state")
    assert car_state.get_attribute("data-state") == "connected" and car_state.inner_text() == texts["connected"]

    page.goto("/gb32960/inferiorPlatform")
    inferiors = page.get_by_test_id("list-page-gb32960InferiorPlatform")
    inferiors.get_by_test_id("list-filter-name").fill(platform["inferior_name"])
    inferiors.get_by_test_id("list-search").click()
    inferior = inferiors.locator(f'tr[data-row-key="{platform["inferior"]}"]')
    inferior.wait_for()
    assert platform["inferior_user"] in inferior.inner_text() and texts["enabled"] in inferior.inner_text()
    link = inferior.get_by_test_id("gb32960-inferior-link-state")
    assert link.get_attribute("data-state") == "online" and link.inner_text() == texts["online"]
    error = inferior.get_by_test_id("gb32960-inferior-last-error")
    assert error.get_attribute("data-error") == "wrong_password" and error.inner_text() == texts["wrong_password"]
    for shown in ("4321", "17"):
        assert shown in inferior.inner_text(), shown
    assert texts["frames"] in inferiors.get_by_test_id("list-table").locator("thead").inner_text()
    # above the table, for the root's administrator: the login refused for a username no platform has
    unknown = page.get_by_test_id("gb32960-unknown-logins")
    probe = unknown.locator("tr.ant-table-row", has_text=platform["probe"])
    probe.wait_for()
    assert texts["unknown"] in unknown.inner_text()
    assert "203.0.113.66" in probe.inner_text() and "7" in probe.inner_text()
    if language == "zh-CN":
        screenshot(page, "gb32960-inferior-platform-zh-CN.png")

    page.goto("/exchange/upstreamMessage")
    upstream = page.get_by_test_id("list-page-exchangeUpstreamMessage")
    upstream.get_by_test_id("list-filter-platformKind").click()
    page.locator(OPEN_OPTIONS, has_text=texts["kind"]).first.click()
    upstream.get_by_test_id("list-search").click()
    login = upstream.locator("tr.ant-table-row", has_text=platform["inferior_name"])
    login.wait_for()
    assert login.get_by_test_id("exchange-platform-kind").inner_text() == texts["kind"]
    # the GB/T 32960 command, named as that standard names it (not JT/T 809's message 0x0005)
    assert texts["login"] in login.inner_text() and "23 23" not in login.inner_text()
    login.get_by_role("button", name=texts["open"]).click()
    drawer = page.get_by_test_id("exchange-frame-drawer")
    assert drawer.get_by_test_id("exchange-frame-msg").inner_text() == texts["login"]
    assert platform["inferior_user"] in drawer.get_by_test_id("exchange-frame-decoded").inner_text()
    assert "pw-e2e" not in drawer.inner_text()
    assert page.errors == []


AES_KEY, AES_IV = "00112233445566778899aabbccddeeff", "0f0e0d0c0b0a09080706050403020100"


def test_an_operator_configures_a_gb32960_superior_platform(page: Any, console_stack: ConsoleStack) -> None:
    name = f"国标上级{secrets.token_hex(3)}"
    _, car, plate, _ = _parent(console_stack.db_url)
    sign_in(page, PARENT.admin, path="/gb32960/superiorPlatform")
    listing = page.get_by_test_id("list-page-gb32960SuperiorPlatform")
    listing.get_by_test_id("list-create").click()
    drawer = page.get_by_test_id("record-drawer")
    drawer.get_by_test_id("record-field-name").fill(name)
    drawer.get_by_test_id("record-field-host").fill("203.0.113.20")
    drawer.get_by_test_id("record-field-port").fill("19007")
    drawer.get_by_test_id("record-field-username").fill("nev-user")
    drawer.get_by_test_id("record-field-password").fill("nev-pass-32960")
    drawer.get_by_test_id("record-field-encryption").click()
    page.locator(OPEN_OPTIONS, has_text="AES-128").click()
    drawer.get_by_test_id("record-field-aesKey").fill(AES_KEY.upper())
    drawer.get_by_test_id("record-field-aesIv").fill(AES_IV)
    drawer.get_by_test_id("record-field-version").click()
    page.locator(OPEN_OPTIONS, has_text="2016").click()
    drawer.get_by_test_id("record-field-carIds").click()
    page.keyboard.type(plate)
    page.locator(OPEN_OPTIONS, has_text=plate).first.click()
    page.keyboard.press("Escape")
    page.get_by_test_id("record-save").click()
    drawer.wait_for(state="hidden")
    row = listing.locator("tr[data-row-key]", has_text=name)
    row.wait_for()
    try:
        shown = row.inner_text()
        assert "AES-128\t✓" in shown and AES_KEY not in shown.lower()  # a key is set; which one never shows
        with connect(console_stack.db_url) as conn:
            rows = [p for p in q.enabled_platforms(conn) if p.name == name]
        assert [(p.host, p.port, p.username, p.password, p.version, p.encryption, p.aes_key, p.aes_iv)
                for p in rows] == [("203.0.113.20", 19007, "nev-user", "nev-pass-32960", "2016", 3, AES_KEY, AES_IV)]
        assert car in rows[0].car_ids
    finally:
        with connect(console_stack.db_url) as conn:
            conn.execute("DELETE FROM gb32960_superior_platform WHERE name = %s", (name,))
            conn.commit()
    assert page.errors == []
