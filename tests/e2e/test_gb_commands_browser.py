"""GB/T 32960 terminal parameters and control on nevCarDetail in Chromium, in zh-CN, zh-HK and en-US: the
panel sends 8104 / 8103 / 8105 through the real API, which writes the command row (msg_id 0x80 / 0x81 / 0x82)
and the downlink; the e2e stack runs no GB gateway, so the test answers each row with the statement the
streams step gb_commands runs for a terminal's answer (warehouse/queries/command_state.ANSWER_UNSEQUENCED;
the whole path over TCP is tests/integration/test_gb_commands_roundtrip.py). The panel shows the answered
values by their table-24 names, and a refused reset as refused."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from fleet.enums import DeviceState
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from tests.e2e.test_nev_console_browser import NevCar, nev_car  # noqa: F401 - the fixture
from warehouse.db import connect
from warehouse.queries.command_state import ANSWER_UNSEQUENCED

QUERY_REPLY = {"response": 1, "params": [{"id": "02", "name": "report_period_s", "value": 10},
                                         {"id": "05", "name": "platform_domain", "value": "gb.example.com"},
                                         {"id": "09", "name": "heartbeat_period_s", "value": 30}]}


def _answer(db_url: str, device_id: int, msg_id: int, result: int, reply: dict[str, Any],
            timeout_s: float = 20) -> dict[str, Any]:
    """Wait for the device's open command `msg_id`, answer it as the streams step does; its payload."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with connect(db_url) as conn:
            row = conn.execute("SELECT payload FROM command WHERE device_id = %s AND msg_id = %s AND state = 'created'"
                               " ORDER BY id DESC LIMIT 1", (device_id, msg_id)).fetchone()
            if row is not None:
                answered = conn.execute(ANSWER_UNSEQUENCED, {
                    "result": result, "msg_id": msg_id, "reply": Jsonb(reply), "at": datetime.now(UTC),
                    "device_id": device_id, "slack_s": 5.0, "car_id": None, "time": None, "time_hex": None,
                    "echo_window_s": 5.0}).fetchone()
                conn.commit()
                assert answered is not None
                return dict(row[0])
        time.sleep(0.2)
    raise AssertionError(f"no command 0x{msg_id:02X} of device {device_id} was written")


def test_gb_parameters_are_queried_set_and_the_terminal_reset_in_three_languages(
        page: Any, console_stack: ConsoleStack, nev_car: NevCar) -> None:  # noqa: F811 - the fixture
    with connect(console_stack.db_url) as conn:
        conn.execute("UPDATE device SET state = %s WHERE id = %s", (int(DeviceState.ONLINE), nev_car.device_id))
        conn.commit()
    sign_in(page, "admin_a", path=f"/list/carDetail/gb32960?carId={nev_car.car_id}&deviceId={nev_car.device_id}")
    panel = page.get_by_test_id("gb-terminal")
    panel.wait_for()
    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            switch_language(page, language)
        panel.get_by_text(text(language, "command", "gb.title"), exact=True).wait_for()
        panel.get_by_test_id("gb-query").click()
        payload = _answer(console_stack.db_url, nev_car.device_id, 0x80, 0, QUERY_REPLY)
        assert payload == {"ids": [f"{i:02X}" for i in range(1, 0x11)]}  # every table-24 id
        page.locator("[data-testid=gb-status][data-state=answered]").wait_for()
        assert panel.get_by_test_id("gb-status").inner_text() == text(language, "command", "gb.succeeded")
        values = panel.get_by_test_id("gb-values")
        values.get_by_text(text(language, "command", "gb.param.02"), exact=True).wait_for()
        values.get_by_text(text(language, "command", "gb.param.05"), exact=True).wait_for()
        assert [v.inner_text() for v in values.get_by_test_id("gb-param-value").all()] == ["10", "gb.example.com", "30"]
        screenshot(page, f"gb-terminal-{language}.png")

    # set the report period 0x02 to 5 s: the row carries it, the terminal's success shows
    panel.get_by_test_id("gb-value").fill("5")
    panel.get_by_test_id("gb-set").click()
    assert _answer(console_stack.db_url, nev_car.device_id, 0x81, 0, {"response": 1}) == {
        "paramList": [{"id": "02", "value": 5}]}
    page.locator("[data-testid=gb-status][data-state=answered]").wait_for()
    # a value past the width is refused in the console, nothing sent
    panel.get_by_test_id("gb-value").fill("70000")
    panel.get_by_test_id("gb-set").click()
    page.get_by_text(text("en-US", "command", "gb.badValue")).wait_for()

    # reset after the confirmation; the terminal answers error (0x02): refused
    panel.get_by_test_id("gb-reset").click()
    page.get_by_test_id("gb-reset-confirm").click()
    assert _answer(console_stack.db_url, nev_car.device_id, 0x82, 1, {"response": 2}) == {"command": 3}
    page.locator("[data-testid=gb-status][data-state=answered]").wait_for()
    page.get_by_text(text("en-US", "command", "gb.refused"), exact=True).wait_for()
    assert page.errors == []
