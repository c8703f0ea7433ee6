"""The public GB/T 32960 vectors (tests/unit/protocols/gb32960_vectors.py) as known-answer tests: each
decodes to the values its source states (scaled with the 2016 units), and a valid one encodes back to
the same bytes. The sources' own mistakes are handled as shared/reference/gbt32960-vectors.md says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocols.gb32960 import ChecksumError, Protocol, Response, Special, bcc, decode_frame, encode_frame
from protocols.gb32960.messages import (
    Alarms,
    Alarms2025,
    CellVoltages,
    Engine,
    Extremes,
    FuelCell,
    FuelCellStacks,
    Heartbeat,
    MinUnitVoltages,
    Motors,
    Motors2025,
    PackTemperatures2025,
    PlatformLogin,
    PlatformLogout,
    Position,
    Position2025,
    ProbeTemperatures,
    RealtimeReport,
    Signature,
    Supercapacitor,
    SupercapacitorExtremes,
    TimeCalibration,
    UnparsedTail,
    VehicleData,
    VehicleData2025,
    VehicleLogin,
    VehicleLogout,
)
from protocols.gb32960.messages.realtime import decode_blocks, encode_blocks
from tests.unit.protocols.gb32960_vectors import VECTORS

FRAMES = ["LOGIN", "LOGIN-AES", "LOGOUT", "PLATFORM-LOGIN", "PLATFORM-LOGOUT", "HEARTBEAT", "TIME-CAL",
          "RT-ALL-TYPES", "RT-2025-SAMPLE"]
BODIES = [name for name in VECTORS if name.startswith("INFO-")]


def _frame(name: str) -> bytes:
    return bytes.fromhex(VECTORS[name])


def _reencode(frame: bytes) -> bytes:
    m = decode_frame(frame)
    return encode_frame(m.header.command, m.body, vin=m.header.vin, protocol=m.header.protocol,
                        response=m.header.response or Response.COMMAND, encryption=m.header.encryption)


@pytest.mark.parametrize("name", FRAMES)
def test_every_valid_public_frame_encodes_back_to_its_bytes(name: str) -> None:
    assert _reencode(_frame(name)) == _frame(name)


@pytest.mark.parametrize("name", BODIES)
def test_every_public_body_snippet_decodes_whole_and_encodes_back(name: str) -> None:
    data = _frame(name)
    blocks = decode_blocks(data, 0, Protocol.GB32960_2016)
    assert len(blocks) == 1 and not isinstance(blocks[0], UnparsedTail)
    assert encode_blocks(blocks) == data


def test_vehicle_login_vector_gives_time_serial_iccid_and_subsystem_codes() -> None:
    m = decode_frame(_frame("LOGIN"))
    assert (m.header.command, m.header.response, m.header.vin, m.header.encryption) == (1, 0xFE, "123456789", 1)
    assert m.body == VehicleLogin(datetime(2019, 1, 22, 15, 55, 56, tzinfo=UTC), 1, "12345678998765432100", 4,
                                  ("1234", "4567", "9870"))


def test_aes_login_keeps_the_ciphertext_as_bytes_and_checks_its_bcc() -> None:
    m = decode_frame(_frame("LOGIN-AES"))
    assert m.header.encrypted and m.header.encryption == 3
    assert isinstance(m.body, bytes) and len(m.body) == 48


def test_logout_platform_login_logout_heartbeat_and_time_calibration_vectors() -> None:
    assert decode_frame(_frame("LOGOUT")).body == VehicleLogout(datetime(2019, 1, 23, 15, 55, 56, tzinfo=UTC), 1)
    assert decode_frame(_frame("PLATFORM-LOGIN")).body == PlatformLogin(
        datetime(2019, 1, 23, 15, 55, 56, tzinfo=UTC), 6666, "SmallChi518", "1234567890123456789", 1)
    assert decode_frame(_frame("PLATFORM-LOGOUT")).body == PlatformLogout(
        datetime(2019, 1, 23, 15, 55, 56, tzinfo=UTC), 1)
    assert decode_frame(_frame("HEARTBEAT")).body == Heartbeat()
    assert decode_frame(_frame("TIME-CAL")).body == TimeCalibration()


def test_all_types_frame_without_collection_time_is_read_from_offset_zero() -> None:
    # SmallChi writes no collection time and answers flag 0x01: read as the reference file says.
    m = decode_frame(_frame("RT-ALL-TYPES"))
    assert m.header.response == Response.SUCCESS
    report = m.body
    assert isinstance(report, RealtimeReport) and report.collected_at is None
    assert [b.INFO_TYPE for b in report.blocks] == list(range(1, 10))
    vehicle = report.block(VehicleData)
    assert (vehicle.speed_kmh, vehicle.mileage_km, vehicle.total_voltage_v, vehicle.total_current_a) == (
        5.8, 666.6, 10.0, -990.1)
    assert (vehicle.soc_pct, vehicle.insulation_kohm, vehicle.gear) == (3, 123, 2)
    assert report.block(Engine) == Engine(1, 203, 1.02)
    position = report.block(Position)
    assert (position.lng, position.lat, position.fix_valid) == (3.255555, 1.233355, False)


def test_two_motors_decode_with_their_offsets() -> None:
    (motors,) = decode_blocks(_frame("INFO-02-TWO-MOTORS"), 0, Protocol.GB32960_2016)
    assert isinstance(motors, Motors)
    first, second = motors.motors
    assert (first.controller_temp_c, first.speed_rpm, first.torque_nm, first.temp_c) == (-39, -19935, -1994.5, -37)
    assert (first.controller_voltage_v, first.dc_current_a) == (23.6, -990.0)
    assert (second.number, second.torque_nm, second.controller_voltage_v, second.dc_current_a) == (
        2, -1943.4, 213.6, -989.9)


def test_fuel_cell_vector_gives_probe_temperatures_and_hydrogen_extremes() -> None:
    (fuel,) = decode_blocks(_frame("INFO-03"), 0, Protocol.GB32960_2016)
    assert fuel == FuelCell(222.2, 11.1, 32.22, (-39, -38, -37), 295.5, 34, 6666, 86, 333.6, 101, 2)


def test_extremes_follow_the_standard_order_not_the_sources_swapped_temperature_fields() -> None:
    (ext,) = decode_blocks(_frame("INFO-06"), 0, Protocol.GB32960_2016)
    assert isinstance(ext, Extremes)
    assert (ext.max_voltage_subsystem, ext.max_voltage_cell, ext.max_cell_voltage_v) == (17, 21, 0.123)
    assert (ext.min_voltage_subsystem, ext.min_voltage_cell, ext.min_cell_voltage_v) == (7, 9, 0.008)
    # SmallChi asserts subsystem 0x12 / probe 0x32; the standard puts the subsystem first.
    assert (ext.max_temp_subsystem, ext.max_temp_probe, ext.max_temp_c) == (0x32, 0x12, 26)
    assert (ext.min_temp_subsystem, ext.min_temp_probe, ext.min_temp_c) == (0x11, 0x32, -34)


def test_alarm_vector_gives_level_flags_and_the_four_fault_code_lists() -> None:
    (alarms,) = decode_blocks(_frame("INFO-07-FAULT-LISTS"), 0, Protocol.GB32960_2016)
    assert isinstance(alarms, Alarms)
    assert (alarms.max_level, alarms.flags) == (17, 0x159D)
    assert alarms.storage_faults == (1000, 1001, 1002) and alarms.motor_faults == (2000, 2001, 2002)
    assert alarms.engine_faults == (3000, 3001, 3002) and alarms.other_faults == (4000, 4001, 4002)
    assert "INSULATION" not in [f.name for f in alarms.general] and "SOC_LOW" in [f.name for f in alarms.general]


def test_cell_list_vector_keeps_the_partial_window_of_each_subsystem() -> None:
    (cells,) = decode_blocks(_frame("INFO-08-CELL-LIST"), 0, Protocol.GB32960_2016)
    assert isinstance(cells, CellVoltages)
    first, second = cells.packs
    assert (first.number, first.voltage_v, first.current_a, first.total_cells, first.first_cell) == (
        1, 0.2, -987.7, 55, 111)
    assert first.cell_voltages_v == (0.111, 0.222, 0.333)
    assert (second.number, second.current_a, second.total_cells, second.first_cell) == (3, -876.6, 66, 222)
    assert second.cell_voltages_v == (0.444, 0.555, 0.666)


def test_probe_temperature_vector_gives_each_subsystems_probes() -> None:
    (temps,) = decode_blocks(_frame("INFO-09"), 0, Protocol.GB32960_2016)
    assert isinstance(temps, ProbeTemperatures)
    assert [(p.number, p.probe_temps_c) for p in temps.packs] == [(1, (-39, -38, -37, -36)), (2, (-35, -34, -33, -32))]


def test_real_2016_capture_with_a_wrong_bcc_is_refused() -> None:
    with pytest.raises(ChecksumError, match="0x29 in the frame, 0x02 computed") as caught:
        decode_frame(_frame("RT-REAL-2016"))
    assert caught.value.header is not None and caught.value.header.vin == "LSJE36096MS140495"


def test_real_2016_capture_with_its_bcc_recomputed_gives_invalid_abnormal_and_108_cells() -> None:
    raw = _frame("RT-REAL-2016")
    fixed = raw[:-1] + bytes((bcc(raw[2:-1]),))
    report = decode_frame(fixed).body
    assert report.collected_at == datetime(2024, 9, 24, 10, 0, 37, tzinfo=UTC)
    vehicle = report.block(VehicleData)
    assert vehicle.run_mode is Special.INVALID and vehicle.mileage_km is Special.ABNORMAL
    assert vehicle.total_voltage_v is Special.INVALID
    assert (vehicle.speed_kmh, vehicle.total_current_a, vehicle.soc_pct, vehicle.insulation_kohm) == (33.0, 6.5, 84, 8192)
    (pack,) = report.block(CellVoltages).packs
    assert pack.voltage_v is Special.INVALID and pack.total_cells == 108 and pack.first_cell == 1
    assert len(pack.cell_voltages_v) == 108
    assert (min(pack.cell_voltages_v), max(pack.cell_voltages_v)) == (4.025, 4.033)
    assert pack.cell_voltages_v[:3] == (4.031, 4.025, 4.031)
    assert report.block(ProbeTemperatures).packs[0].probe_temps_c == (22, 20, 20, 20, 22, 20, 20, 20, 21, 20, 20, 20)
    assert report.block(Extremes).max_cell_voltage_v == 4.033
    assert _reencode(fixed) == fixed


def test_2025_sample_decodes_every_block_to_the_last_byte() -> None:
    m = decode_frame(_frame("RT-2025-SAMPLE"))
    assert m.header.protocol is Protocol.GB32960_2025 and m.header.vin == "TEST0000000000001"
    report = m.body
    assert report.collected_at == datetime(2025, 8, 27, 9, 53, 38, tzinfo=UTC)
    assert [type(b).__name__ for b in report.blocks] == [
        "VehicleData2025", "Motors2025", "FuelCell2025", "Engine2025", "Position2025", "Alarms2025",
        "MinUnitVoltages", "PackTemperatures2025", "FuelCellStacks", "Supercapacitor", "SupercapacitorExtremes",
        "Signature"]
    vehicle = report.block(VehicleData2025)
    assert (vehicle.speed_kmh, vehicle.mileage_km, vehicle.total_voltage_v, vehicle.soc_pct) == (11.1, 67894.7, 22.3, 66)
    # the source built it with 0.01 A: raw 30000 at 0.1 A with the 2025 edition's -3000 A offset
    assert vehicle.total_current_a == 0.0
    (motor,) = report.block(Motors2025).motors
    assert (motor.speed_rpm, motor.torque_nm, motor.controller_temp_c) == (1000, 0.1, 22)
    position = report.block(Position2025)
    assert (position.lng, position.lat, position.coordinate_system) == (113.945, 22.545, 1)
    alarms = report.block(Alarms2025)
    assert alarms.storage_faults == (100, 112) and alarms.engine_faults is Special.INVALID
    assert alarms.general_faults == (99,)
    (pack,) = report.block(MinUnitVoltages).packs
    assert (pack.voltage_v, pack.current_a, pack.unit_voltages_v) == (12.3, 12.4, (12.3, 12.4, 12.5, 12.6, 12.7))
    assert report.block(PackTemperatures2025).packs[0].probe_temps_c == (12, Special.INVALID)
    (stack,) = report.block(FuelCellStacks).stacks
    assert (stack.voltage_v, stack.h2_inlet_pressure_kpa, stack.coolant_outlet_temps_c) == (1.1, 1.1, ())
    capacitor = report.block(Supercapacitor)
    assert capacitor.current_a is Special.INVALID and capacitor.cell_voltages_v == (Special.INVALID,)
    assert report.block(SupercapacitorExtremes).max_temp_c == 33
    assert report.block(Signature) == Signature(1, b"", b"")
