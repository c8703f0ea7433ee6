"""Every encodable message survives encode_frame -> decode_frame under the 2011, 2013 and 2019 headers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from protocols.jt808 import (
    Authentication,
    BatchLocationUpload,
    Heartbeat,
    LocationReport,
    Logout,
    PlatformResponse,
    QueryParameters,
    QueryParametersResponse,
    RawBody,
    Registration,
    RegistrationResponse,
    ResendSubpackagesRequest,
    SetParameters,
    TerminalParam,
    TerminalResponse,
    UnknownItem,
    decode_body,
    decode_frame,
    encode_frame,
)
from protocols.jt808.messages import PhoneCallback, RecorderCollect

VERSIONS = ["2011", "2013", "2019"]
PHONE = "13912345678"


def _report(**changes: Any) -> LocationReport:
    fields: dict[str, Any] = {
        "alarm_flags": 0x00000003,
        "status_flags": 0x000C0003,
        "lat": 22.570336,
        "lng": 113.937577,
        "altitude_m": 54,
        "speed_kmh": 60.5,
        "direction_deg": 359,
        "fix_at": datetime(2026, 11, 20, 23, 15, 56, tzinfo=UTC),
        "extras": {
            "mileage_km": 1234.5,
            "fuel_l": 50.0,
            "record_speed_kmh": 60.4,
            "alarm_event_id_to_confirm": 7,
            "tyre_pressure_raw": [230, 231, None, 229] + [None] * 26,
            "carriage_temp_c": -18,
            "overspeed_alarm": {"location_type": 0, "area_id": None},
            "area_alarm": {"location_type": 2, "area_id": 77, "direction": 1},
            "road_section_time_alarm": {"section_id": 9, "driving_time_s": 600, "result": 0},
            "video_alarm_flags": 5,
            "abnormal_driving": {"behaviour_flags": 2, "fatigue_level": 40},
            "vehicle_signal_status": 0x21,
            "io_status": 1,
            "analog": {"ad0": 1200, "ad1": 3300},
            "rssi": 31,
            "gnss_satellites": 11,
        },
        "unknown_items": (UnknownItem(0xE1, "0102"), UnknownItem(0x24, "")),
    }
    fields.update(changes)
    return LocationReport(**fields)


def _bodies(version: str) -> list[Any]:
    registration_layout = version
    return [
        TerminalResponse(reply_seq=7, reply_msg_id=0x8103, result=0),
        PlatformResponse(reply_seq=65535, reply_msg_id=0x0200, result=4),
        Heartbeat(),
        Logout(),
        Registration(44, 305, "MKR01", "MODEL-X", "TID0001", 1, "粤B12345", layout=registration_layout),
        RegistrationResponse(reply_seq=3, result=0, auth_code="AUTH-123"),
        RegistrationResponse(reply_seq=3, result=4),
        Authentication("987654321", "123456789012345", "3.7.15")
        if version == "2019"
        else Authentication("987654321"),
        _report(),
        _report(lat=-33.856784, lng=-151.215297, status_flags=0x000C000F, extras={}, unknown_items=()),
        BatchLocationUpload(kind=1, items=(_report(), _report(speed_kmh=0.0, extras={"rssi": 3}))),
        QueryParametersResponse(
            reply_seq=6,
            params=(
                TerminalParam(0x0001, 30),
                TerminalParam(0x0013, "127.0.0.1"),
                TerminalParam(0x0031, 500),
                TerminalParam(0x0084, 2),
                TerminalParam(0xF001, b"\x01\x02"),
            ),
        ),
        SetParameters(params=(TerminalParam(0x0029, 10), TerminalParam(0x0083, "粤B12345"))),
        QueryParameters(),
        ResendSubpackagesRequest(original_seq=0x00EB, package_ids=(7, 8, 16)),
        PhoneCallback(flag=1, phone="13800000000"),
        RecorderCollect(command=0x10, start=datetime(2018, 9, 27, 12, 0, 20, tzinfo=UTC),
                        end=datetime(2018, 9, 27, 15, 0, 20, tzinfo=UTC), max_blocks=5556),
        RecorderCollect(command=0x01),
    ]


CASES = [(v, body) for v in VERSIONS for body in _bodies(v)]


@pytest.mark.parametrize(
    "version,body", CASES, ids=[f"{v}-{type(b).__name__}-{i}" for i, (v, b) in enumerate(CASES)]
)
def test_round_trips_every_encodable_message(version: str, body: Any) -> None:
    frame = encode_frame(body.MSG_ID, body, phone=PHONE, seq=4242, version=version)
    message = decode_frame(frame)
    assert message.body == body
    assert message.header.msg_id == body.MSG_ID
    assert message.header.seq == 4242
    assert message.header.phone == PHONE.zfill(20 if version == "2019" else 12)
    assert message.header.body_length == len(body.encode(version))
    # a 2011 header is a 2013 header; only a 2011-layout 0x0100 reveals the version
    expected = version if version == "2019" or isinstance(body, Registration) else "2013"
    assert message.header.version == expected
    assert message.header.protocol_version == (1 if version == "2019" else None)


@pytest.mark.parametrize("version", VERSIONS)
def test_round_trips_a_raw_body_of_an_unregistered_id(version: str) -> None:
    frame = encode_frame(0x0F10, RawBody("00ff7e7d"), phone=PHONE, seq=1, version=version)
    assert decode_frame(frame).body == RawBody("00ff7e7d")


@pytest.mark.parametrize("version", VERSIONS)
def test_round_trips_a_body_through_decode_body(version: str) -> None:
    for body in _bodies(version):
        assert decode_body(body.MSG_ID, body.encode(version), version) == body


def test_encodes_the_registration_layout_of_the_header_version() -> None:
    body = Registration(44, 305, "MKR01", "MODEL-X", "TID0001", 1, "ABC123")
    assert len(body.encode("2011")) == 25 + 6
    assert len(body.encode("2013")) == 37 + 6
    assert len(body.encode("2019")) == 76 + 6


def test_encodes_the_8003_count_as_a_byte_before_2019_and_a_word_from_2019() -> None:
    body = ResendSubpackagesRequest(original_seq=0x00EB, package_ids=(7, 8))
    assert body.encode("2013").hex() == "00eb02" + "0007" + "0008"
    assert body.encode("2019").hex() == "00eb0002" + "0007" + "0008"


def test_sends_the_auth_code_in_0x8100_only_on_success() -> None:
    assert RegistrationResponse(reply_seq=1, result=0, auth_code="ab").encode("2013").hex() == "0001006162"
    assert RegistrationResponse(reply_seq=1, result=2, auth_code="ignored").encode("2013").hex() == "000102"


def test_rejects_a_field_outside_its_wire_range_with_value_error() -> None:
    with pytest.raises(ValueError, match="LocationReport"):
        encode_frame(0x0200, _report(speed_kmh=7000.0), phone=PHONE, seq=1)
