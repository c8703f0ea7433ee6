"""JT/T 809 alarm information (0x1400 / 0x9400) against the public vectors: the 2011 family header with
plate and colour, the 2019 one without; 0x9401 urging (2011), 0x1401 answer (2011 and a real encrypted
2019 capture), 0x1402 report (2019), 0x1403 handling result (2011)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from protocols.jt809 import BodyError, CipherKeys, JT809Error, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    AlarmExchange,
    AlarmExchangeDown,
    AlarmReport,
    HandlingResult,
    UrgingAnswer,
    UrgingRequest,
)
from tests.unit.protocols.jt809_vectors import VECTORS

GUOJIAN = CipherKeys(56107078, 37382110, 50361430)


def _decode(name: str, version: str, keys: CipherKeys | None = None) -> object:
    message = decode_frame(bytes.fromhex(VECTORS[name]), version=version, keys=keys)
    assert message.body.encode(version) == message.plain
    return message.body


def test_urging_request_2011_with_utc_times() -> None:
    body = _decode("9401-2011", "2011")
    assert body == AlarmExchangeDown(c.URGING_REQUEST, UrgingRequest(
        1, 0x0002, datetime(2018, 9, 27, 2, 24, tzinfo=UTC), "123FFAA1", datetime(2018, 9, 27, 3, 24, tzinfo=UTC), 1,
        "smallchi", "12345678901", "123456@qq.com"), "粤A12345", 2)


def test_alarm_report_2019_has_no_plate_prefix() -> None:
    body = _decode("1402-2019", "2019")
    at = datetime(2020, 9, 14, 14, 16, 30, tzinfo=UTC)
    assert body == AlarmExchange(c.ALARM_REPORT, AlarmReport("JC2020PT088", 0xA001, at, at, at, "测A93228", 2, "", 0,
                                                             "超时停车"))


def test_urging_answer_2019_from_a_real_encrypted_capture() -> None:
    body = _decode("REAL-1401-ENC", "2019", GUOJIAN)
    assert body == AlarmExchange(c.URGING_ANSWER, UrgingAnswer("0D6F196E", 1, 0x1402, 4))


def test_handling_result_2011_body() -> None:
    data = bytes.fromhex(VECTORS["1403-2011-BODY"])
    assert HandlingResult.decode(data, "2011") == HandlingResult(3344, 3)
    assert HandlingResult(3344, 3).encode("2011") == data


def test_urging_answer_2011_round_trip_through_a_frame() -> None:
    body = AlarmExchange(c.URGING_ANSWER, UrgingAnswer("123FFAA1", 0), "粤A12345", 2)
    frame = encode_frame(c.ALARM_UP, body, sn=3, centre_id=20180920)
    assert decode_frame(frame).body == body


def test_real_exchanged_alarm_with_millisecond_times_stays_bytes() -> None:
    body = _decode("REAL-9403-PLAIN", "2019")
    assert isinstance(body, AlarmExchangeDown) and body.data_type == 0x9403 and isinstance(body.data, bytes)


def test_data_length_mismatch_is_refused() -> None:
    with pytest.raises(BodyError, match="DATA_LENGTH 9 but 5 bytes follow"):
        decode_body(c.ALARM_UP, bytes.fromhex("14010000000912345678AB"[:20]) + b"\x00", "2019")


def test_damaged_alarm_frames_only_ever_raise_codec_errors() -> None:
    rng = random.Random(1400)
    samples = [(bytes.fromhex(VECTORS["9401-2011"]), "2011"), (bytes.fromhex(VECTORS["1402-2019"]), "2019")]
    for _ in range(2000):
        frame, version = rng.choice(samples)
        plain = decode_frame(frame, version=version).plain
        damaged = bytearray(plain)
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        msg_id = c.ALARM_DOWN if version == "2011" else c.ALARM_UP
        try:
            decode_body(msg_id, bytes(damaged[: rng.randrange(len(damaged) + 1)]), version)
        except JT809Error:
            pass
