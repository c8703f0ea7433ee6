"""JT/T 809 vehicle supervision (0x1500 / 0x9500) and static information (0x1600 / 0x9600) against the
public vectors: 0x1501 answer (real encrypted 2019 capture), 0x9504 and 0x9505 requests (2011), 0x1601
answer (2011 and 2019); 0x1502 photo answer (real 2019 capture); 0x9501-0x9503 requests and 0x1503-0x1505
answers from the 2011 tables."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from protocols.jt809 import BodyError, CipherKeys, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    EmergencyAccess,
    EmergencyAnswer,
    ListenAnswer,
    ListenRequest,
    PhotoAnswer,
    PhotoRequest,
    RecorderAnswer,
    RecorderRequest,
    StaticInfo,
    StaticInfoAnswer,
    TextAnswer,
    TextRequest,
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


def test_photo_answer_2019_from_the_real_capture() -> None:
    # REAL-1502-ENC: the answer to 0x9502 SN 1, flag 9 (wrong plate), no position, lens 2, no photo
    body = _frame_body("REAL-1502-ENC")
    assert isinstance(body, VehicleControl) and body.data_type == 0x1502
    assert body.data == PhotoAnswer(9, 2, 0, 0, b"", bytes(36), 0x9502, 1)


# The layouts below are JT/T 809-2011 §5.5.1's tables (no public vector: the hex is ours, written from the
# table field by field); the 2019 answers add the source data type and SN, as REAL-1501/1502-ENC show.

def test_listen_photo_and_text_requests_2011() -> None:
    listen = bytes.fromhex("3133383030303030303030") + bytes(9)
    assert ListenRequest.decode(listen, "2011") == ListenRequest("13800000000")
    assert PhotoRequest.decode(bytes.fromhex("0105"), "2011") == PhotoRequest(1, 5)
    text = bytes.fromhex("0000002A" "01" "00000004") + "你好".encode("gbk")
    assert TextRequest.decode(text, "2011") == TextRequest(42, 1, "你好")
    for request, raw in ((ListenRequest("13800000000"), listen), (PhotoRequest(1, 5), bytes.fromhex("0105")),
                         (TextRequest(42, 1, "你好"), text)):
        assert request.encode("2011") == raw
    with pytest.raises(BodyError, match="MSG_LENGTH 5"):
        TextRequest.decode(bytes.fromhex("0000002A" "01" "00000005") + "你好".encode("gbk"), "2011")


def test_a_2019_request_of_unknown_layout_stays_bytes() -> None:
    body = VehicleControlDown("京A12345", 2, 0x9503, bytes.fromhex("0000002A0100000000"))
    assert VehicleControlDown.decode(body.encode("2019"), "2019").data == bytes.fromhex("0000002A0100000000")


@pytest.mark.parametrize("answer,raw_2011", [
    (TextAnswer(42, 0), "0000002A00"),
    (RecorderAnswer(0x10, b"\x01\x02"), "10" "00000002" "0102"),
    (EmergencyAnswer(1), "01"),
    (PhotoAnswer(3, 1, 5), "03" + "00" * 36 + "01" "00000000" "05" "00"),
])
def test_control_answers_2011_and_2019(answer: object, raw_2011: str) -> None:
    data = bytes.fromhex(raw_2011)
    assert answer.encode("2011") == data  # type: ignore[attr-defined]
    assert type(answer).decode(data, "2011") == answer  # type: ignore[attr-defined]
    sourced = replace(answer, source_data_type=0x9503, source_sn=7)  # type: ignore[type-var]
    assert sourced.encode("2019") == bytes.fromhex("950300000007") + data
    assert type(answer).decode(bytes.fromhex("950300000007") + data, "2019") == sourced  # type: ignore[attr-defined]


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
