"""Units are converted once, in the codec: GMT+8 BCD time to UTC, signs, 1/10 units, item layouts."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.jt808 import (
    BodyError,
    ItemSpec,
    LocationReport,
    decode_body,
    decode_frame,
    encode_frame,
    register_item,
    to_json,
)
from protocols.jt808.extras import registry
from protocols.jt808.fields import bcd_time_to_utc, decode_text, utc_to_bcd_time


def _body(*, status: int = 0, lat: int = 22_570_336, lng: int = 113_937_577, altitude: int = 54,
          speed: int = 605, direction: int = 90, time_hex: str = "261121071556", items: bytes = b"") -> bytes:
    return struct.pack(">IIIIhHH", 3, status, lat, lng, altitude, speed, direction) + bytes.fromhex(time_hex) + items


def _report(body: bytes) -> LocationReport:
    report = decode_body(0x0200, body, "2013")
    assert isinstance(report, LocationReport)
    return report


# --- time -------------------------------------------------------------------------------------


def test_converts_terminal_time_from_gmt8_to_utc() -> None:
    assert _report(_body(time_hex="261121071556")).fix_at == datetime(2026, 11, 20, 23, 15, 56, tzinfo=UTC)


def test_converts_times_before_8am_to_the_previous_utc_day_and_year() -> None:
    assert _report(_body(time_hex="250101070000")).fix_at == datetime(2024, 12, 31, 23, 0, 0, tzinfo=UTC)


def test_gives_fix_times_as_timezone_aware_utc() -> None:
    fix_at = _report(_body()).fix_at
    assert fix_at.tzinfo is not None and fix_at.utcoffset() == timedelta(0)


def test_writes_utc_fix_times_back_as_gmt8_bcd() -> None:
    assert utc_to_bcd_time(datetime(2024, 12, 31, 23, 0, 0, tzinfo=UTC)).hex() == "250101070000"
    beijing = timezone(timedelta(hours=8))
    assert utc_to_bcd_time(datetime(2025, 1, 1, 7, 0, 0, tzinfo=beijing)).hex() == "250101070000"


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1999, 12, 31, 16), max_value=datetime(2099, 12, 31, 15, 59, 59),
                    timezones=st.just(UTC)),
       st.sampled_from([UTC, timezone(timedelta(hours=8)), timezone(timedelta(hours=-5))]))
def test_bcd_fix_times_are_the_gmt8_wall_clock_second_whatever_the_zone_and_however_often_asked(
        instant: datetime, zone: timezone) -> None:
    moment = instant.astimezone(zone)
    # the encoder keeps what it wrote by unix second: a second call, or another zone's name for the same
    # instant, must give the same bytes, and the bytes read back are that instant without its fraction
    expected = bytes.fromhex(moment.astimezone(timezone(timedelta(hours=8))).strftime("%y%m%d%H%M%S"))
    assert utc_to_bcd_time(moment) == expected
    assert utc_to_bcd_time(moment.astimezone(UTC)) == expected
    assert bcd_time_to_utc(expected) == moment.replace(microsecond=0).astimezone(UTC)


def test_rejects_fix_times_outside_the_bcd_century_even_next_to_cached_ones() -> None:
    utc_to_bcd_time(datetime(2099, 12, 31, 15, 59, 59, tzinfo=UTC))
    with pytest.raises(ValueError, match="cannot be sent"):
        utc_to_bcd_time(datetime(2099, 12, 31, 16, 0, 0, tzinfo=UTC))
    with pytest.raises(ValueError, match="cannot be sent"):
        utc_to_bcd_time(datetime(1999, 12, 31, 15, 59, 59, tzinfo=UTC))


def test_rejects_naive_fix_times_when_encoding() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        utc_to_bcd_time(datetime(2025, 1, 1))


@pytest.mark.parametrize("time_hex", ["000000000000", "251301000000", "2501011a0000", "250230120000", "250101240000"])
def test_rejects_a_bcd_time_that_is_not_a_time(time_hex: str) -> None:
    with pytest.raises(BodyError, match="invalid BCD time"):
        bcd_time_to_utc(bytes.fromhex(time_hex))


def test_rejects_a_location_report_with_an_invalid_time_keeping_the_header() -> None:
    frame = encode_frame(0x0200, _body(time_hex="000000000000"), phone="013912345678", seq=3)
    with pytest.raises(BodyError) as caught:
        decode_frame(frame)
    assert caught.value.header is not None and caught.value.header.seq == 3


def test_serialises_fix_times_as_iso_utc() -> None:
    frame = encode_frame(0x0200, _body(), phone="013912345678", seq=3)
    assert to_json(decode_frame(frame))["body"]["fix_at"] == "2026-11-20T23:15:56+00:00"


# --- position and motion ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "status,lat,lng",
    [(0b0000, 22.570336, 113.937577), (0b0100, -22.570336, 113.937577),
     (0b1000, 22.570336, -113.937577), (0b1100, -22.570336, -113.937577)],
)
def test_makes_south_and_west_negative_from_status_bits_2_and_3(status: int, lat: float, lng: float) -> None:
    report = _report(_body(status=status))
    assert (report.lat, report.lng) == (lat, lng)


def test_sets_status_bits_2_and_3_from_negative_coordinates_when_encoding() -> None:
    report = _report(_body(status=0b1100))
    status = struct.unpack_from(">I", report.encode("2013"), 4)[0]
    assert status & 0b1100 == 0b1100
    assert _report(report.encode("2013")) == report


def test_converts_speed_from_tenths_of_km_h() -> None:
    assert _report(_body(speed=605)).speed_kmh == 60.5


def test_reads_altitude_below_sea_level() -> None:
    assert _report(_body(altitude=-154)).altitude_m == -154


def test_converts_coordinates_from_millionths_of_a_degree() -> None:
    report = _report(_body(lat=1, lng=180_000_000))
    assert (report.lat, report.lng) == (0.000001, 180.0)


# --- additional items -------------------------------------------------------------------------


def _extras(items_hex: str) -> LocationReport:
    return _report(_body(items=bytes.fromhex(items_hex)))


def test_converts_tenths_units_of_mileage_fuel_and_recorder_speed() -> None:
    report = _extras("010400003039" "020201f4" "0302025d")
    assert report.extras == {"mileage_km": 1234.5, "fuel_l": 50.0, "record_speed_kmh": 60.5}


def test_reads_carriage_temperature_as_sign_and_magnitude() -> None:
    assert _extras("06028005").extras == {"carriage_temp_c": -5}
    assert _extras("06020005").extras == {"carriage_temp_c": 5}
    assert _report(_extras("06028005").encode("2013")).extras == {"carriage_temp_c": -5}


def test_marks_tyres_without_data_as_none() -> None:
    report = _extras("051e" + "e6" + "ff" * 29)
    assert report.extras["tyre_pressure_raw"] == [230] + [None] * 29


def test_reads_an_overspeed_alarm_without_an_area_when_its_type_is_zero() -> None:
    assert _extras("110100").extras == {"overspeed_alarm": {"location_type": 0, "area_id": None}}
    assert _extras("11050400000009").extras == {"overspeed_alarm": {"location_type": 4, "area_id": 9}}


def test_splits_analog_inputs_into_ad0_and_ad1() -> None:
    assert _extras("2b040cE404b0").extras == {"analog": {"ad0": 0x04B0, "ad1": 0x0CE4}}


def test_keeps_unknown_items_raw_with_id_and_hex() -> None:
    assert _extras("e3010030011f").extras == {"rssi": 31}
    assert _unknown_json("e3010030011f") == [{"id": 0xE3, "hex": "00"}]


def test_keeps_a_standard_item_of_the_wrong_length_raw() -> None:  # as QUIRK-VER-0200 0x05 (40 bytes)
    assert _extras("0502abcd300105").extras == {"rssi": 5}
    assert _unknown_json("0502abcd300105") == [{"id": 0x05, "hex": "abcd"}]


def test_keeps_a_repeated_item_raw_instead_of_overwriting_the_first() -> None:
    assert _extras("300105300107").extras == {"rssi": 5}
    assert _unknown_json("300105300107") == [{"id": 0x30, "hex": "07"}]


def test_keeps_an_item_that_overruns_the_body_flagged_as_truncated() -> None:
    assert _extras("3001053104aa").extras == {"rssi": 5}
    assert _unknown_json("3001053104aa") == [{"id": 0x31, "hex": "aa", "truncated": True}]
    assert _unknown_json("30010531") == [{"id": 0x31, "hex": "", "truncated": True}]


def test_drops_truncated_items_when_encoding_rather_than_resending_them_misframed() -> None:
    report = _extras("3001053104aa")
    assert _report(report.encode("2013")).unknown_items == ()


def _unknown_json(items_hex: str) -> list[dict[str, object]]:
    frame = encode_frame(0x0200, _body(items=bytes.fromhex(items_hex)), phone="013912345678", seq=1)
    return to_json(decode_frame(frame))["body"]["unknown_items"]


@pytest.fixture
def clean_item_registry() -> Iterator[None]:
    by_id, by_name = dict(registry._BY_ID), dict(registry._BY_NAME)
    yield
    registry._BY_ID.clear()
    registry._BY_ID.update(by_id)
    registry._BY_NAME.clear()
    registry._BY_NAME.update(by_name)


@pytest.mark.usefixtures("clean_item_registry")
def test_decodes_a_vendor_item_once_its_extension_registers_it() -> None:
    register_item(ItemSpec(0xE1, "vendor_battery_v", lambda raw: raw[0] / 10, lambda v: bytes((round(v * 10),))))
    report = _extras("e10178")
    assert report.extras == {"vendor_battery_v": 12.0}
    assert _report(report.encode("2013")) == report


@pytest.mark.usefixtures("clean_item_registry")
def test_rejects_an_extension_that_takes_a_registered_id_without_replace() -> None:
    with pytest.raises(ValueError, match="clashes"):
        register_item(ItemSpec(0x01, "odometer_m", lambda raw: 0, lambda v: b""))


@pytest.mark.usefixtures("clean_item_registry")
def test_keeps_an_item_raw_when_its_decoder_fails() -> None:
    register_item(ItemSpec(0xE2, "broken", lambda raw: raw[5], lambda v: b""))
    report = _extras("e20101")
    assert report.extras == {}
    assert report.unknown_items[0].id == 0xE2


# --- text -------------------------------------------------------------------------------------


def test_reads_gbk_plates_including_those_that_are_also_valid_utf8() -> None:
    assert decode_text("粤A12345".encode("gbk")) == "粤A12345"
    assert decode_text("鲁A12345".encode("gbk")) == "鲁A12345"  # C2 B3 is also UTF-8 for '³'


def test_reads_utf8_plates_sent_by_micropython_terminals() -> None:
    assert decode_text("粤A12345".encode()) == "粤A12345"


def test_strips_nul_padding_on_both_sides() -> None:
    assert decode_text(b"\x00\x00ABC123\x00") == "ABC123"
