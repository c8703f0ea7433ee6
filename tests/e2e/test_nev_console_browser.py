"""The new-energy console in Chromium (GB/T 32960): nevCarDetail, opened from the car list, shows the exact
SOC, total voltage and current of the vehicle's nev_state row, its cells, motors, alarms with fault codes and
their own levels, its fuel cell, stack and supercapacitor, today's readings and charging session, in zh-CN, zh-HK
and en-US; the gb32960 charging log lists the seeded session; the nev1 cockpit's SOC and charging figures equal the
database's. The rows are written as the GB steps write them (migrations 0049, 0070); another enterprise's
administrator sees none of them."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from protocols.china_time import CHINA_TZ
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import new_console_context, sign_in
from tests.e2e.test_car_detail import SQUEEZED_VALUES
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect

CELLS = 96
SOC, VOLTAGE_V, CURRENT_A = 57, 612.3, -40.7  # charging: GB/T 32960 counts the charging current negative
GEAR_PARK = 0x0F  # table 10: bits 0-3 1111 parking -> the spec's gear 1 "Parking"
ALARM_FLAGS = (1 << 1) | (1 << 11) | (1 << 23)  # battery high temperature, insulation; the 2025 edition's thermal event
STORAGE_FAULT = 0x00A1B2C3
# the 2025 general fault list: (alarm number << 8) | its own level; insulation has none listed (frame's level only)
GENERAL_FAULTS = {"gb1": 1, "gb23": 2}
FUEL_CELL = {"max_h2_temp_c": 36, "max_h2_temp_probe": 4, "max_h2_concentration": 0.0125, "max_h2_concentration_sensor": 2,
             "max_h2_pressure_mpa": 33.5, "max_h2_pressure_sensor": 1, "dcdc": 1, "h2_remaining_pct": 64,
             "dcdc_controller_temp_c": 47}
STACK = {"number": 1, "voltage_v": 312.4, "current_a": 101.5, "h2_inlet_pressure_kpa": 152.0,
         "air_inlet_pressure_kpa": 131.5, "air_inlet_temp_c": 38, "coolant_outlet_temps_c": [66, 67]}
SUPERCAPACITOR = {"number": 1, "voltage_v": 380.2, "current_a": 12.5, "cell_voltages_v": [2.701, 2.712],
                  "probe_temps_c": [31]}


@dataclass
class NevCar:
    car_id: int
    device_id: int
    plate: str
    enterprise_id: int
    session_start: datetime


def _cells() -> list[float]:
    return [round(3.6 + (i % 7) / 1000, 3) for i in range(CELLS)]


@pytest.fixture
def nev_car(console_stack: ConsoleStack) -> Iterator[NevCar]:
    """A new-energy car (type 2) of enterprise a with a GB/T 32960-2025 master terminal, its latest state, a reading
    a minute over the last hour and a charging session that started 50 minutes ago (all of today)."""
    plate = f"粤B{secrets.token_hex(3).upper()[:5]}"
    now = datetime.now(UTC).replace(microsecond=0)
    # today as the console counts it (the browser's day, Asia/Shanghai in these tests), not the machine's
    start = max(now - timedelta(minutes=50), now.astimezone(CHINA_TZ).replace(hour=0, minute=0, second=0).astimezone(UTC))
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s",
                                  (console_stack.of("a")[0].car_id,)).fetchone()[0]  # type: ignore[index]
        vin = f"LNBS{secrets.token_hex(6).upper()[:13]}"
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, vin, car_type) VALUES (%s, %s, %s, 2)"
                           " RETURNING id", (enterprise, plate, vin)).fetchone()[0]  # type: ignore[index]
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol, protocol_version)"
            " VALUES (%s, %s, %s, %s, 'gb32960', '2025') RETURNING id",
            (enterprise, car, f"08{secrets.randbelow(10**10):010d}", f"NEV{secrets.token_hex(4)}"),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
        conn.execute(
            "INSERT INTO nev_state (device_id, car_id, enterprise_id, protocol, frame_protocol, vin, collected_at,"
            " received_at, vehicle_at, vehicle_status, charging_state, run_mode, speed_kmh, mileage_km,"
            " total_voltage_v, total_current_a, soc_pct, dcdc_state, gear, insulation_kohm, motors_at, motors,"
            " extremes_at, max_cell_voltage_v, max_voltage_subsystem, max_voltage_cell, min_cell_voltage_v,"
            " min_voltage_subsystem, min_voltage_cell, max_temp_c, max_temp_subsystem, max_temp_probe, min_temp_c,"
            " min_temp_subsystem, min_temp_probe, alarms_at, alarm_level, alarm_flags, storage_faults, motor_faults,"
            " engine_faults, other_faults, general_faults, cells_at, cell_voltages, temps_at, probe_temperatures)"
            " VALUES (%s, %s, %s, 'gb32960', 'gb32960-2025', %s, %s, %s, %s, 2, 1, 1, 0, 12345.6, %s, %s, %s, 1, %s,"
            " 8000, %s, %s, %s, 3.606, 1, 7, 3.6, 1, 1, 31, 1, 12, 24, 1, 3, %s, 2, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
            " %s)",
            (device, car, enterprise, vin, now, now, now, VOLTAGE_V, CURRENT_A, SOC, GEAR_PARK, now,
             Jsonb([{"number": 1, "status": 3, "controller_temp_c": 35, "speed_rpm": 0, "torque_nm": 0.0,
                     "temp_c": 33, "controller_voltage_v": 611.0, "dc_current_a": 0.0}]),
             now, now, ALARM_FLAGS, Jsonb([STORAGE_FAULT]), Jsonb([]), Jsonb([]), Jsonb([]),
             Jsonb([int(key[2:]) << 8 | level for key, level in GENERAL_FAULTS.items()]),
             now, Jsonb([{"number": 1, "voltage_v": VOLTAGE_V, "current_a": CURRENT_A, "total_cells": CELLS,
                          "first_cell": 1, "cell_voltages_v": _cells()}]),
             now, Jsonb([{"number": 1, "probe_temps_c": [24 + i % 8 for i in range(32)]}])),
        )
        # a fuel-cell vehicle of the 2025 edition: its fuel cell (0x03), one stack (0x30) and a supercapacitor (0x31)
        conn.execute(
            "UPDATE nev_state SET fuel_cell_at = %s, fuel_cell = %s, stacks_at = %s, fuel_cell_stacks = %s,"
            " supercap_at = %s, supercapacitor = %s WHERE device_id = %s",
            (now, Jsonb(FUEL_CELL), now, Jsonb([STACK]), now, Jsonb(SUPERCAPACITOR), device))
        for minute in range(0, 50, 5):
            conn.execute("INSERT INTO nev_reading (device_id, collected_at, car_id, enterprise_id, soc_pct,"
                         " total_voltage_v, total_current_a) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (device, start + timedelta(minutes=minute), car, enterprise, 40 + minute // 3,
                          600 + minute / 5, CURRENT_A))
        conn.execute("INSERT INTO charging_session (device_id, start_at, car_id, enterprise_id, vin, charging_state,"
                     " soc_from, soc_to, energy_kwh, lat, lng, last_at) VALUES (%s, %s, %s, %s, %s, 1, 40, %s,"
                     " 21.25, 22.54, 114.05, %s)", (device, start, car, enterprise, vin, SOC, now))
        conn.commit()
    yield NevCar(int(car), int(device), plate, int(enterprise), start)
    with connect(console_stack.db_url) as conn:
        for table in ("charging_session", "nev_reading", "nev_state"):
            conn.execute(f"DELETE FROM {table} WHERE device_id = %s", (device,))  # noqa: S608 - fixed names
        conn.execute("UPDATE car SET master_device_id = NULL, record_state = 0 WHERE id = %s", (car,))
        conn.commit()


def _state(db_url: str, device_id: int) -> tuple[int, float, float]:
    """SOC, total voltage and current as nev_state holds them (real: the value the API reads back)."""
    with connect(db_url) as conn:
        row = conn.execute("SELECT soc_pct, total_voltage_v, total_current_a FROM nev_state WHERE device_id = %s",
                           (device_id,)).fetchone()
    assert row is not None
    return int(row[0]), float(row[1]), float(row[2])


def _battery_texts(page: Any) -> dict[str, str]:
    battery = page.get_by_test_id("nev-battery")
    return {name: battery.get_by_test_id(f"nev-{name}").inner_text().strip() for name in ("soc", "voltage", "current")}


def test_nev_car_detail_from_the_car_list_shows_the_state_in_three_languages(
        page: Any, console_stack: ConsoleStack, nev_car: NevCar) -> None:
    soc, volts, amps = _state(console_stack.db_url, nev_car.device_id)
    expected = {"soc": f"{soc} %", "voltage": f"{volts:.1f} V", "current": f"{amps:.1f} A"}
    assert expected == {"soc": "57 %", "voltage": "612.3 V", "current": "-40.7 A"}  # what was seeded, read back

    sign_in(page, "admin_a", path="/list/car")
    cars = page.get_by_test_id("list-page-car")
    cars.get_by_test_id("list-filter-plateNumber").fill(nev_car.plate)
    cars.get_by_test_id("list-search").click()
    cars.locator(f"tr[data-row-key='{nev_car.car_id}']").get_by_test_id(f"row-detail-{nev_car.car_id}").click()
    page.wait_for_url(re.compile(rf"/list/carDetail/gb32960\?carId={nev_car.car_id}&deviceId={nev_car.device_id}$"))
    page.locator("[data-testid=nev-detail][data-state=ready]").wait_for()
    assert page.get_by_test_id("detail-variant-notice").count() == 0

    for language in ("zh-CN", "zh-HK", "en-US"):
        if language != "zh-CN":
            switch_language(page, language)
        battery = page.get_by_test_id("nev-battery")
        battery.get_by_text(text(language, "nev", "battery"), exact=True).wait_for()
        assert _battery_texts(page) == expected, language
        assert battery.get_by_test_id("nev-chargingState").inner_text() == text(language, "nev", "chargingState.1")
        assert battery.get_by_test_id("nev-gear").get_attribute("data-value") == "1"
        assert battery.get_by_test_id("nev-gear").inner_text() == text(language, "nev", "gear.1")
        # the extremes name their cell / probe: cell 7 of subsystem 1 is the highest
        assert re.search(r"\b1\b.*\b7\b", battery.get_by_test_id("nev-maxCellVoltage").inner_text())
        assert battery.get_by_test_id("nev-maxCellVoltage").inner_text().startswith("3.606 V")
        alarms = page.get_by_test_id("nev-alarms")
        flags = alarms.get_by_test_id("nev-alarm-flags")
        for key in ("gb1", "gb11", "gb23"):  # gb23: a 2025 terminal's flag beyond 2016's table 19
            flag = flags.locator(f"[data-key={key}]")
            assert flag.get_by_test_id("nev-alarm-name").inner_text() == text(language, "alarmSettings", f"enums.alarmKey.{key}")
            # each alarm's own level from the general fault list beside its name; one not listed shows none
            own = GENERAL_FAULTS.get(key)
            assert flag.get_attribute("data-level") == ("" if own is None else str(own))
            shown = [level.strip() for level in flag.get_by_test_id("nev-alarm-level").all_inner_texts()]
            assert shown == ([] if own is None else [
                text(language, "nev", "ownLevel").replace("{{level}}", text(language, "nev", f"level.{own}")).strip()])
        alarms.get_by_test_id("nev-faults-battery").get_by_text("0x00A1B2C3", exact=True).wait_for()
        assert alarms.get_by_test_id("nev-alarmLevel").get_attribute("data-value") == "2"
        # the fuel cell with its hydrogen system and stack, and the supercapacitor, as the state row holds them
        fuel = page.get_by_test_id("nev-fuel-cell")
        fuel.get_by_text(text(language, "nev", "fuelCell.title"), exact=True).wait_for()
        assert fuel.get_by_test_id("nev-h2Remaining").inner_text() == "64 %"
        assert fuel.get_by_test_id("nev-maxH2Pressure").inner_text().startswith("33.5 MPa")
        stack = fuel.get_by_test_id("nev-stacks").locator("tr[data-row-key='1']").inner_text()
        assert all(shown in stack for shown in ("312.4 V", "101.5 A", "152 kPa", "131.5 kPa", "38 ℃", "67 ℃")), stack
        fuel.get_by_text(text(language, "nev", "dcdcState.1"), exact=True).wait_for()
        supercap = page.get_by_test_id("nev-supercap")
        supercap.get_by_text(text(language, "nev", "supercap.title"), exact=True).wait_for()
        assert supercap.get_by_test_id("nev-supercap-voltage").inner_text() == "380.2 V"
        assert supercap.get_by_test_id("nev-supercap-maxCellVoltage").inner_text() == "2.712 V"
        motors = page.get_by_test_id("nev-motors")
        motors.get_by_text(text(language, "nev", "motorStatus.3"), exact=True).wait_for()
        cells = page.get_by_test_id("nev-cells")
        assert cells.get_by_test_id("nev-chart-cells").get_attribute("data-cells") == str(CELLS)
        assert cells.get_by_test_id("nev-chart-probes").get_attribute("data-probes") == "32"
        today = page.get_by_test_id("nev-today")
        assert today.get_by_test_id("nev-chart-soc").get_attribute("data-points") == "10"
        sessions = today.get_by_test_id("nev-sessions")
        sessions.get_by_text(f"40% → {SOC}%").wait_for()
        sessions.get_by_text("21.25 kWh").wait_for()
        sessions.get_by_text(text(language, "nev", "session.ongoing"), exact=True).wait_for()
        # every value readable beside its label: none squeezed into a column a few characters wide (the battery
        # card, beside the alarms, once had four columns at 1440 px and wrapped "612.3 V" a character a line)
        assert page.evaluate(SQUEEZED_VALUES) == [], language
        screenshot(page, f"nev-car-detail-{language}.png")
    assert page.errors == []

    # Another enterprise's administrator finds no such vehicle, and reads none of its state.
    other = new_console_context(page.context.browser, base_url=console_stack.base_url, locale="zh-CN")
    try:
        page_b = other.new_page()
        sign_in(page_b, "admin_b", path=f"/list/carDetail/gb32960?carId={nev_car.car_id}")
        page_b.get_by_test_id("detail-not-found").wait_for()
        assert page_b.get_by_test_id("nev-detail").count() == 0
    finally:
        other.close()
    token_b = console_stack.token("admin_b")
    assert console_stack.post("/api/common/query/nevState.json", token_b, {"carId.eq": nev_car.car_id})["list"] == []


def test_the_charging_log_lists_the_session_and_exports_it(page: Any, console_stack: ConsoleStack,
                                                          nev_car: NevCar) -> None:
    sign_in(page, "admin_a", path="/gb32960/chargingLog")
    log = page.get_by_test_id("list-page-gb32960ChargingLog")
    log.wait_for()
    key = f"{nev_car.device_id}:{int(nev_car.session_start.timestamp() * 1000)}"
    row = log.get_by_test_id("list-table").locator(f"tr[data-row-key='{key}']")
    row.wait_for()
    cells = row.inner_text()
    for shown in (nev_car.plate, text("zh-CN", "nev", "chargingLog.enums.chargingState.1"), "40", "57", "21.25"):
        assert shown in cells, (shown, cells)
    # the menu holds the screen under its group
    page.get_by_text(text("zh-CN", "menu", "menu.gb32960"), exact=True).first.wait_for()
    switch_language(page, "en-US")
    log.get_by_text(text("en-US", "nev", "chargingLog.fields.energyKwh"), exact=True).first.wait_for()
    row.get_by_text(text("en-US", "nev", "chargingLog.enums.chargingState.1")).wait_for()
    with page.expect_download() as download:
        log.get_by_test_id("list-export-csv").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8-sig")
    assert nev_car.plate in exported and "21.25" in exported, exported[:500]
    screenshot(page, "gb32960-charging-log.png")

    other = new_console_context(page.context.browser, base_url=console_stack.base_url, locale="zh-CN")
    try:
        page_b = other.new_page()
        sign_in(page_b, "admin_b", path="/gb32960/chargingLog")
        table_b = page_b.get_by_test_id("list-page-gb32960ChargingLog").get_by_test_id("list-table")
        table_b.locator(".ant-table-placeholder").wait_for()  # the answered query is empty: no pagination
        table_b.locator(".ant-spin-spinning").wait_for(state="detached")
        assert table_b.locator(f"tr[data-row-key='{key}']").count() == 0
    finally:
        other.close()


def _db_nev_figures(db_url: str, user_enterprise: int) -> tuple[int, int | None]:
    """What the nev1 cockpit must show for a user of ``user_enterprise``: the live type-2 vehicles of its tree
    charging now (state 1 / 2) and their mean SOC, rounded half up to a whole percent."""
    with connect(db_url) as conn:
        row = conn.execute(
            "SELECT count(*) FILTER (WHERE n.charging_state IN (1, 2)), floor(avg(n.soc_pct) + 0.5)"
            " FROM nev_state n JOIN car c ON c.id = n.car_id JOIN enterprise e ON e.id = c.enterprise_id"
            " WHERE n.protocol = 'gb32960' AND c.car_type = 2 AND c.record_state = 1"
            " AND e.path LIKE (SELECT path FROM enterprise WHERE id = %s) || '%%'", (user_enterprise,)).fetchone()
    assert row is not None
    return int(row[0]), (None if row[1] is None else int(row[1]))


def test_the_nev1_cockpit_shows_the_databases_soc_and_charging(page: Any, console_stack: ConsoleStack,
                                                               nev_car: NevCar) -> None:
    charging, soc = _db_nev_figures(console_stack.db_url, nev_car.enterprise_id)
    assert charging >= 1 and soc is not None
    sign_in(page, "admin_a", path="/cockpit/nev1/index")
    board = page.locator("[data-testid=cockpit-nev1-index][data-ready=true]")
    board.wait_for(timeout=60_000)
    figure = board.get_by_test_id("cockpit-figure-soc")
    deadline = time.monotonic() + 60
    while figure.get_attribute("data-value") != str(soc):
        assert time.monotonic() < deadline, f"SOC {figure.get_attribute('data-value')!r}, the database {soc}"
        time.sleep(1)
    assert board.get_by_test_id("cockpit-figure-charging").get_attribute("data-value") == str(charging)

    # A vehicle's SOC moves: the board follows at the figures' cadence (15 s).
    with connect(console_stack.db_url) as conn:
        conn.execute("UPDATE nev_state SET soc_pct = 90, charging_state = 4 WHERE device_id = %s", (nev_car.device_id,))
        conn.commit()
    charging, soc = _db_nev_figures(console_stack.db_url, nev_car.enterprise_id)
    deadline = time.monotonic() + 60
    while (figure.get_attribute("data-value"), board.get_by_test_id("cockpit-figure-charging").get_attribute("data-value")) \
            != (str(soc), str(charging)):
        assert time.monotonic() < deadline, "the cockpit never followed the database"
        time.sleep(1)
    screenshot(page, "cockpit-nev1-soc.png")
