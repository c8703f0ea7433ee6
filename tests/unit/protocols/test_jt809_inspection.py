"""JT/T 809 platform information (0x1300 / 0x9300): the inspection request 0x9301 and its answer 0x1301
in the 2011 and 2019 layouts, against the public vectors (two real 2019 captures, one encrypted)."""

from __future__ import annotations

import pytest

from protocols.jt809 import BodyError, CipherKeys, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    InspectionAnswer,
    InspectionRequest,
    PlatformExchange,
    PlatformExchangeDown,
)
from tests.unit.protocols.jt809_vectors import VECTORS

GUOJIAN = CipherKeys(56107078, 37382110, 50361430)
REAL_REQUEST = InspectionRequest(2, "测B01844", 25, "平台查岗请求是否是人类", 10)


@pytest.mark.parametrize(("name", "keys"), [("REAL-9301-PLAIN", None), ("REAL-9301-ENC", GUOJIAN)])
def test_real_2019_inspection_requests(name: str, keys: CipherKeys | None) -> None:
    message = decode_frame(bytes.fromhex(VECTORS[name]), version="2019", keys=keys)
    assert message.body == PlatformExchangeDown(c.INSPECTION_REQUEST, REAL_REQUEST)
    assert message.body.encode("2019") == message.plain


def test_inspection_request_2019_body() -> None:
    data = bytes.fromhex(VECTORS["9301-2019-BODY"])
    request = InspectionRequest.decode(data, "2019")
    assert request == InspectionRequest(2, "smallchi", 3344, "reply", 0)
    assert request.encode("2019") == data


def test_inspection_request_2011_layout_has_a_12_byte_object_id_and_no_answer_time() -> None:
    request = InspectionRequest(1, "20180920", 7, "请回答", None)
    data = request.encode("2011")
    assert len(data) == 1 + 12 + 4 + 4 + 6
    assert InspectionRequest.decode(data, "2011") == request


def test_inspection_answer_2011_body() -> None:
    data = bytes.fromhex(VECTORS["1301-2011-BODY"])
    answer = InspectionAnswer.decode(data, "2011")
    assert answer == InspectionAnswer(1, "111", "22ha22", 1234)
    assert answer.encode("2011") == data


def test_inspection_answer_2019_body_names_the_request_and_the_responder() -> None:
    data = bytes.fromhex(VECTORS["1301-2019-BODY"])
    answer = InspectionAnswer.decode(data, "2019")
    assert answer == InspectionAnswer(1, "111", "22ha22", 0, "smallchi", "12345678901", 0x006F, 99)
    assert answer.encode("2019") == data


def test_answer_round_trip_through_an_encrypted_2019_frame() -> None:
    body = PlatformExchange(c.INSPECTION_ANSWER, InspectionAnswer(2, "测B01844", "在岗", 0, "值班员", "020-1234",
                                                                  c.INSPECTION_REQUEST, 73))
    frame = encode_frame(c.PLATFORM_UP, body, sn=5, centre_id=70000001, version="2019", keys=GUOJIAN, key=15241,
                         timestamp=1755191700)
    assert decode_frame(frame, version="2019", keys=GUOJIAN).body == body


def test_other_platform_data_types_stay_bytes() -> None:
    body = decode_body(c.PLATFORM_DOWN, bytes.fromhex("930300000002ABCD"), "2011")
    assert body == PlatformExchangeDown(0x9303, b"\xab\xcd")


@pytest.mark.parametrize("data", ["9301000000FF", "93010000000102", "1301000000020102"])
def test_wrong_lengths_are_refused(data: str) -> None:
    with pytest.raises(BodyError):
        decode_body(c.PLATFORM_DOWN if data.startswith("93") else c.PLATFORM_UP, bytes.fromhex(data), "2019")


def test_info_length_that_does_not_match_is_refused() -> None:
    data = bytearray(bytes.fromhex(VECTORS["1301-2011-BODY"]))
    data[20] = 9  # INFO_LENGTH 9, 6 bytes follow
    with pytest.raises(BodyError, match="INFO_LENGTH 9 but 6 bytes follow"):
        InspectionAnswer.decode(bytes(data), "2011")
