"""The heavy-diesel detail pages and the GB track point popup in Chromium (platform-spec §2 car-detail variants,
console-spec §3 "Track point"):

- a GB 17691 truck opened by URL moves to g6CarDetail and shows, in zh-CN, zh-HK and en-US, the exact NOx
  upstream / downstream, reagent level and MIL of its seeded ``nev_state`` row, its SAE J1939 fault codes as
  SPN / FMI with the FMI's meaning and occurrence count (the code as sent in the tooltip; an SPN in an older
  layout as sent), the monitors' readiness, and a chart of today's seeded ``nev_reading`` rows; no "not built
  yet" notice;
- an HJ 1239 truck on ISO 27145 opens hj1239CarDetail with its own standard named, its own figures and its
  fault codes as SAE J2012 DTCs (P20EE, with the failure type byte P20EE-1F);
- a GB fix with a fault frame on the replay: the point's popup lists the battery and motor fault codes and
  the level of its alarm object.

The vehicles are made here (enterprise a, no terminal behind them): the rows are what the GB steps write.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg.types.json import Jsonb

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_car_detail import SQUEEZED_VALUES
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions

# Monitors: catalyst (bit 0), DPF (10), SCR (11) supported; SCR's test not complete.
SUPPORTED, READY = (1 << 0) | (1 << 10) | (1 << 11), 1 << 11
# SAE J1939-73 DM1 bytes as sent: SPN 3226 (0x0C9A) low byte first, FMI 2, conversion method 0, 5 occurrences;
# then a conversion method 1 code (byte 4 bit 8 set), whose SPN layout the frame does not tell: shown as sent.
J1939_CODES = [0x9A0C0205, 0x00A1B2C3]
# ISO 15031-6 / SAE J2012 DTC P20EE (0x20EE) without and with failure type byte 0x1F (status byte 0x08).
ISO_CODES = [0x20EE0000, 0x20EE1F08]
READINGS = 5


@dataclass(frozen=True)
class Truck:
    car_id: int
    device_id: int
    plate: str
    nox_up: float
    nox_down: float
    reagent: float
    mil: int
    obd_protocol: int


def _truck(stack: ConsoleStack, protocol: str, nox_up: float, nox_down: float, reagent: float, mil: int,
           obd_protocol: int = 2) -> Truck:
    """A car with a GB terminal of ``protocol``, its latest state (OBD protocol ``obd_protocol`` and its fault
    codes) and today's last readings."""
    tag = secrets.randbelow(10**8)
    plate = f"粤D{tag % 10**5:05d}"
    vin = f"LZZ{tag:014d}"
    now = datetime.now(UTC).replace(microsecond=0)
    with connect(stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s",
                                  (stack.of("a")[0].car_id,)).fetchone()[0]  # type: ignore[index]
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, vin) VALUES (%s, %s, %s) RETURNING id",
                           (enterprise, plate, vin)).fetchone()[0]  # type: ignore[index]
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol) VALUES (%s, %s, %s, %s, %s)"
            " RETURNING id", (enterprise, car, f"07{tag:010d}", f"OBD{tag:08d}", protocol)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
        conn.execute(
            "INSERT INTO nev_state (device_id, car_id, enterprise_id, protocol, frame_protocol, vin, collected_at,"
            " received_at, obd_at, obd_protocol, mil, diagnosis_supported, diagnosis_ready, calibration_id, cvn,"
            " obd_fault_codes, stream_at, nox_upstream_ppm, nox_downstream_ppm, reagent_level_pct, engine_speed_rpm,"
            " coolant_temp_c, dpf_pressure_difference_kpa) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
            " 'CAL-E6-0042', 'CVN1A2B3C4D', %s, %s, %s, %s, %s, 1350.5, 86, 2.4)",
            (device, car, enterprise, protocol, protocol, vin, now, now, now, obd_protocol, mil, SUPPORTED, READY,
             Jsonb(J1939_CODES if obd_protocol == 2 else ISO_CODES),
             now, nox_up, nox_down, reagent))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO nev_reading (device_id, collected_at, car_id, enterprise_id, nox_upstream_ppm,"
                " nox_downstream_ppm, reagent_level_pct) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(device, now - timedelta(seconds=10 * i), car, enterprise, nox_up - i, nox_down, reagent)
                 for i in range(READINGS)])
        conn.commit()
    return Truck(int(car), int(device), plate, nox_up, nox_down, reagent, mil, obd_protocol)


