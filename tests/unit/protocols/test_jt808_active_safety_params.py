"""The T/JSATL12-2017 §4.2 active-safety parameter blocks 0xF364 (ADAS) and 0xF365 (DSM): decoded from
0x0104 answers, encoded into 0x8103, every field at its offset, ranges refused with the field's name."""

from __future__ import annotations

import pytest

from protocols.jt808 import BodyError, QueryParametersResponse, SetParameters, TerminalParam, decode_body
from protocols.jt808.messages.active_safety_params import ADAS_PARAMS, BLOCKS, DSM_PARAMS, ParamBlock
from protocols.jt808.messages.params import param_type

# SmallChi/JT808 JT808.Protocol.Extensions.SuBiao.Test JT808_0x8103_0xF364_Test: an 0x8103 body with one
# parameter, 0xF364 of 0x38 = 56 bytes, each field a distinct number so a shifted offset shows.
ADAS_8103 = ("01" "0000F364" "38"
             "05" "2D" "03" "0002" "0001" "22" "23" "1D" "26" "00000004" "0000000A" "1E"
             "09" "15" "2B" "08" "18"
             "0F" "0E" "14" "29" "10" "11"
             "12" "2A" "16" "17"
             "0D" "13" "28" "0C" "0B"
             "1C" "19" "2C" "1B" "1A"
             "24" "25" "27" "06" "07"
             "20" "21" "01020304")
ADAS_FIELDS = {
    "alarm_speed_threshold_kmh": 5, "alarm_volume": 45, "photo_strategy": 3, "timed_photo_interval_s": 2,
    "distance_photo_interval_m": 1, "photo_count": 34, "photo_interval_100ms": 35, "photo_resolution": 29,
    "video_resolution": 38, "alarm_enable": 4, "event_enable": 10, "reserved_19": b"\x1e",
    "obstacle_distance_threshold_100ms": 9, "obstacle_speed_threshold_kmh": 21, "obstacle_video_s": 43,
    "obstacle_photo_count": 8, "obstacle_photo_interval_100ms": 24,
    "lane_change_period_s": 15, "lane_change_count": 14, "lane_change_speed_threshold_kmh": 20,
    "lane_change_video_s": 41, "lane_change_photo_count": 16, "lane_change_photo_interval_100ms": 17,
    "lane_departure_speed_threshold_kmh": 18, "lane_departure_video_s": 42, "lane_departure_photo_count": 22,
    "lane_departure_photo_interval_100ms": 23,
    "forward_collision_time_threshold_100ms": 13, "forward_collision_speed_threshold_kmh": 19,
    "forward_collision_video_s": 40, "forward_collision_photo_count": 12,
    "forward_collision_photo_interval_100ms": 11,
    "pedestrian_collision_time_threshold_100ms": 28, "pedestrian_collision_speed_threshold_kmh": 25,
    "pedestrian_collision_video_s": 44, "pedestrian_collision_photo_count": 27,
    "pedestrian_collision_photo_interval_100ms": 26,
    "headway_distance_threshold_100ms": 36, "headway_speed_threshold_kmh": 37, "headway_video_s": 39,
    "headway_photo_count": 6, "headway_photo_interval_100ms": 7,
    "road_sign_photo_count": 32, "road_sign_photo_interval_100ms": 33, "reserved_52": b"\x01\x02\x03\x04",
}

# The standard's DSM defaults, written out by hand from its table (49 bytes).
DSM_DEFAULT_HEX = ("1E" "06" "00" "0E10" "00C8" "03" "02" "01" "01" "000001FF" "00000003"
                   "00B4" "0078" "000000"
                   "32050302" "32050302" "32050302" "32050302" "32050302"
                   "00" "0000")


def test_decodes_every_adas_field_at_its_offset() -> None:
    body = decode_body(0x8103, bytes.fromhex(ADAS_8103), "2013")
    assert isinstance(body, SetParameters)
    (param,) = body.params
    assert param.id == 0xF364 and param_type(0xF364) == "BYTES"
    assert ADAS_PARAMS.decode(param.value_bytes()) == ADAS_FIELDS


def test_encodes_each_adas_field_at_the_standards_offset() -> None:
    block = ADAS_PARAMS.encode({**ADAS_PARAMS.defaults(), "timed_photo_interval_s": 0x0102, "alarm_enable": 0x0A0B0C0D,
                                "forward_collision_time_threshold_100ms": 40, "road_sign_photo_interval_100ms": 9})
    assert len(block) == 56
    assert block[3:5] == b"\x01\x02"  # WORD at byte 3
    assert block[11:15] == b"\x0a\x0b\x0c\x0d"  # alarm enable DWORD at byte 11
    assert block[35] == 40  # forward collision time threshold at byte 35
    assert block[51] == 9 and block[52:] == bytes(4)  # road-sign photo interval, then 4 reserved bytes
    assert ADAS_PARAMS.decode(block)["forward_collision_time_threshold_100ms"] == 40


def test_the_adas_vector_round_trips_byte_for_byte_where_every_field_keeps_its_value() -> None:
    raw = bytes.fromhex(ADAS_8103)[6:]
    # the vector's numbers are offsets, not sensible settings: encode checks ranges, so rebuild from the
    # wire order instead and compare bytes
    assert b"".join(
        value if isinstance(value, bytes) else value.to_bytes(f.size, "big")
        for f, value in zip(ADAS_PARAMS.fields, ADAS_PARAMS.decode(raw).values(), strict=True)
    ) == raw
    frame_body = SetParameters((TerminalParam(0xF364, raw),)).encode("2013")
    assert frame_body.hex().upper() == ADAS_8103


