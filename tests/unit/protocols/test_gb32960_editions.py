"""Real-time data written in the other GB/T 32960.3 edition (protocols/gb32960/editions.py): the shared values go
across whole and the frame decodes to its last byte in the target edition; what the target has no place for is
named; what it requires and the source lacks is "invalid"; a value out of the target's range is "abnormal"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from GeoToolCN import wgs84_to_gcj02

from protocols.gb32960 import Protocol, Special, decode_frame, encode_frame
from protocols.gb32960.editions import transcode
from protocols.gb32960.messages import (
    Alarms,
    Alarms2025,
    CellVoltages,
    CustomBlock,
    Engine,
    Engine2025,
    Extremes,
    MinUnitVoltages,
    Motor,
    Motors,
    Motors2025,
    PackTemperatures,
    PackTemperatures2025,
    PackUnitVoltages,
    PackVoltages,
    Position,
    Position2025,
    ProbeTemperatures,
    RealtimeReport,
    ReissuedReport,
    VehicleData,
    VehicleData2025,
)
from tests.unit.protocols.gb32960_vectors import VECTORS

P16, P25 = Protocol.GB32960_2016, Protocol.GB32960_2025
AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)
VIN = "LGB12345678901234"
CELLS = tuple(round(3.3 + i * 0.001, 3) for i in range(96))


def _sent(report: RealtimeReport, protocol: Protocol) -> RealtimeReport:
    """What a platform of ``protocol`` reads from the frame we write: encoded, then decoded to its last byte."""
    message = decode_frame(encode_frame(report.COMMAND, report, vin=VIN, protocol=protocol))
    assert message.header.protocol is protocol
    assert isinstance(message.body, RealtimeReport)
    return message.body


def _vehicle_2016(**changes: object) -> VehicleData:
    values: dict[str, object] = dict(status=1, charging=3, run_mode=1, speed_kmh=42.5, mileage_km=12345.6,
                                     total_voltage_v=612.3, total_current_a=-35.2, soc_pct=76, dcdc=1, gear=0x2E,
                                     insulation_kohm=5000, accelerator_pct=20, brake_pct=0)
    values.update(changes)
    return VehicleData(**values)  # type: ignore[arg-type]


def _report_2016() -> RealtimeReport:
    return RealtimeReport(AT, (
        _vehicle_2016(),
        Motors((Motor(1, 1, 45, 3200, 180.5, 60, 610.0, 40.2),)),
        Position(0, 116.397128, 39.916527),
        Extremes(1, 96, 3.395, 1, 1, 3.3, 1, 2, 31, 1, 1, 28),
        Alarms(1, 0b101, (1001,), (), Special.INVALID, (7,)),
        CellVoltages((PackVoltages(1, 612.3, -35.2, 96, 1, CELLS),)),
        ProbeTemperatures((PackTemperatures(1, (28, 31, 29)),)),
        CustomBlock(0x90, b"\x01\x02\x03"),
    ))


def test_a_2016_frame_in_the_2025_edition_keeps_every_shared_value_and_names_what_it_leaves_out() -> None:
    moved = transcode(_report_2016(), P16, P25)
    assert moved.left_out == ("0x06 extreme values",)
    report = _sent(moved.report, P25)
    assert report.collected_at == AT
    vehicle = report.block(VehicleData2025)
    assert (vehicle.speed_kmh, vehicle.mileage_km, vehicle.total_voltage_v, vehicle.total_current_a, vehicle.soc_pct,
            vehicle.gear, vehicle.insulation_kohm) == (42.5, 12345.6, 612.3, -35.2, 76, 0x2E, 5000)
    (motor,) = report.block(Motors2025).motors
    assert (motor.number, motor.speed_rpm, motor.torque_nm, motor.temp_c, motor.controller_temp_c) == (
        1, 3200, 180.5, 60, 45)
    position = report.block(Position2025)
    assert (position.coordinate_system, position.lng, position.lat, position.fix_valid) == (
        1, 116.397128, 39.916527, True)  # 1: WGS-84, which the 2016 edition's positions are
    alarms = report.block(Alarms2025)
    assert (alarms.max_level, alarms.flags, alarms.storage_faults, alarms.engine_faults, alarms.other_faults,
            alarms.general_faults) == (1, 0b101, (1001,), Special.INVALID, (7,), ())
    (pack,) = report.block(MinUnitVoltages).packs
    assert (pack.number, pack.voltage_v, pack.current_a, pack.unit_voltages_v) == (1, 612.3, -35.2, CELLS)
    assert report.block(PackTemperatures2025).packs[0].probe_temps_c == (28, 31, 29)
    assert report.block(CustomBlock) == CustomBlock(0x90, b"\x01\x02\x03")  # user-defined: as it came


def test_the_2025_sample_in_the_2016_edition_gets_its_extremes_and_invalid_where_2016_asks_more() -> None:
    message = decode_frame(bytes.fromhex(VECTORS["RT-2025-SAMPLE"]))
    source = message.body
    moved = transcode(source, P25, P16)
    assert moved.left_out == (
        "0x03 remaining hydrogen, DC-DC controller temperature, hydrogen concentration", "0x06 general fault codes",
        "0x30 fuel-cell stacks", "0x31 supercapacitor", "0x32 supercapacitor extremes", "0xFF the vehicle's signature")
    report = _sent(moved.report, P16)
    assert [type(b).__name__ for b in report.blocks] == [
        "VehicleData", "Motors", "FuelCell", "Engine", "Position", "Extremes", "Alarms", "CellVoltages",
        "ProbeTemperatures"]
    vehicle = report.block(VehicleData)
    assert (vehicle.speed_kmh, vehicle.mileage_km, vehicle.total_voltage_v, vehicle.total_current_a,
            vehicle.soc_pct) == (11.1, 67894.7, 22.3, 0.0, 66)
    assert (vehicle.accelerator_pct, vehicle.brake_pct) == (Special.INVALID, Special.INVALID)  # not in 2025
    (motor,) = report.block(Motors).motors
    assert (motor.speed_rpm, motor.torque_nm, motor.controller_voltage_v, motor.dc_current_a) == (
        1000, 0.1, Special.INVALID, Special.INVALID)
    engine = report.block(Engine)
    assert (engine.status, engine.crankshaft_rpm, engine.fuel_l_per_100km) == (
        Special.INVALID, source.block(Engine2025).crankshaft_rpm, Special.INVALID)
    units = source.block(MinUnitVoltages).packs[0].unit_voltages_v
    (pack,) = report.block(CellVoltages).packs
    assert (pack.total_cells, pack.first_cell, pack.cell_voltages_v) == (len(units), 1, units)
    # the 2016 extremes come from the same frame's cells and probes, with their 1-based positions
    extremes = report.block(Extremes)
    assert (extremes.max_cell_voltage_v, extremes.max_voltage_cell) == (max(units), units.index(max(units)) + 1)
    assert (extremes.min_cell_voltage_v, extremes.min_voltage_cell) == (min(units), units.index(min(units)) + 1)
    probes = [t for t in source.block(PackTemperatures2025).packs[0].probe_temps_c if not isinstance(t, Special)]
    assert (extremes.max_temp_c, extremes.min_temp_c) == (max(probes), min(probes))
    assert report.block(Alarms).storage_faults == source.block(Alarms2025).storage_faults


def test_back_filled_data_stays_back_filled_and_a_round_trip_keeps_what_both_editions_hold() -> None:
    source = ReissuedReport(AT, _report_2016().blocks)
    there = transcode(source, P16, P25).report
    assert isinstance(there, ReissuedReport)
    back = _sent(transcode(_sent(there, P25), P25, P16).report, P16)
    assert back.block(VehicleData) == _vehicle_2016(accelerator_pct=Special.INVALID, brake_pct=Special.INVALID)
    assert back.block(CellVoltages) == _report_2016().block(CellVoltages)
    assert back.block(Position) == _report_2016().block(Position)


def test_a_value_the_target_cannot_hold_is_abnormal_and_the_rest_of_the_frame_goes() -> None:
    # 2016 currents reach 5,553 A (offset -1000), 2025's only 3,553 A (offset -3000); 2025 motor speeds go down to
    # -32,000 rpm, 2016's to -20,000
    moved = transcode(RealtimeReport(AT, (_vehicle_2016(total_current_a=4000.0),)), P16, P25)
    vehicle = _sent(moved.report, P25).block(VehicleData2025)
    assert (vehicle.total_current_a, vehicle.soc_pct) == (Special.ABNORMAL, 76)
    fast = RealtimeReport(AT, (Motors2025((Motor(1, 1, 45, -25000, -15000.0, 60),)),))
    (motor,) = _sent(transcode(fast, P25, P16).report, P16).block(Motors).motors
    assert (motor.speed_rpm, motor.torque_nm, motor.temp_c) == (Special.ABNORMAL, Special.ABNORMAL, 60)


def test_a_window_of_a_pack_cannot_go_to_2025_and_is_named() -> None:
    window = CellVoltages((PackVoltages(1, 612.3, -35.2, 192, 97, CELLS), PackVoltages(2, 600.0, 1.0, 96, 1, CELLS)))
    moved = transcode(RealtimeReport(AT, (window,)), P16, P25)
    assert moved.left_out == ("0x08 subsystem 1: cells 97 ... of 192 (a part of the pack)",)
    assert [p.number for p in _sent(moved.report, P25).block(MinUnitVoltages).packs] == [2]


def test_a_gcj02_position_goes_to_2016_as_wgs84_and_one_of_another_system_is_left_out() -> None:
    lng, lat = 116.397128, 39.916527
    gcj_lng, gcj_lat = wgs84_to_gcj02(lng, lat)
    gcj = Position2025(0, 2, round(gcj_lng, 6), round(gcj_lat, 6))
    position = _sent(transcode(RealtimeReport(AT, (gcj,)), P25, P16).report, P16).block(Position)
    assert position.lng == pytest.approx(lng, abs=2e-5) and position.lat == pytest.approx(lat, abs=2e-5)  # ~2 m
    other = transcode(RealtimeReport(AT, (Position2025(0, 3, 1.0, 2.0),)), P25, P16)
    assert other.report.blocks == () and other.left_out == (
        "0x05 position in coordinate system 3 (2016 takes WGS-84)",)


def test_the_same_edition_is_the_same_report_and_another_family_is_refused() -> None:
    report = _report_2016()
    assert transcode(report, P16, P16).report is report
    with pytest.raises(ValueError, match="no transcoding"):
        transcode(report, P16, Protocol.GB17691)


def test_a_2025_pack_of_more_cells_than_a_2016_frame_holds_is_named() -> None:
    big = MinUnitVoltages((PackUnitVoltages(1, 700.0, 2.0, (3.3,) * 216),))
    moved = transcode(RealtimeReport(AT, (big,)), P25, P16)
    assert moved.left_out == ("0x07 pack 1: 216 cells (2016 takes 1 ... 200 a frame)",)
    assert _sent(moved.report, P16).block(CellVoltages) is None


def test_the_gear_bytes_shared_bits_go_across_and_2025s_invalid_flag_is_named() -> None:
    # 0x2E: driving force, gear 14 (D); 2025 bit 7: the gear position is invalid; 2016 reserves bits 6-7
    there = _sent(transcode(RealtimeReport(AT, (_vehicle_2016(gear=0xEE),)), P16, P25).report, P25)
    assert there.block(VehicleData2025).gear == 0x2E
    invalid = VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=0.0, mileage_km=1.0, total_voltage_v=600.0,
                              total_current_a=0.0, soc_pct=50, dcdc=1, gear=0x80 | 0x0F, insulation_kohm=5000)
    moved = transcode(RealtimeReport(AT, (invalid,)), P25, P16)
    assert moved.left_out == ("0x01 gear position invalid",)
    assert _sent(moved.report, P16).block(VehicleData).gear == 0x0F