def _unit(language: str, unit: str, value: str) -> str:
    return text(language, "obd", f"units.{unit}").replace("{{value}}", value)


def _expect_figures(page: Any, language: str, truck: Truck, standard: str) -> None:
    detail = page.get_by_test_id("obd-detail")
    detail.wait_for()
    page.get_by_test_id("obd-standard").filter(has_text=text(language, "obd", f"standard.{standard}")).wait_for()
    page.get_by_test_id("obd-noxUpstreamPpm").filter(has_text=_unit(language, "ppm", f"{truck.nox_up:g}")).wait_for()
    assert page.get_by_test_id("obd-noxUpstreamPpm").inner_text() == _unit(language, "ppm", f"{truck.nox_up:g}")
    assert page.get_by_test_id("obd-noxDownstreamPpm").inner_text() == _unit(language, "ppm", f"{truck.nox_down:g}")
    assert page.get_by_test_id("obd-reagentLevelPct").inner_text() == _unit(language, "pct", f"{truck.reagent:g}")
    mil = page.get_by_test_id("obd-mil")
    state = "on" if truck.mil == 1 else "off"
    assert mil.get_attribute("data-mil") == state and mil.inner_text() == text(language, "obd", f"mil.{state}")
    protocol = text(language, "obd", f"obdProtocol.{truck.obd_protocol}")
    assert page.get_by_test_id("obd-protocol").inner_text() == protocol
    _expect_fault_codes(page, language, truck)
    scr = page.get_by_test_id("obd-monitor-scrNox")
    assert scr.get_attribute("data-state") == "incomplete"
    assert text(language, "obd", "monitorState.incomplete") in scr.inner_text()
    assert page.get_by_test_id("obd-monitor-dpf").get_attribute("data-state") == "complete"
    assert page.get_by_test_id("obd-monitor-misfire").get_attribute("data-state") == "unsupported"
    # today's readings charted: every seeded row
    assert page.get_by_test_id("obd-readings").get_attribute("data-count") == str(READINGS)
    page.get_by_test_id("obd-chart").wait_for()
    assert page.get_by_test_id("obd-chart").get_attribute("data-points") == str(READINGS)
    assert page.get_by_test_id("detail-variant-notice").count() == 0


def _expect_fault_codes(page: Any, language: str, truck: Truck) -> None:
    codes = page.get_by_test_id("obd-fault-code")
    dtcs = page.get_by_test_id("obd-fault-dtc")
    if truck.obd_protocol == 2:
        assert dtcs.all_inner_texts() == ["SPN 3226 FMI 2", "0x00A1B2C3"]
        assert [codes.nth(i).get_attribute("data-raw") for i in range(2)] == ["0x9A0C0205", "0x00A1B2C3"]
        occurrences = text(language, "obd", "fault.occurrences").replace("{{n}}", "5")
        assert page.get_by_test_id("obd-fault-detail").all_inner_texts() == [
            f"{text(language, 'obd', 'fmi.2')} · {occurrences}"]
        tips = [("0x9A0C0205", "fault.raw"), ("0x00A1B2C3", "fault.conversionMethod")]
    else:
        assert dtcs.all_inner_texts() == ["P20EE", "P20EE-1F"]
        assert page.get_by_test_id("obd-fault-detail").count() == 0
        tips = [("0x20EE0000", "fault.raw"), ("0x20EE1F08", "fault.raw")]
    for index, (raw, key) in enumerate(tips):  # the code as sent stays readable in the tooltip
        dtcs.nth(index).hover()
        page.get_by_role("tooltip").filter(has_text=text(language, "obd", key).replace("{{raw}}", raw)).wait_for()
    page.mouse.move(0, 0)


