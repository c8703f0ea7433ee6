"""GB 17691-2018 annex Q / HJ 1239-2021 (heavy-duty emissions, ## framing). No public capture exists:
every frame here is built from the standard's layout, not a capture, and the names say so."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from fleet.cli import main
from protocols.gb32960 import BodyError, Protocol, Special, decode_frame, encode_frame
from protocols.gb32960.messages import (
    EmissionLogin,
    EmissionReissued,
    EmissionReport,
    EmissionTimeCalibration,
    EngineDataStream,
    ObdInfo,
    VehicleLogout,
)

AT = datetime(2026, 5, 6, 1, 2, 3, tzinfo=UTC)
VIN = "LZZ5CLVB8NW000017"
P = Protocol.GB17691


def _stream(**changes: object) -> EngineDataStream:
    values: dict[str, object] = dict(
        speed_kmh=62.5, atmospheric_pressure_kpa=100.5, engine_torque_pct=40, friction_torque_pct=-5,
        engine_speed_rpm=1450.125, fuel_flow_l_per_h=18.35, nox_upstream_ppm=812.4, nox_downstream_ppm=35.6,
        reagent_level_pct=61.2, intake_air_flow_kg_per_h=540.25, scr_inlet_temp_c=310.5, scr_outlet_temp_c=295.25,
        dpf_pressure_difference_kpa=3.2, coolant_temp_c=86, tank_level_pct=48.0, position_status=0,
        longitude_deg=116.397128, latitude_deg=39.916527, mileage_km=250321.7)
    values.update(changes)
    return EngineDataStream(**values)  # type: ignore[arg-type]


def _obd() -> ObdInfo:
    return ObdInfo(2, 1, 0x0F0F, 0x0303, VIN, "CAL-ECU-0001", "CVN0A1B2C3D", bytes(range(36)), (0x0001F203, 0x00D00A01))


def _roundtrip(command: int, body: object) -> object:
    return decode_frame(encode_frame(command, body, vin=VIN, protocol=P, software_version=2), protocol=P).body


def test_login_from_the_layout_not_a_capture_round_trips() -> None:
    login = EmissionLogin(AT, 7, "89860012345678901234")
    frame = encode_frame(0x01, login, vin=VIN, protocol=P)
    assert len(frame) == 24 + 28 + 1
    assert _roundtrip(0x01, login) == login


def test_logout_and_time_calibration_from_the_layout_not_a_capture() -> None:
    assert _roundtrip(0x04, VehicleLogout(AT, 7)) == VehicleLogout(AT, 7)
    assert _roundtrip(0x05, EmissionTimeCalibration()) == EmissionTimeCalibration()


def test_realtime_obd_and_data_stream_from_the_layout_not_a_capture() -> None:
    report = EmissionReport(AT, 12, (_obd(), _stream()))
    decoded = _roundtrip(0x02, report)
    assert decoded == report
    stream = decoded.block(EngineDataStream)
    assert (stream.nox_upstream_ppm, stream.nox_downstream_ppm, stream.reagent_level_pct) == (812.4, 35.6, 61.2)
    assert (stream.scr_inlet_temp_c, stream.dpf_pressure_difference_kpa, stream.engine_speed_rpm) == (310.5, 3.2, 1450.125)
    obd = decoded.block(ObdInfo)
    assert (obd.mil, obd.fault_codes, obd.vin) == (1, (0x0001F203, 0x00D00A01), VIN)


def test_data_stream_is_37_bytes_with_nox_offset_and_scr_temperature_scale_from_the_layout() -> None:
    raw = _stream(nox_upstream_ppm=-200.0, scr_inlet_temp_c=-273.0).encode()
    assert len(raw) == 37
    assert raw[9:11] == b"\x00\x00"  # NOx upstream: 0.05 ppm, offset -200
    assert raw[16:18] == b"\x00\x00"  # SCR inlet: 0.03125 °C, offset -273


def test_invalid_nox_reading_is_a_state_from_the_layout_not_a_capture() -> None:
    report = EmissionReissued(AT, 13, (_stream(nox_downstream_ppm=Special.INVALID, reagent_level_pct=Special.ABNORMAL),))
    decoded = _roundtrip(0x03, report)
    assert isinstance(decoded, EmissionReissued)
    stream = decoded.block(EngineDataStream)
    assert stream.nox_downstream_ppm is Special.INVALID and stream.reagent_level_pct is Special.ABNORMAL


def test_a_truncated_obd_block_is_a_body_error() -> None:
    data = EmissionReport(AT, 1, (_obd(),)).encode(P)[:-5]
    with pytest.raises(BodyError, match="fault code"):
        decode_frame(encode_frame(0x02, data, vin=VIN, protocol=P), protocol=P)


def test_fleet_decode_reads_a_gb17691_frame_with_its_flag() -> None:
    frame = encode_frame(0x02, EmissionReport(AT, 12, (_stream(),)), vin=VIN, protocol=P)
    result = CliRunner().invoke(main, ["decode", "--gb17691", frame.hex()])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["header"]["protocol"] == "gb17691" and data["header"]["vin"] == VIN
    assert data["body"]["blocks"][0]["nox_upstream_ppm"] == 812.4
