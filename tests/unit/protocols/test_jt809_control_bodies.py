"""JT/T 809 vehicle supervision (0x1500 / 0x9500) and static information (0x1600 / 0x9600) against the
public vectors: 0x1501 answer (real encrypted 2019 capture), 0x9504 and 0x9505 requests (2011), 0x1601
answer (2011 and 2019); 0x1502 photo answers stay bytes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocols.jt809 import BodyError, CipherKeys, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    EmergencyAccess,
    ListenAnswer,
    RecorderRequest,
    StaticInfo,
    StaticInfoAnswer,
    VehicleControl,
    VehicleControlDown,
)
from tests.unit.protocols.jt809_vectors import VECTORS

GUOJIAN = CipherKeys(56107078, 37382110, 50361430)


def _frame_body(name: str) -> object:
    message = decode_frame(bytes.fromhex(VECTORS[name]), version="2019", keys=GUOJIAN)
    assert message.body.encode("2019") == message.plain
    return message.body


def test_listen_answer_2019_names_the_request() -> None:
    assert _frame_body("REAL-1501-ENC") == VehicleControl("测A60369", 1, c.LISTEN_ANSWER, ListenAnswer(0, 0x9501, 1))


def test_photo_answer_stays_bytes() -> None:
    body = _frame_body("REAL-1502-ENC")
    assert isinstance(body, VehicleControl) and body.data_type == 0x1502 and body.data[:6] == bytes.fromhex("950200000001")


def test_recorder_request_2011_with_beijing_bcd_times() -> None:
    data = bytes.fromhex(VECTORS["9504-2011-BODY"])
    request = RecorderRequest.decode(data, "2011")
    assert request == RecorderRequest(0x10, datetime(2018, 9, 27, 12, 0, 20, tzinfo=UTC),
                                      datetime(2018, 9, 27, 15, 0, 20, tzinfo=UTC), 5556)
    assert request.encode("2011") == data


def test_emergency_access_2011() -> None:
    data = bytes.fromhex(VECTORS["9505-2011-BODY"])
    access = EmergencyAccess.decode(data, "2011")
    assert access == EmergencyAccess("00000000000000000808", "jt808", "adslsmallchi", "adsl123", "127.0.0.1", 808, 809,
                                     datetime(2018, 9, 27, 12, 0, tzinfo=UTC))
    assert access.encode("2011") == data


def test_requests_in_a_2019_body_stay_bytes() -> None:
    body = VehicleControlDown("粤A12345", 2, c.RECORDER_REQUEST, bytes.fromhex(VECTORS["9504-2011-BODY"]))
    assert decode_body(c.CONTROL_DOWN, body.encode("2019"), "2019") == body


@pytest.mark.parametrize(("name", "version", "expected"), [
    ("1601-2011-BODY", "2011", StaticInfoAnswer("smallchi")),
    ("1601-2019-BODY", "2019", StaticInfoAnswer("smallchi", 0x0001, 2)),
])
def test_static_info_answer(name: str, version: str, expected: StaticInfoAnswer) -> None:
    data = bytes.fromhex(VECTORS[name])
    assert StaticInfoAnswer.decode(data, version) == expected
    assert expected.encode(version) == data


def test_static_info_round_trip_through_a_frame() -> None:
    body = StaticInfo("陕CJ3819", 2, c.STATIC_INFO_ANSWER, StaticInfoAnswer("VIN:LSVAM4187C2184847", 0x9601, 12))
    frame = encode_frame(c.STATIC_UP, body, sn=9, centre_id=86896940, version="2019", keys=GUOJIAN, key=15241)
    assert decode_frame(frame, version="2019", keys=GUOJIAN).body == body


@pytest.mark.parametrize(("data_type", "data"), [(0x9504, "10180927"), (0x9505, "00" * 10)])
def test_truncated_requests_are_refused(data_type: int, data: str) -> None:
    body = VehicleControlDown("粤A1", 2, data_type, bytes.fromhex(data)).encode("2011")
    with pytest.raises(BodyError):
        decode_body(c.CONTROL_DOWN, body, "2011")


def test_invalid_bcd_time_is_refused() -> None:
    data = bytearray(bytes.fromhex(VECTORS["9504-2011-BODY"]))
    data[2] = 0x13  # month 13
    with pytest.raises(BodyError):
        decode_body(c.CONTROL_DOWN, VehicleControlDown("粤A1", 2, 0x9504, bytes(data)).encode("2011"), "2011")