def test_g6_car_detail_shows_the_obd_figures_of_the_state_row_in_three_languages(
        page: Any, console_stack: ConsoleStack) -> None:
    truck = _truck(console_stack, "gb17691", nox_up=412.35, nox_down=38.6, reagent=57.2, mil=1)
    sign_in(page, "admin_a", path=f"/list/carDetail?carId={truck.car_id}")
    page.wait_for_url(re.compile(rf"/list/carDetail/gb17691\?carId={truck.car_id}&deviceId={truck.device_id}$"))
    page.get_by_test_id("detail-plateNumber").filter(has_text=truck.plate).wait_for()
    _expect_figures(page, "zh-CN", truck, "gb17691")
    screenshot(page, "g6-car-detail.png")
    for language in ("zh-HK", "en-US"):
        switch_language(page, language)
        page.goto(f"/list/carDetail/gb17691?carId={truck.car_id}&deviceId={truck.device_id}")
        _expect_figures(page, language, truck, "gb17691")
        assert page.evaluate(SQUEEZED_VALUES) == [], language
    assert page.errors == []


def test_hj1239_car_detail_names_its_standard_and_shows_its_own_figures(page: Any, console_stack: ConsoleStack) -> None:
    truck = _truck(console_stack, "hj1239", nox_up=250.5, nox_down=12.25, reagent=80.4, mil=0, obd_protocol=1)
    sign_in(page, "admin_a", path=f"/list/carDetail?carId={truck.car_id}")
    page.wait_for_url(re.compile(rf"/list/carDetail/hj1239\?carId={truck.car_id}&deviceId={truck.device_id}$"))
    _expect_figures(page, "zh-CN", truck, "hj1239")
    assert page.errors == []


def test_the_track_popup_lists_the_fault_codes_of_a_gb_fault_point(page: Any, console_stack: ConsoleStack) -> None:
    truck = _truck(console_stack, "gb17691", nox_up=300.0, nox_down=20.0, reagent=50.0, mil=1)
    now = datetime.now(UTC).replace(microsecond=0)
    first = now - timedelta(minutes=10)
    fault_at = first + timedelta(seconds=10 * 20)
    gb_alarm = {"alarm": 0, "level": 2, "battery": [0x1001, 0x1002], "motor": [0x2001], "engine": [], "other": []}
    with connect(console_stack.db_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (truck.car_id,)).fetchone()[0]  # type: ignore[index]
        ensure_gps_partitions(conn, (first - timedelta(days=1)).date(), 3)
        rows = []
        for i in range(40):
            at = first + timedelta(seconds=10 * i)
            extras = {"gb_protocol": "gb17691", **({"gb_alarm": gb_alarm} if at == fault_at else {})}
            rows.append((truck.device_id, at, truck.car_id, enterprise, round(113.90 + 0.0005 * i, 6), 22.55,
                         json.dumps(extras)))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,"
                " direction_deg, mileage_km, alarm_flags, status_flags, extras)"
                " VALUES (%s, %s, %s, %s, %s, %s, 0, 30, 90, 1000, 0, 3, %s::jsonb)", rows)
        alarm_id = conn.execute(  # the GB alarm step's row of the fault frame
            "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time,"
            " end_time, lat, lng, speed) VALUES (%s, %s, %s, %s, '', 9, 'gbf_battery', 2, %s, %s, 22.55, %s, 30)"
            " RETURNING id", (enterprise, truck.device_id, truck.car_id, truck.plate, fault_at, fault_at,
                              round(113.90 + 0.0005 * 20, 6))).fetchone()[0]  # type: ignore[index]
        conn.commit()
    start_ms, end_ms = int((first - timedelta(minutes=1)).timestamp() * 1000), int(now.timestamp() * 1000)
    sign_in(page, "admin_a", path=f"/dashboard/trace?carId={truck.car_id}&start={start_ms}&end={end_ms}")
    page.get_by_test_id("replay-page").wait_for()
    marker = page.get_by_test_id(f"replay-alarm-{alarm_id}")
    marker.wait_for()
    marker.click()
    popup = page.get_by_test_id("track-gb-alarm")
    popup.wait_for()
    assert page.get_by_test_id("track-gb-battery").inner_text() == "0x00001001, 0x00001002"
    assert page.get_by_test_id("track-gb-motor").inner_text() == "0x00002001"
    assert page.get_by_test_id("track-gb-level").inner_text() == text("zh-CN", "obd", "trackAlarm.levelValue").replace(
        "{{level}}", "2")
    assert page.get_by_test_id("track-gb-engine").count() == 0
    assert page.errors == []
    screenshot(page, "track-gb-alarm.png")
