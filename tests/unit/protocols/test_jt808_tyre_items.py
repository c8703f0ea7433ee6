"""The tyre items of a 0x0200 report (0x66 TPMS alarm events, 0x05 tyre pressures) through a whole
hand-built frame (tests/support/tyre_items.py: bytes from the standards' layouts): units named once, each
tyre event whole, no-data wheels None, and the frame re-encoded byte for byte."""

from __future__ import annotations

import struct

from protocols.jt808 import LocationReport, decode_frame, encode_frame, to_json
from protocols.jt808.extras.x66_tpms_alarm import alarm_bits
from tests.support.tyre_items import TPMS_ALARM_HEX, tyre_items

PHONE = "013800000066"


def _frame() -> bytes:
    # base block: alarm, status (ACC on, positioned), lat, lng, altitude m, speed 1/10 km/h, direction,
    # time BCD GMT+8 (2026-04-10 08:00:00)
    base = struct.pack(">IIIIhHH", 0, 3, 39_910_000, 116_390_000, 50, 600, 90) + bytes.fromhex("260410080000")
    body = base + tyre_items()
    header = (0x0200).to_bytes(2, "big") + len(body).to_bytes(2, "big") + bytes.fromhex(PHONE) + (1).to_bytes(2, "big")
    content = header + body
    checksum = 0
    for b in content:
        checksum ^= b
    escaped = (content + bytes((checksum,))).replace(b"\x7d", b"\x7d\x01").replace(b"\x7e", b"\x7d\x02")
    return b"\x7e" + escaped + b"\x7e"


def test_tpms_events_decode_with_their_units_from_a_whole_frame() -> None:
    message = decode_frame(_frame())
    assert isinstance(message.body, LocationReport)
    item = to_json(message)["body"]["extras"]["tpms_alarm"]
    assert item["alarm_id"] == 7 and item["flag"] == 0 and item["level"] is None
    assert (item["speed_kmh"], item["altitude_m"], item["lat"], item["lng"]) == (60, 50, 39.91, 116.39)
    assert item["time"] == "2026-04-10T00:00:00+00:00"  # BCD GMT+8 08:00 is 00:00 UTC
    assert item["alarm_no"] == {"terminal_id": "TEST001", "time": "2026-04-10T00:00:00+00:00", "seq": 0,
                                "attachments": 0}
    assert item["events"] == [
        {"tyre": 0, "type": 0x0001, "pressure_kpa": 230, "temperature_c": 35, "battery_pct": 90},
        {"tyre": 5, "type": 0x0084, "pressure_kpa": 150, "temperature_c": 40, "battery_pct": 15},
    ]
    assert item["type"] == 0x0001  # the item's type is its first event's
    assert [alarm_bits(e["type"]) for e in item["events"]] == [[], [2, 7]]  # tpms_2 low, tpms_7 battery low


def test_tyre_pressures_keep_the_byte_and_mark_wheels_without_data() -> None:
    extras = to_json(decode_frame(_frame()))["body"]["extras"]
    assert extras["tyre_pressure_raw"] == [0x70, 0x71] + [None] * 28


def test_a_frame_with_tyre_items_encodes_back_to_its_bytes() -> None:
    message = decode_frame(_frame())
    assert encode_frame(0x0200, message.body, phone=PHONE, seq=1, version="2013") == _frame()


def test_the_hand_built_tpms_item_is_as_long_as_its_layout_says() -> None:
    # head 5 + shared block 19 + alarm number 16 + count 1 + two events of 9
    assert len(bytes.fromhex(TPMS_ALARM_HEX)) == 5 + 19 + 16 + 1 + 2 * 9
