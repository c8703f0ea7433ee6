"""Active-safety codec (Jiangsu 2017): items 0x64-0x67, messages 0x9208/0x1210/0x1211/0x1212/0x9212 and
the attachment data stream, checked against public vectors, round trips and bad input.

Vectors: SmallChi/JTActiveSafety tests (JT808_0x0200_0x64..0x67_Test.cs, JT808_0x9208/0x1210/0x1211/
0x9212_Test.cs, JTActiveSafetySerializerTest.cs). Their 0x0200 frames carry a wrong item length byte
(0x20 for a 47-byte item), so the item values are used here with a correct length; their 0x67 has a
level byte the standard does not define (yezhihao/jt808-server AlarmBSD.java: flag, type, speed), so
that vector is theirs without it. Their BCD times are Beijing time: 19-12-10 18:31 is 10:31 UTC.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from protocols.jt808 import (
    AlarmAttachmentList,
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    AttachmentFile,
    AttachmentFileDone,
    AttachmentFileDoneResponse,
    AttachmentFileInfo,
    BodyError,
    LocationReport,
    decode_body,
    decode_frame,
    encode_frame,
    to_json,
)
from protocols.jt808.extras import decode_items, encode_items
from protocols.jt808.extras.x66_tpms_alarm import alarm_bits

ALARM_NO_HEX = "34343434343434" "191210183100" "03" "02" "00"
ALARM_NO_JSON = {"terminal_id": "4444444", "time": "2019-12-10T10:31:00+00:00", "seq": 3, "attachments": 2}
SHARED_HEX = "11" "0007" "0000000D" "0000000E" "191211183100" "0013" + ALARM_NO_HEX
SHARED_JSON = {"speed_kmh": 17, "altitude_m": 7, "lat": 13e-6, "lng": 14e-6, "time": "2019-12-11T10:31:00+00:00",
               "vehicle_status": 19, "alarm_no": ALARM_NO_JSON}

ADAS_HEX = "00000001" "0C" "06" "05" "12" "0A" "0B" "10" "0F" + SHARED_HEX
DSM_HEX = "00000001" "0C" "06" "05" "12" "01020304" + SHARED_HEX
TPMS_HEX = "00000001" "0C" + SHARED_HEX + "02" "04" "0001" "0003" "0005" "0002" "09" "0006" "0008" "000A" "0007"
BSD_HEX = "00000001" "0C" "09" + SHARED_HEX
UUID = "1" * 32


def _item(item_id: int, value_hex: str) -> bytes:
    value = bytes.fromhex(value_hex)
    return bytes((item_id, len(value))) + value


def _decoded(item_id: int, value_hex: str) -> dict[str, Any]:
    extras, unknown = decode_items(_item(item_id, value_hex))
    assert unknown == ()
    (value,) = extras.values()
    assert isinstance(value, dict)
    return value


def test_adas_item_decodes_the_public_vector_with_units() -> None:
    value = _decoded(0x64, ADAS_HEX)
    assert value == {"alarm_id": 1, "flag": 12, "type": 6, "level": 5, **SHARED_JSON, "front_speed_kmh": 18,
                     "headway_s": 1.0, "deviation_type": 11, "road_sign_type": 16, "road_sign_data": 15}
    assert encode_items({"adas_alarm": value}, ()) == _item(0x64, ADAS_HEX)


def test_dsm_item_decodes_the_public_vector_and_drops_the_reserved_bytes() -> None:
    value = _decoded(0x65, DSM_HEX)
    assert value == {"alarm_id": 1, "flag": 12, "type": 6, "level": 5, "fatigue_degree": 18, **SHARED_JSON}
    assert encode_items({"dsm_alarm": value}, ()) == _item(0x65, DSM_HEX.replace("01020304", "00000000"))


def test_tpms_item_lists_each_tyre_event_and_takes_the_first_events_type() -> None:
    value = _decoded(0x66, TPMS_HEX)
    assert value["level"] is None and value["alarm_no"] == ALARM_NO_JSON
    assert value["events"] == [
        {"tyre": 4, "type": 1, "pressure_kpa": 3, "temperature_c": 5, "battery_pct": 2},
        {"tyre": 9, "type": 6, "pressure_kpa": 8, "temperature_c": 10, "battery_pct": 7},
    ]
    assert value["type"] == 1  # the first event's type WORD: bit 0, a timed report
    assert alarm_bits(value["type"]) == [] and alarm_bits(6) == [1, 2]  # keys tpms_1, tpms_2
    assert encode_items({"tpms_alarm": value}, ()) == _item(0x66, TPMS_HEX)


def test_tpms_item_with_a_wrong_event_count_stays_raw() -> None:
    extras, unknown = decode_items(_item(0x66, TPMS_HEX[:-2]))
    assert extras == {} and unknown[0].id == 0x66


def test_bsd_item_has_no_level() -> None:
    value = _decoded(0x67, BSD_HEX)
    assert value == {"alarm_id": 1, "flag": 12, "type": 9, "level": None, **SHARED_JSON}
    assert encode_items({"bsd_alarm": value}, ()) == _item(0x67, BSD_HEX)


def test_an_item_of_another_length_stays_raw_and_the_position_survives() -> None:
    extras, unknown = decode_items(_item(0x64, ADAS_HEX + "00") + _item(0x01, "00000064"))
    assert extras == {"mileage_km": 10.0}
    assert unknown[0].id == 0x64


@pytest.mark.parametrize("version", ["2013", "2019"])
def test_location_report_with_adas_and_dsm_alarms_round_trips(version: str) -> None:
    adas, dsm = _decoded(0x64, ADAS_HEX), _decoded(0x65, DSM_HEX)
    report = LocationReport(alarm_flags=0, status_flags=3, lat=31.2, lng=121.5, altitude_m=4, speed_kmh=60.0,
                            direction_deg=90, fix_at=datetime(2026, 11, 25, 6, 0, tzinfo=UTC),
                            extras={"adas_alarm": adas, "dsm_alarm": dsm})
    message = decode_frame(encode_frame(0x0200, report, phone="13912345678", seq=9, version=version))
    assert isinstance(message.body, LocationReport)
    assert message.body.extras == {"adas_alarm": adas, "dsm_alarm": dsm}
    assert to_json(message)["body"]["extras"]["adas_alarm"]["alarm_no"] == ALARM_NO_JSON


ALARM_NO = AlarmNumber("4444444", datetime(2019, 12, 10, 10, 31, tzinfo=UTC), 3, 2)
V9208 = ("0B3139322E3136382E312E31" "1388" "1389" "34343434343434191210183100030201" + "31" * 32 + "00" * 16)
V1210 = ("34343434343434" "34343434343434191210183100030201" + "31" * 32
         + "00" "02" "0866696C656E616D6500000009" "0966696C656E616D65310000000A")


def test_upload_request_9208_decodes_the_public_vector() -> None:
    body = decode_body(0x9208, bytes.fromhex(V9208), "2013")
    assert body == AlarmAttachmentUploadRequest("192.168.1.1", 5000, 5001, ALARM_NO, UUID)
    # the reserved byte of the alarm number (01 in the vector) is sent as 00
    assert body.encode("2013").hex().upper() == V9208.replace("030201", "030200")


def test_attachment_list_1210_decodes_the_public_vector() -> None:
    body = decode_body(0x1210, bytes.fromhex(V1210), "2019")
    assert body == AlarmAttachmentList("4444444", ALARM_NO, UUID, 0,
                                       (AttachmentFile("filename", 9), AttachmentFile("filename1", 10)))
    assert body.encode("2019").hex().upper() == V1210.upper().replace("030201", "030200")


def test_file_info_1211_and_done_1212_share_the_public_layout() -> None:
    raw = bytes.fromhex("0846696C654E616D650200000001")
    assert decode_body(0x1211, raw, "2013") == AttachmentFileInfo("FileName", 2, 1)
    assert decode_body(0x1212, raw, "2013") == AttachmentFileDone("FileName", 2, 1)
    assert AttachmentFileDone("FileName", 2, 1).encode("2013") == raw
    assert not isinstance(decode_body(0x1212, raw, "2013"), AttachmentFileInfo)


def test_done_response_9212_lists_missing_ranges() -> None:
    raw = bytes.fromhex("0846696C654E616D65010202000000140000000A000000280000001E")
    body = decode_body(0x9212, raw, "2013")
    assert body == AttachmentFileDoneResponse("FileName", 1, 2, ((20, 10), (40, 30)))
    assert body.encode("2013") == raw
    assert AttachmentFileDoneResponse("a.jpg", 0, 0).encode("2013") == bytes.fromhex("05612e6a7067000000")


@pytest.mark.parametrize("body", [
    AlarmAttachmentUploadRequest("10.0.0.1", 7613, 0, ALARM_NO, "a" * 32),
    AlarmAttachmentList("ABC1234", ALARM_NO, "b" * 32, 1, (AttachmentFile("00_64_6401_0_" + "b" * 32 + ".jpg", 9),)),
    AttachmentFileInfo("x.jpg", 0, 123456),
    AttachmentFileDone("x.mp4", 2, 7),
    AttachmentFileDoneResponse("x.jpg", 0, 1, ((0, 65536),)),
])
def test_attachment_messages_round_trip_in_frames(body: Any) -> None:
    for version in ("2013", "2019"):
        message = decode_frame(encode_frame(body.MSG_ID, body, phone="13912345678", seq=1, version=version))
        assert message.body == body


@pytest.mark.parametrize(("msg_id", "hex_body"), [
    (0x9208, V9208[:60]),
    (0x9208, "FF31"),
    (0x1210, V1210[:100]),
    (0x1210, V1210[:-4]),  # second file's size cut
    (0x1211, "0846696C654E616D6502"),
    (0x1212, ""),
    (0x9212, "0846696C654E616D650102020000001400"),
])
def test_short_bodies_raise_body_error(msg_id: int, hex_body: str) -> None:
    with pytest.raises(BodyError):
        decode_body(msg_id, bytes.fromhex(hex_body), "2013")


def test_encoding_refuses_oversize_names_and_bad_uuids() -> None:
    with pytest.raises(BodyError, match="1-255"):
        AttachmentFileInfo("x" * 256, 0, 1).encode("2013")
    with pytest.raises(BodyError, match="32"):
        AlarmAttachmentUploadRequest("10.0.0.1", 1, 0, ALARM_NO, "short").encode("2013")
    with pytest.raises(ValueError):
        AlarmAttachmentList("TOO-LONG-ID", ALARM_NO, UUID, 0, ()).encode("2013")


def test_to_json_shows_the_alarm_number_with_an_iso_time() -> None:
    frame = encode_frame(0x9208, bytes.fromhex(V9208), phone="13912345678", seq=5)
    body = to_json(decode_frame(frame))["body"]
    assert body["alarm_no"] == ALARM_NO_JSON and body["alarm_uuid"] == UUID and body["tcp_port"] == 5000


def test_fleet_decode_prints_an_upload_request_and_an_adas_alarm() -> None:
    from click.testing import CliRunner

    from fleet.cli import main

    frame = encode_frame(0x9208, bytes.fromhex(V9208), phone="13912345678", seq=5).hex()
    result = CliRunner().invoke(main, ["decode", frame])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["body"]["alarm_no"] == ALARM_NO_JSON
    report = LocationReport(alarm_flags=0, status_flags=3, lat=31.2, lng=121.5, altitude_m=4, speed_kmh=60.0,
                            direction_deg=90, fix_at=datetime(2026, 11, 25, 6, 0, tzinfo=UTC),
                            extras={"adas_alarm": _decoded(0x64, ADAS_HEX)})
    result = CliRunner().invoke(main, ["decode", encode_frame(0x0200, report, phone="13912345678", seq=6).hex()])
    assert json.loads(result.stdout)["body"]["extras"]["adas_alarm"]["headway_s"] == 1.0
