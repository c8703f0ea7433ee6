"""0x8400 phone callback and 0x8700 travel recorder collection, byte by byte (JT/T 808-2013 §8.33 and §8.45
tables; no public vector: the hex is written from the tables field by field)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocols.jt808 import BodyError
from protocols.jt808.messages import PhoneCallback, RecorderCollect


def test_phone_callback_listen_in_bytes() -> None:
    body = PhoneCallback(1, "13800000000")
    assert body.encode("2013") == bytes.fromhex("01" "3133383030303030303030")
    assert PhoneCallback.decode(body.encode("2013"), "2013") == body
    with pytest.raises(ValueError):
        PhoneCallback(1, "1" * 21).encode("2013")


def test_recorder_collect_over_a_period_sends_beijing_bcd_times() -> None:
    body = RecorderCollect(0x10, datetime(2018, 9, 27, 12, 0, 20, tzinfo=UTC), datetime(2018, 9, 27, 15, 0, 20,
                                                                                       tzinfo=UTC), 5556)
    assert body.encode("2013") == bytes.fromhex("10" "180927200020" "180927230020" "15B4")
    assert RecorderCollect.decode(body.encode("2013"), "2013") == body
    assert RecorderCollect(0x01).encode("2019") == b"\x01"
    with pytest.raises(BodyError):
        RecorderCollect.decode(b"\x10\x00", "2013")
