"""The terminal parameters' ADAS and DSM variants (platform-spec §2) in Chromium against the live stack,
whose simulated terminals hold the T/JSATL12 blocks 0xF364 / 0xF365: read the block (8106), see it field by
field with units, have an out-of-range value refused, change a value, confirm, write it (8103), see the
command's result, and read the terminal's new value back; in zh-CN, zh-HK and en-US.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocols.jt808.messages.active_safety_params import ADAS_PARAMS, DSM_PARAMS, ParamBlock
from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import choose, sign_in
from tests.e2e.test_commands_browser import ANSWER_TIMEOUT_MS, _answering, _notice
from tests.e2e.test_console import screenshot, text

LANGUAGES = ["zh-CN", "zh-HK", "en-US"]


def _terminal_block(stack: ConsoleStack, token: str, vehicle: Vehicle, block: ParamBlock) -> dict[str, Any]:
    """The block as the platform last stored it from the terminal's 0x0104 (decoded by the codec)."""
    stored = stack.get(f"/api/device/{vehicle.device_id}/terminal/params.json?isParent=true", token)
    return block.decode(bytes.fromhex(stored[f"{block.param_id:04X}"]))


def _open(page: Any, language: str, kind: str, vehicle: Vehicle) -> Any:
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, "admin", path=f"/settings/terminalParams/{kind}")
    screen = page.get_by_test_id(f"safety-params-{kind}")
    screen.wait_for()
    screen.get_by_text(text(language, "command", f"activeSafety.intro.{kind}"), exact=True).wait_for()
    choose(page, screen.get_by_test_id("params-vehicle"), vehicle.plate)
    return screen


def _read(page: Any, screen: Any, key: str) -> str:
    """Reads the block (8106) and returns the shown current value of ``key``."""
    with page.expect_response(lambda r: "/command/8106.json" in r.url) as sent:
        screen.get_by_test_id("params-read").click()
    assert json.loads(sent.value.request.post_data or "{}")["ids"] in (["F364"], ["F365"])
    current = screen.get_by_test_id(f"safety-current-{key}")
    current.wait_for(timeout=ANSWER_TIMEOUT_MS)
    return str(current.inner_text())


def _write_and_read_back(page: Any, stack: ConsoleStack, token: str, language: str, kind: str, index: int) -> None:
    block = ADAS_PARAMS if kind == "adas" else DSM_PARAMS
    vehicles = _answering(stack, token)
    vehicle = vehicles[(3 + index) % len(vehicles)]
    key, name, low, high, unit = {
        "adas": ("alarmSpeedThresholdKmh", "alarm_speed_threshold_kmh", 0, 60, "kmh"),
        "dsm": ("fatigueVideoS", "fatigue_video_s", 0, 60, "s"),
    }[kind]
    unit_text = text(language, "command", f"activeSafety.units.{unit}")
    screen = _open(page, language, kind, vehicle)

    # The screen shows what the terminal holds, with its unit, grouped under the language's headings.
    shown = _read(page, screen, key)
    before = _terminal_block(stack, token, vehicle, block)
    held = before[name]
    assert shown == f"{held} {unit_text}"
    screen.get_by_text(text(language, "command", f"activeSafety.fields.{key}"), exact=True).wait_for()
    screen.get_by_test_id("safety-group-general").get_by_text(
        text(language, "command", "activeSafety.groups.general"), exact=True).wait_for()

    # A value outside the standard's range is refused on the screen; nothing is sent.
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if "/command/8103.json" in r.url else None)
    box = screen.get_by_test_id(f"safety-input-{key}")
    box.fill(str(high + 1))
    screen.get_by_test_id("params-write").click()
    refusal = text(language, "command", "activeSafety.errors.range").replace("{{min}}", str(low)).replace(
        "{{max}}", str(high))
    screen.get_by_text(refusal, exact=True).wait_for()
    assert sent == []

    # A new value, confirmed, goes out as the whole block in one 8103; the terminal answers success.
    wanted = low + (held + 7) % (high - low + 1)
    assert wanted != held
    box.fill(str(wanted))
    screen.get_by_test_id("params-write").click()
    confirm = page.get_by_test_id("safety-confirm")
    confirm.wait_for()
    assert confirm.get_by_test_id(f"safety-confirm-{key}").inner_text().endswith(f"{wanted} {unit_text}")
    screenshot(page, f"terminal-params-{kind}-confirm-{language}.png")
    with page.expect_response(lambda r: "/command/8103.json" in r.url) as written:
        page.get_by_test_id("safety-confirm-ok").click()
    (item,) = json.loads(written.value.request.post_data or "{}")["paramList"]
    assert item["id"] == f"{block.param_id:04X}" and item["value"][key] == wanted
    reply = json.loads(written.value.text())
    assert reply["code"] == 0, reply
    assert _notice(page, vehicle.plate, int(reply["data"]["id"])).get_attribute("data-outcome") == "success"

    # Read again: the terminal now reports the new value, and only that field changed.
    _read(page, screen, key)
    page.wait_for_function(
        "([key, want]) => document.querySelector(`[data-testid='safety-current-${key}']`)?.textContent === want",
        arg=[key, f"{wanted} {unit_text}"], timeout=ANSWER_TIMEOUT_MS)
    assert _terminal_block(stack, token, vehicle, block) == {**before, name: wanted}
    screenshot(page, f"terminal-params-{kind}-{language}.png")
    assert page.errors == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_adas_block_is_read_changed_written_and_read_back(page: Any, console_stack: ConsoleStack,
                                                              language: str) -> None:
    token = console_stack.token("admin")
    _write_and_read_back(page, console_stack, token, language, "adas", LANGUAGES.index(language))


def test_the_dsm_block_is_read_changed_written_and_read_back(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token("admin")
    _write_and_read_back(page, console_stack, token, "zh-CN", "dsm", 3)