def test_dsm_defaults_encode_to_the_hand_written_block_and_back() -> None:
    assert DSM_PARAMS.size == 49 and ADAS_PARAMS.size == 56
    block = DSM_PARAMS.encode(DSM_PARAMS.defaults())
    assert block.hex().upper() == DSM_DEFAULT_HEX
    values = DSM_PARAMS.decode(block)
    assert values["timed_photo_interval_s"] == 3600
    assert values["smoking_check_interval_s"] == 180 and values["phone_check_interval_s"] == 120
    assert values["abnormal_driving_speed_threshold_kmh"] == 50 and values["driver_id_trigger"] == 0
    assert values["reserved_23"] == bytes(3)


def test_adas_defaults_are_the_standards() -> None:
    values = ADAS_PARAMS.decode(ADAS_PARAMS.encode(ADAS_PARAMS.defaults()))
    assert values["alarm_speed_threshold_kmh"] == 30 and values["alarm_volume"] == 6
    assert values["forward_collision_time_threshold_100ms"] == 27 and values["alarm_enable"] == 0x00010FFF


def test_decodes_both_blocks_from_a_0104_answer() -> None:
    adas = ADAS_PARAMS.encode({**ADAS_PARAMS.defaults(), "alarm_speed_threshold_kmh": 40})
    dsm = bytes.fromhex(DSM_DEFAULT_HEX)
    body = ("1234" "02" "0000F364" f"{len(adas):02X}" + adas.hex() + "0000F365" "31" + DSM_DEFAULT_HEX)
    reply = decode_body(0x0104, bytes.fromhex(body), "2019")
    assert isinstance(reply, QueryParametersResponse) and reply.reply_seq == 0x1234
    by_id = {p.id: p.value_bytes() for p in reply.params}
    assert BLOCKS[0xF364].decode(by_id[0xF364])["alarm_speed_threshold_kmh"] == 40
    assert BLOCKS[0xF365].decode(by_id[0xF365]) == DSM_PARAMS.decode(dsm)
    assert reply.encode("2019").hex().upper() == body.upper()


def test_refuses_a_block_of_another_size() -> None:
    # SmallChi's 0xF365 vector is 47 bytes: it leaves out two fields of the standard's table
    smallchi = bytes.fromhex("052D030002000122231D26000000040000000A003E002E0102033941373831402F3033423C3D3234353F3A3B360506")
    with pytest.raises(BodyError, match=r"0xF365 \(dsm_params\) is 49 bytes, got 47"):
        DSM_PARAMS.decode(smallchi)
    with pytest.raises(BodyError, match="56 bytes, got 55"):
        ADAS_PARAMS.decode(bytes(55))


@pytest.mark.parametrize(
    "block,field,value,match",
    [
        (ADAS_PARAMS, "alarm_speed_threshold_kmh", 61, "alarm_speed_threshold_kmh must be 0 to 60 km/h, got 61"),
        (ADAS_PARAMS, "alarm_volume", 9, "alarm_volume must be 0 to 8"),
        (ADAS_PARAMS, "forward_collision_time_threshold_100ms", 9, "must be 10 to 50 100ms"),
        (ADAS_PARAMS, "lane_change_count", 2, "lane_change_count must be 3 to 10"),
        (ADAS_PARAMS, "photo_count", 0, "photo_count must be 1 to 10"),
        (DSM_PARAMS, "timed_photo_interval_s", 59, "must be 60 to 60000 s"),
        (DSM_PARAMS, "fatigue_photo_interval_100ms", 6, "must be 1 to 5 100ms"),
        (DSM_PARAMS, "driver_id_trigger", 4, "driver_id_trigger must be 0 to 3"),
        (DSM_PARAMS, "phone_check_interval_s", "120", "must be an integer"),
        (DSM_PARAMS, "phone_check_interval_s", True, "must be an integer"),
    ],
)
def test_refuses_a_value_outside_the_standards_range_naming_the_field(
    block: ParamBlock, field: str, value: object, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        block.encode({**block.defaults(), field: value})


def test_all_ff_leaves_a_field_unchanged_and_is_accepted() -> None:
    block = ADAS_PARAMS.encode({**ADAS_PARAMS.defaults(), "alarm_speed_threshold_kmh": 0xFF,
                                "timed_photo_interval_s": 0xFFFF})
    assert block[0] == 0xFF and block[3:5] == b"\xff\xff"


def test_refuses_missing_and_unknown_fields_and_bad_reserved_bytes() -> None:
    values = ADAS_PARAMS.defaults()
    del values["headway_video_s"]
    with pytest.raises(ValueError, match="adas_params.headway_video_s is required"):
        ADAS_PARAMS.encode(values)
    with pytest.raises(ValueError, match="unknown field speed"):
        ADAS_PARAMS.encode({**ADAS_PARAMS.defaults(), "speed": 1})
    with pytest.raises(ValueError, match="reserved_52 is 4 reserved bytes"):
        ADAS_PARAMS.encode({**ADAS_PARAMS.defaults(), "reserved_52": b"\x00"})
    without_reserved = {k: v for k, v in DSM_PARAMS.defaults().items() if not k.startswith("reserved")}
    assert DSM_PARAMS.encode(without_reserved).hex().upper() == DSM_DEFAULT_HEX
