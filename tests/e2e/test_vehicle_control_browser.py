"""Vehicle control (0x8500) on the vehicle detail page, in Chromium against the live stack and its simulated
terminals: the card's lock button asks for a confirmation naming the plate, the command goes to the terminal,
which locks its doors and answers 0x0500; the card reads in the three languages and is absent for a user
without the sensitive-command permission."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest

from fleet.settings import SimulatorSettings
from simulator.commands import NORMAL, behaviour_for
from tests.e2e.conftest import ConsoleStack, Vehicle
from tests.e2e.support import sign_in
from tests.e2e.test_console import text
from warehouse.db import connect


def _answering_vehicle(stack: ConsoleStack) -> Vehicle:
    """A vehicle of the root enterprise whose simulated terminal answers commands (a few by design do not)."""
    sim = SimulatorSettings()
    return next(v for v in stack.of("parent")
                if behaviour_for(v.phone, sim.unsupported_share, sim.silent_share) == NORMAL)


def _last_8500(stack: ConsoleStack, device_id: int) -> tuple[Any, ...] | None:
    with connect(stack.db_url) as conn:
        return conn.execute("SELECT id, payload, state, reply_msg_id FROM command WHERE device_id = %s AND msg_id = %s"
                            " ORDER BY id DESC LIMIT 1", (device_id, 0x8500)).fetchone()


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_doors_are_locked_after_a_confirmation(page: Any, console_stack: ConsoleStack, language: str) -> None:
    vehicle = _answering_vehicle(console_stack)
    before = _last_8500(console_stack, vehicle.device_id)
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, "admin", path=f"/list/carDetail?carId={vehicle.car_id}&deviceId={vehicle.device_id}")
    card = page.get_by_test_id("vehicle-control")
    card.wait_for()
    assert text(language, "command", "vehicleControl.title") in card.inner_text()

    card.get_by_test_id("vehicle-control-lock").click()
    question = text(language, "command", "vehicleControl.confirmLock").replace("{{plate}}", vehicle.plate)
    page.locator(".ant-modal-confirm-title", has_text=question).wait_for()
    page.get_by_test_id("vehicle-control-confirm").click()
    page.get_by_test_id("command-accepted").wait_for()

    deadline = time.monotonic() + 30
    row = _last_8500(console_stack, vehicle.device_id)
    while time.monotonic() < deadline and (row is None or row == before or row[2] != "answered"):
        time.sleep(0.5)
        row = _last_8500(console_stack, vehicle.device_id)
    assert row is not None and row != before
    assert row[1] == {"lock": 1} and (row[2], row[3]) == ("answered", 0x0500), row


def _operator(stack: ConsoleStack) -> str:
    """A user of the root enterprise who may read vehicles and send commands, but not sensitive ones."""
    from warehouse.passwords import hash_password
    from warehouse.seed import DEMO_PASSWORD, PARENT

    name = f"operator_{secrets.token_hex(3)}"
    with connect(stack.db_url) as conn:
        row = conn.execute("SELECT id FROM enterprise WHERE name = %s", (PARENT.name,)).fetchone()
        assert row is not None
        user_id = conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name, email)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (row[0], name, hash_password(DEMO_PASSWORD), "调度员", name, f"{name}@example.com")).fetchone()[0]  # type: ignore[index]
        role_id = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                               (row[0], f"调度 {name}")).fetchone()[0]  # type: ignore[index]
        for code, actions in (("car", ["query", "get"]), ("command", ["cmd", "query", "get"])):
            conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                         (role_id, code, actions))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        conn.commit()
    return name


def test_a_user_without_the_sensitive_command_permission_has_no_card(page: Any, console_stack: ConsoleStack) -> None:
    vehicle = console_stack.of("parent")[0]
    sign_in(page, _operator(console_stack), path=f"/list/carDetail?carId={vehicle.car_id}")
    page.get_by_test_id("car-detail").wait_for()
    page.get_by_test_id("detail-vehicle").wait_for()
    assert page.get_by_test_id("vehicle-control").count() == 0
