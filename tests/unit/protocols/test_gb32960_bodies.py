"""GB/T 32960 data units built in the test: abnormal / invalid values as states, large packs, fault
codes, custom and unknown blocks, truncated blocks, answers, parameters and terminal control."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.gb32960 import BodyError, Protocol, Response, Special, TimeOnly, decode_frame, encode_frame
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages import (
    ActivationAnswer,
    ActivationRequest,
    Alarms,
    CellVoltages,
    CustomBlock,
    KeyExchange,
    Motor,
    Motors,
    PackTemperatures,
    PackVoltages,
    ParameterQuery,
    ParameterSet,
    Position,
    ProbeTemperatures,
    RealtimeReport,
    ReissuedReport,
    Signature,
    TerminalControl,
    UnparsedTail,
    VehicleData,
)
from protocols.gb32960.messages.params import ControlCommand
from protocols.gb32960.messages.realtime import decode_blocks

AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)
VIN = "LNBSCU3H5JR000001"
# GB/T 32960.3-2016 table 19, bits 0-18 (19-31 reserved)
BIT_NAMES = ("TEMPERATURE_DIFFERENCE", "BATTERY_HIGH_TEMPERATURE", "STORAGE_OVERVOLTAGE", "STORAGE_UNDERVOLTAGE",
             "SOC_LOW", "CELL_OVERVOLTAGE", "CELL_UNDERVOLTAGE", "SOC_HIGH", "SOC_JUMP", "STORAGE_MISMATCH",
             "CELL_CONSISTENCY", "INSULATION", "DCDC_TEMPERATURE", "BRAKE_SYSTEM", "DCDC_STATUS",
             "MOTOR_CONTROLLER_TEMPERATURE", "HIGH_VOLTAGE_INTERLOCK", "MOTOR_TEMPERATURE", "STORAGE_OVERCHARGE")


def _vehicle(**changes: object) -> VehicleData:
    values: dict[str, object] = dict(status=1, charging=3, run_mode=1, speed_kmh=42.5, mileage_km=12345.6,
                                     total_voltage_v=612.3, total_current_a=-35.2, soc_pct=76, dcdc=1, gear=0x2E,
                                     insulation_kohm=5000, accelerator_pct=20, brake_pct=0)
    values.update(changes)
    return VehicleData(**values)  # type: ignore[arg-type]


def _roundtrip(body: object, command: int = 0x02) -> object:
    return decode_frame(encode_frame(command, body, vin=VIN)).body


def test_abnormal_and_invalid_are_states_not_numbers_and_encode_back() -> None:
    vehicle = _vehicle(speed_kmh=Special.ABNORMAL, soc_pct=Special.INVALID, total_current_a=Special.INVALID,
                       mileage_km=Special.ABNORMAL)
    raw = vehicle.encode()
    # offsets in the 0x01 block: speed 3-4, mileage 5-8, current 11-12, SOC 13
    assert raw[3:5] == b"\xff\xfe" and raw[5:9] == b"\xff\xff\xff\xfe" and raw[11:13] == b"\xff\xff"
    assert raw[13] == 0xFF
    report = _roundtrip(RealtimeReport(AT, (vehicle,)))
    decoded = report.block(VehicleData)
    assert decoded == vehicle
    data = to_json(decode_frame(encode_frame(0x02, RealtimeReport(AT, (vehicle,)), vin=VIN)))
    assert data["body"]["blocks"][0]["speed_kmh"] == "abnormal" and data["body"]["blocks"][0]["soc_pct"] == "invalid"


def test_current_offset_and_resolution_follow_the_standard() -> None:
    raw = _vehicle(total_current_a=-1000.0).encode()
    assert raw[11:13] == b"\x00\x00"
    raw = _vehicle(total_current_a=0.0).encode()
    assert int.from_bytes(raw[11:13], "big") == 10000


def test_a_value_out_of_the_wire_range_is_refused_when_encoding() -> None:
    with pytest.raises(ValueError, match="total_current_a"):
        _vehicle(total_current_a=-1000.1).encode()
    with pytest.raises(ValueError, match="soc_pct"):
        _vehicle(soc_pct=254).encode()  # 254 is the abnormal marker, not a number


@pytest.mark.parametrize("cells", [96, 108])
def test_a_large_pack_and_96_probes_decode_to_the_cell(cells: int) -> None:
    volts = tuple(round(3.2 + i * 0.001, 3) for i in range(cells))
    temps = tuple(range(-40, 56))
    report = RealtimeReport(AT, (CellVoltages((PackVoltages(1, 345.6, 12.5, cells, 1, volts),)),
                                  ProbeTemperatures((PackTemperatures(1, temps),))))
    decoded = _roundtrip(report)
    assert decoded == report
    pack = decoded.block(CellVoltages).packs[0]
    assert len(pack.cell_voltages_v) == cells and pack.cell_voltages_v[0] == 3.2
    assert pack.cell_voltages_v[cells - 1] == round(3.2 + (cells - 1) * 0.001, 3)
    assert decoded.block(ProbeTemperatures).packs[0].probe_temps_c[95] == 55


def test_a_cell_reporting_abnormal_keeps_its_place_in_the_list() -> None:
    volts = (3.3, Special.ABNORMAL, Special.INVALID, 3.301)
    decoded = _roundtrip(RealtimeReport(AT, (CellVoltages((PackVoltages(2, 13.2, 0.0, 4, 1, volts),)),)))
    assert decoded.block(CellVoltages).packs[0].cell_voltages_v == volts


def test_fault_codes_and_general_flags_round_trip() -> None:
    alarms = Alarms(3, (1 << 11) | (1 << 18), (0xDEADBEEF,), (), (7,), (1, 2))
    decoded = _roundtrip(RealtimeReport(AT, (alarms,))).block(Alarms)
    assert decoded == alarms
    assert [f.name for f in decoded.general] == ["INSULATION", "STORAGE_OVERCHARGE"]


@settings(max_examples=300)
@given(st.integers(0, 2**32 - 1))
def test_the_general_alarm_names_are_the_set_flags_lowest_bit_first_and_reserved_bits_name_nothing(flags: int) -> None:
    alarms = Alarms(1, flags, (), (), (), ())
    expected = [name for bit, name in enumerate(BIT_NAMES) if flags >> bit & 1]
    assert list(alarms.general_names) == expected
    message = decode_frame(encode_frame(0x02, RealtimeReport(AT, (alarms,)), vin=VIN))
    assert to_json(message)["body"]["blocks"][0]["general_alarms"] == expected


def test_a_fault_count_marked_abnormal_or_invalid_carries_no_codes() -> None:
    alarms = Alarms(Special.INVALID, 0, Special.ABNORMAL, Special.INVALID, (), (5,))
    raw = alarms.encode()
    assert raw == b"\xff" + bytes(4) + b"\xfe\xff\x00\x01" + (5).to_bytes(4, "big")
    assert _roundtrip(RealtimeReport(AT, (alarms,))).block(Alarms) == alarms


def test_position_south_west_bits_give_signed_degrees() -> None:
    position = Position(0b110, 58.123456, 34.5)
    decoded = _roundtrip(RealtimeReport(AT, (position,))).block(Position)
    assert (decoded.lat, decoded.lng, decoded.fix_valid) == (-34.5, -58.123456, True)


def test_custom_block_is_kept_with_its_length_and_blocks_after_it_still_decode() -> None:
    report = RealtimeReport(AT, (CustomBlock(0x80, b"\x01\x02\x03"), _vehicle()))
    decoded = _roundtrip(report)
    assert decoded == report


def test_an_unknown_reserved_type_keeps_the_rest_of_the_data_unit_as_bytes() -> None:
    tail = UnparsedTail(0x30, b"\x30\x00\x11\x22")
    report = ReissuedReport(AT, (_vehicle(), tail))
    decoded = _roundtrip(report, 0x03)
    assert isinstance(decoded, ReissuedReport) and decoded == report


@pytest.mark.parametrize("cut", [1, 5, 11, 12])
def test_a_truncated_block_is_a_body_error_naming_what_is_missing(cut: int) -> None:
    motors = Motors((Motor(1, 4, 30, 1500, 120.5, 60, 600.0, 80.0),)).encode()
    data = b"\x02" + motors[:cut]
    with pytest.raises(BodyError, match="needs"):
        decode_blocks(data, 0, Protocol.GB32960_2016)


def test_a_truncated_real_time_frame_is_refused_not_half_read() -> None:
    data = RealtimeReport(AT, (_vehicle(),)).encode(Protocol.GB32960_2016)[:-3]
    with pytest.raises(BodyError):
        decode_frame(encode_frame(0x02, data, vin=VIN))


def test_a_bad_collection_time_is_a_body_error() -> None:
    data = bytes((26, 13, 1, 0, 0, 0)) + b"\x01" + _vehicle().encode()
    with pytest.raises(BodyError, match="not a date and time"):
        decode_frame(encode_frame(0x02, data, vin=VIN))


def test_an_answer_with_only_the_time_is_time_only() -> None:
    frame = encode_frame(0x01, TimeOnly(AT), vin=VIN, response=Response.SUCCESS)
    message = decode_frame(frame)
    assert message.body == TimeOnly(AT) and not message.header.is_command
    duplicate = decode_frame(encode_frame(0x01, TimeOnly(AT), vin=VIN, response=Response.VIN_DUPLICATE))
    assert duplicate.header.response == Response.VIN_DUPLICATE


def test_parameter_query_and_its_answer_with_domain_lengths() -> None:
    query = ParameterQuery(AT, ids=(0x01, 0x04, 0x05, 0x06))
    assert _roundtrip(query, 0x80) == query
    answer = ParameterQuery(AT, values=((0x01, 1000), (0x04, 15), (0x05, "gb.example.test"), (0x06, 32960),
                                        (0x07, "HW1.0"), (0x10, 2)))
    assert _roundtrip(answer, 0x80) == answer


def test_parameter_set_refuses_an_id_outside_the_table() -> None:
    setting = ParameterSet(AT, ((0x02, 30), (0x09, 10)))
    assert _roundtrip(setting, 0x81) == setting
    bad = setting.encode(Protocol.GB32960_2016)[:6] + b"\x01\x42\x00"
    with pytest.raises(BodyError, match="0x42 is not in the standard's table"):
        decode_frame(encode_frame(0x81, bad, vin=VIN))


def test_terminal_control_keeps_its_command_and_parameters() -> None:
    upgrade = TerminalControl(AT, ControlCommand.REMOTE_UPGRADE, b"ftp://fw;1;2")
    assert _roundtrip(upgrade, 0x82) == upgrade
    assert _roundtrip(TerminalControl(AT, ControlCommand.RESET), 0x82) == TerminalControl(AT, 3, b"")


def test_an_unregistered_command_stays_bytes() -> None:
    message = decode_frame(encode_frame(0xC1, b"\x01\x02", vin=VIN))
    assert message.body == b"\x01\x02" and to_json(message)["body"] == {"hex": "0102"}


def test_2025_activation_and_its_answer_from_the_public_implementations_layout_not_a_capture() -> None:
    request = ActivationRequest(AT, "CHIP0000000000A1", bytes(range(64)), VIN, Signature(1, b"\x01" * 32, b"\x02" * 32))
    frame = encode_frame(0x09, request, vin=VIN, protocol=Protocol.GB32960_2025)
    assert decode_frame(frame).body == request
    answer = encode_frame(0x09, ActivationAnswer(1, 0), vin=VIN, protocol=Protocol.GB32960_2025, response=Response.SUCCESS)
    assert decode_frame(answer).body == ActivationAnswer(1, 0)


def test_2025_key_exchange_from_the_public_implementations_layout_not_a_capture() -> None:
    exchange = KeyExchange(3, bytes(16), AT, AT.replace(year=2027))
    assert decode_frame(encode_frame(0x0B, exchange, vin=VIN, protocol=Protocol.GB32960_2025)).body == exchange


def test_the_2025_security_commands_stay_bytes_in_a_2016_frame() -> None:
    data = KeyExchange(3, bytes(16), AT, AT).encode(Protocol.GB32960_2025)
    assert decode_frame(encode_frame(0x0B, data, vin=VIN)).body == data


def test_an_activation_with_trailing_bytes_is_a_body_error() -> None:
    data = ActivationRequest(AT, "C", b"k", VIN, Signature(1, b"", b"")).encode(Protocol.GB32960_2025) + b"\x00"
    with pytest.raises(BodyError, match="after the signature"):
        decode_frame(encode_frame(0x09, data, vin=VIN, protocol=Protocol.GB32960_2025))


def test_the_json_of_blocks_names_each_type_and_info_type_in_order_with_coordinates_alarms_and_states() -> None:
    report = RealtimeReport(AT, (Position(0x06, 58.123456, 34.5), Alarms(2, 1 << 4, (), Special.ABNORMAL, (7,), ()),
                                 CellVoltages((PackVoltages(1, 3.3, Special.INVALID, 1, 2, (3.3, Special.ABNORMAL)),)),
                                 CustomBlock(0x81, b"\x01\xff")))
    blocks = to_json(decode_frame(encode_frame(0x02, report, vin=VIN)))["body"]["blocks"]
    assert [list(b) for b in blocks] == [
        ["type", "status", "longitude_deg", "latitude_deg", "info_type", "lat", "lng", "fix_valid"],
        ["type", "max_level", "flags", "storage_faults", "motor_faults", "engine_faults", "other_faults", "info_type",
         "general_alarms"],
        ["type", "packs", "info_type"],
        ["type", "info_type", "data"],
    ]
    position, alarms, cells, custom = blocks
    assert position == {"type": "Position", "status": 6, "longitude_deg": 58.123456, "latitude_deg": 34.5,
                        "info_type": "0x05", "lat": -34.5, "lng": -58.123456, "fix_valid": True}
    assert alarms["info_type"] == "0x07" and alarms["general_alarms"] == ["SOC_LOW"]
    assert alarms["motor_faults"] == "abnormal" and alarms["engine_faults"] == [7]
    assert cells["packs"] == [{"type": "PackVoltages", "number": 1, "voltage_v": 3.3, "current_a": "invalid",
                               "total_cells": 1, "first_cell": 2, "cell_voltages_v": [3.3, "abnormal"]}]
    assert custom == {"type": "CustomBlock", "info_type": "0x81", "data": "01ff"}  # its own info type, as text
