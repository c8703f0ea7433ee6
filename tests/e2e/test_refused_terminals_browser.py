"""Refused terminals of unknown phones in Chromium (设备 → 未接入终端): the root enterprise's administrator sees
why a terminal does not come online (reason, what it reported, where from, how often) and registers it in one
click (the device form opens filled in); a subsidiary's administrator gets no rows (the server answers 403)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from warehouse.db import connect
from warehouse.seed import PARENT, SUBSIDIARY_A


@pytest.fixture
def refused_phone(console_stack: ConsoleStack) -> Iterator[tuple[int, str]]:
    """A refused unknown phone of this test (its row and any device registered from it removed afterwards)."""
    phone = f"147{secrets.randbelow(10**8):08d}"
    with connect(console_stack.db_url) as conn:
        row_id = conn.execute(
            "INSERT INTO refused_registration (phone, msg_id, result, reason, terminal_id, manufacturer_id, "
            "terminal_model, plate_number, plate_color, peer, gateway_id, protocol_version, first_seen, last_seen, "
            "attempts) VALUES (%s, 256, 4, 'unknown_phone', 'TIDE2E1', 'MAKER', 'MODEL-X', '粤B12345', 1, "
            "'203.0.113.7:40001', 'gw-1', '2019', now() - interval '1 hour', now(), 7) RETURNING id",
            (phone,)).fetchone()[0]  # type: ignore[index]
        conn.commit()
    yield row_id, phone
    with connect(console_stack.db_url) as conn:
        conn.execute("DELETE FROM refused_registration WHERE phone = %s", (phone,))
        conn.execute("DELETE FROM device WHERE phone = %s", (phone,))
        conn.commit()


def test_root_administrator_sees_a_refused_unknown_terminal_and_opens_its_device_form_filled_in(
        page: Any, console_stack: ConsoleStack, refused_phone: tuple[int, str]) -> None:
    row_id, phone = refused_phone
    sign_in(page, PARENT.admin, path="/list/refusedRegistration")
    screen = page.get_by_test_id("list-page-refusedRegistration")
    screen.wait_for()
    screen.get_by_test_id("list-filter-phone").fill(phone)
    screen.get_by_test_id("list-search").click()
    row = screen.get_by_test_id("list-table").locator(f'tr[data-row-key="{row_id}"]')
    row.wait_for()
    for shown in (phone, "手机号未登记", "0x0100 终端注册", "TIDE2E1", "MAKER", "粤B12345", "203.0.113.7:40001"):
        assert shown in row.inner_text(), shown

    row.get_by_test_id(f"row-register-{row_id}").click()
    drawer = page.get_by_test_id("record-drawer")
    drawer.wait_for()
    assert drawer.get_by_test_id("record-field-phone").input_value() == phone
    assert drawer.get_by_test_id("record-field-deviceSn").input_value() == "TIDE2E1"
    assert drawer.get_by_test_id("record-field-expectedTerminalId").input_value() == "TIDE2E1"


def test_a_subsidiarys_administrator_gets_no_refused_terminals(
        page: Any, console_stack: ConsoleStack, refused_phone: tuple[int, str]) -> None:
    sign_in(page, SUBSIDIARY_A.admin, path="/list/refusedRegistration")
    page.get_by_test_id("list-meta-failed").wait_for()
    assert refused_phone[1] not in page.content()
