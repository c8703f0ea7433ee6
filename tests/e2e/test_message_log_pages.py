"""Every frame kept in Chromium: the original message log shows a simulated vehicle's
0x0200 reports, stored by the streams worker from what the gateway received; a row's detail shows the
decoded JSON and the frame's bytes; in zh-CN and en-US. A GB/T 32960 terminal's frames are listed under their
protocol, in three languages."""

from __future__ import annotations

import asyncio
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from fleet.phones import canonical_phone
from protocols.china_time import CHINA_TZ
from streams import message_log
from streams.db import Database
from streams.gb_frames import parse_frame
from streams.gb_payloads import GbVehicle, realtime
from streams.validation import Limits
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language, text
from warehouse.db import connect


def test_original_message_log_shows_a_simulated_vehicles_0200_with_its_hex(page: Any,
                                                                          console_stack: ConsoleStack) -> None:
    vehicle = console_stack.of("a")[0]
    with connect(console_stack.db_url) as conn:  # what the worker stored from the gateway (the truth)
        stored = conn.execute("SELECT count(*) FROM message_log WHERE device_id = %s AND msg_id = 512",
                              (vehicle.device_id,)).fetchone()
    assert stored is not None and stored[0] > 0
    path = f"/log/originalMessage?carId={vehicle.car_id}"
    sign_in(page, "admin_a", path=path)
    page.goto(path)
    log = page.get_by_test_id("list-page-originalMessage")
    log.wait_for()
    msg_id = log.get_by_test_id("list-filter-msgId")
    (msg_id if msg_id.evaluate("e => e.tagName") == "INPUT" else msg_id.locator("input")).fill("512")
    log.get_by_test_id("list-search").click()
    table = log.get_by_test_id("list-table")
    row = table.locator("tr.ant-table-row").first
    row.get_by_text("0x0200", exact=True).wait_for()
    assert vehicle.plate in row.inner_text() and "上行" in row.inner_text()
    assert re.search(r"7E 02 00 ", row.inner_text())  # the frame's first bytes, grouped
    row.get_by_role("button", name="详情").click()
    drawer = page.get_by_test_id("message-drawer")
    drawer.get_by_text("报文详情").wait_for()
    assert drawer.get_by_test_id("message-msg-id").inner_text() == "0x0200"
    hex_text = drawer.get_by_test_id("message-hex").inner_text()
    assert hex_text.startswith("7E 02 00 ") and hex_text.rstrip().endswith("7E")
    assert all(len(b) == 2 for b in hex_text.split())  # grouped in bytes
    decoded = drawer.get_by_test_id("message-decoded").inner_text()
    assert '"msg_id": 512' in decoded and '"speed_kmh"' in decoded and vehicle.phone.lstrip("0") in decoded
    page.keyboard.press("Escape")

    switch_language(page, "en-US")
    table.get_by_text(text("en-US", "messageLog", "original.fields.msgId"), exact=True).first.wait_for()
    row.get_by_text("Up", exact=True).wait_for()
    row.get_by_role("button", name="Detail").click()
    drawer.get_by_text("Message detail").wait_for()
    drawer.get_by_text("Raw frame (hex)").wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_downstream_log_says_a_command_was_answered_with_a_malformed_reply(page: Any,
                                                                           console_stack: ConsoleStack) -> None:
    vehicle = console_stack.of("a")[0]
    with connect(console_stack.db_url) as conn:  # as the commands worker leaves it (streams/commands.py)
        row = conn.execute(
            """INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, seq, state, reason, sent_at)
               SELECT enterprise_id, id, %s, %s, 33281, 77, 'failed', 'reply_malformed', now() FROM car WHERE id = %s
               RETURNING id""", (vehicle.device_id, vehicle.phone.lstrip("0"), vehicle.car_id)).fetchone()
        conn.commit()
    assert row is not None
    path = f"/log/downstreamMessage?carId={vehicle.car_id}"
    sign_in(page, "admin_a", path=path)
    page.goto(path)
    table = page.get_by_test_id("list-page-downstreamMessage").get_by_test_id("list-table")
    command = table.locator("tr.ant-table-row", has_text="0x8201").first
    command.get_by_text("终端应答格式错误", exact=True).wait_for()
    assert "失败" in command.inner_text() and "超时" not in command.inner_text()
    switch_language(page, "en-US")
    command.get_by_text("Terminal replied with a malformed message", exact=True).wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_upstream_log_shows_why_a_terminal_was_refused_without_its_code(page: Any,
                                                                       console_stack: ConsoleStack) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from protocols.jt808 import Authentication, PlatformResponse
    from tests.integration.gateway.support import TerminalClient

    vehicle = console_stack.of("a")[1]
    guessed = "GUESS-7Q2"

    async def wrong_code() -> None:  # another connection with the phone and a wrong code
        client = await TerminalClient.connect(console_stack.gateway_port, vehicle.phone.rjust(12, "0"))
        await client.send(0x0102, Authentication(guessed))
        answer = await client.receive(timeout_s=30)
        assert isinstance(answer.body, PlatformResponse) and answer.body.result == 1
        await client.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        pool.submit(asyncio.run, wrong_code()).result()
    path = f"/log/upstreamMessage?carId={vehicle.car_id}"
    sign_in(page, "admin_a", path=path)
    page.goto(path)
    log = page.get_by_test_id("list-page-upstreamMessage")
    log.wait_for()
    msg_id = log.get_by_test_id("list-filter-msgId")
    (msg_id if msg_id.evaluate("e => e.tagName") == "INPUT" else msg_id.locator("input")).fill("258")
    row = log.get_by_test_id("list-table").locator("tr.ant-table-row").first
    for _ in range(30):  # the worker stores it within seconds; search again until it is there
        log.get_by_test_id("list-search").click()
        try:
            row.get_by_text("鉴权码错误", exact=True).wait_for(timeout=2_000)
            break
        except Exception:  # not stored yet
            continue
    row.get_by_text("鉴权码错误", exact=True).wait_for(timeout=1_000)
    assert guessed.encode().hex().upper()[:8] not in row.inner_text().replace(" ", "").upper()
    row.get_by_role("button", name="详情").click()
    drawer = page.get_by_test_id("message-drawer")
    decoded = drawer.get_by_test_id("message-decoded").inner_text()
    assert guessed not in decoded and '"wrong_code"' in decoded
    page.keyboard.press("Escape")
    switch_language(page, "en-US")
    row.get_by_text("Wrong auth code", exact=True).wait_for()
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_gb_terminals_frames_are_listed_under_their_protocol_in_three_languages(
        page: Any, console_stack: ConsoleStack) -> None:
    """A GB/T 32960 terminal's frames as the GB steps keep them (streams.message_log, step gb_message_log): under
    their protocol, each with its header command (0x02, not an 808 id), the frame and the codec's JSON."""
    now = datetime.now(UTC).replace(microsecond=0)
    start = max(now - timedelta(seconds=30),
                now.astimezone(CHINA_TZ).replace(hour=0, minute=0, second=0).astimezone(UTC))  # today, the console's
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s",
                                  (console_stack.of("a")[0].car_id,)).fetchone()[0]  # type: ignore[index]
        vin = f"LGBLOG{secrets.token_hex(6).upper()[:11]}"
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, vin, car_type) VALUES (%s, %s, %s, 2)"
                           " RETURNING id", (enterprise, f"粤G{secrets.token_hex(3).upper()[:5]}", vin)
                           ).fetchone()[0]  # type: ignore[index]
        phone = f"08{secrets.randbelow(10**10):010d}"
        device = conn.execute("INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol, protocol_version)"
                              " VALUES (%s, %s, %s, %s, 'gb32960', '2016') RETURNING id",
                              (enterprise, car, phone, f"GBL{secrets.token_hex(4)}")).fetchone()[0]  # type: ignore[index]
        conn.commit()
    vehicle = GbVehicle(vin, int(device), int(car), int(enterprise))
    records = [realtime(vehicle, start + timedelta(seconds=i * 10), received_at=start + timedelta(seconds=i * 10 + 1),
                        soc_pct=70 - i) for i in range(2)]
    limits = Limits(max_future_s=300, max_speed_kmh=220)

    async def store() -> None:
        db = Database(console_stack.db_url, name="e2e-gb-message-log")
        try:
            await message_log.store_gb_uplinks(db, message_log.DevicePhones(),
                                               [parse_frame(orjson.dumps(r), limits) for r in records])
        finally:
            await db.close()

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps an event loop running in this thread
        pool.submit(asyncio.run, store()).result()
    path = f"/log/originalMessage?carId={car}"
    sign_in(page, "admin_a", path=path)
    page.goto(path)
    log = page.get_by_test_id("list-page-originalMessage")
    table = log.get_by_test_id("list-table")
    row = table.locator("tr.ant-table-row").first
    row.get_by_text("0x02", exact=True).wait_for()
    cells = row.inner_text().split("\t")
    assert "GB/T 32960" in cells and canonical_phone(phone) in cells  # the device's phone, as the 808 rows'
    assert cells[5:7] == ["0x02", ""]  # its header command; a GB frame has no serial to show
    assert table.locator("tr.ant-table-row").count() == 2
    row.get_by_role("button", name="详情").click()
    drawer = page.get_by_test_id("message-drawer")
    assert drawer.get_by_test_id("message-msg-id").inner_text() == "0x02"
    assert drawer.get_by_test_id("message-hex").inner_text().startswith("23 23 02 FE")  # ## real-time, a command
    decoded = drawer.get_by_test_id("message-decoded").inner_text()
    assert '"name": "Real-time data"' in decoded and '"soc_pct": 69' in decoded  # the newest first
    page.keyboard.press("Escape")
    for language in ("zh-HK", "en-US"):
        switch_language(page, language)
        table.get_by_text(text(language, "messageLog", "original.fields.protocol"), exact=True).first.wait_for()
        row.get_by_text("0x02", exact=True).wait_for()
    assert page.errors == []  # type: ignore[attr-defined]
