"""JT/T 809 bodies typed for the superior's side of the exchange, as the 2011 standard lays them out
(no public vector has them, so the expected hex is written field by field from the layout):
0x9302 platform message and 0x1302 its answer, 0x9402 warning tip, 0x1402 alarm report (2011, with
the INFO_ID urgings and handling results name), 0x9101 count of positions received."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocols.jt809 import BodyError, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    AlarmExchange,
    AlarmExchangeDown,
    AlarmReport2011,
    PlatformExchange,
    PlatformExchangeDown,
    PlatformMessage,
    PlatformMessageAnswer,
    PositionCount,
    WarningTip,
)

T0 = datetime(2018, 9, 27, 2, 24, tzinfo=UTC)  # 0x5BAC3F40
T1 = datetime(2018, 9, 27, 3, 24, tzinfo=UTC)  # 0x5BAC4D50
PLATE_2 = "D4C1413132333435" + "00" * 13 + "02"  # 粤A12345, colour 2 (yellow)


@pytest.mark.parametrize(("version", "object_id_hex"), [("2011", "37303031" + "00" * 8), ("2019", "37303031" + "00" * 16)])
def test_platform_message_layout_per_version(version: str, object_id_hex: str) -> None:
    data = "01" + object_id_hex + "00000D10" + "00000005" + "7265706C79"
    body = bytes.fromhex("9302" + f"{len(data) // 2:08X}" + data)
    expected = PlatformExchangeDown(c.PLATFORM_MESSAGE, PlatformMessage(1, "7001", 3344, "reply"))
    assert decode_body(c.PLATFORM_DOWN, body, version) == expected
    assert expected.encode(version) == body


def test_platform_message_answer_names_the_message_2011() -> None:
    body = bytes.fromhex("1302" + "00000004" + "00000D10")
    expected = PlatformExchange(c.PLATFORM_MESSAGE_ANSWER, PlatformMessageAnswer(3344))
    assert decode_body(c.PLATFORM_UP, body, "2011") == expected
    assert expected.encode("2011") == body
    assert decode_body(c.PLATFORM_UP, body, "2019") == PlatformExchange(0x1302, bytes.fromhex("00000D10"))


def test_warning_tip_2011() -> None:
    data = "03" + "0002" + "000000005BAC3F40" + "00000005" + "7469703031"
    body = bytes.fromhex(PLATE_2 + "9402" + f"{len(data) // 2:08X}" + data)
    expected = AlarmExchangeDown(c.WARNING_TIP, WarningTip(3, 2, T0, "tip01"), "粤A12345", 2)
    assert decode_body(c.ALARM_DOWN, body, "2011") == expected
    assert expected.encode("2011") == body


def test_alarm_report_2011_carries_the_info_id() -> None:
    data = "01" + "0001" + "000000005BAC3F40" + "0000004D" + "00000004" + "B3ACCBD9"
    body = bytes.fromhex(PLATE_2 + "1402" + f"{len(data) // 2:08X}" + data)
    expected = AlarmExchange(c.ALARM_REPORT, AlarmReport2011(1, 1, T0, 77, "超速"), "粤A12345", 2)
    assert decode_body(c.ALARM_UP, body, "2011") == expected
    assert expected.encode("2011") == body


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_position_count_frame_round_trip(version: str) -> None:
    body = bytes.fromhex("00002710" + "000000005BAC3F40" + "000000005BAC4D50")
    assert decode_body(c.POSITION_COUNT, body, version) == PositionCount(10000, T0, T1)
    frame = encode_frame(c.POSITION_COUNT, PositionCount(10000, T0, T1), sn=9, centre_id=7001, version=version)
    message = decode_frame(frame, version=version)
    assert message.body == PositionCount(10000, T0, T1) and message.plain == body
    assert c.BY_ID[c.POSITION_COUNT].direction is c.Direction.DOWN


@pytest.mark.parametrize(("msg_id", "hex_body"), [
    (c.POSITION_COUNT, "00002710000000005BAC3F40"),  # END_TIME missing
    (c.PLATFORM_DOWN, "930200000011" + "01" + "37303031" + "00" * 8 + "00000D10" + "00000009" + "7265"),
    (c.ALARM_UP, PLATE_2 + "14020000000F" + "01" + "0001" + "000000005BAC3F40" + "0000"),
])
def test_short_bodies_are_refused(msg_id: int, hex_body: str) -> None:
    with pytest.raises(BodyError):
        decode_body(msg_id, bytes.fromhex(hex_body), "2011")
