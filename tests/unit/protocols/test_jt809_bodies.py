"""JT/T 809 typed bodies against the public vectors: link messages (0x1001-0x1008, 0x9001-0x9008) and
vehicle dynamic information (0x1200 / 0x9200 with real-time 0x1202 and back-filled 0x1203 positions) in
the 2011 and 2019 layouts. Every decoded body re-encodes to the bytes it came from."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from protocols.jt808.messages import LocationReport
from protocols.jt809 import BodyError, CipherKeys, JT809Error, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.codec import registered_ids
from protocols.jt809.messages import (
    BackfilledPositions,
    DisconnectNotice,
    Gnss2011,
    Gnss2019,
    Heartbeat,
    LoginRequest,
    LoginResponse,
    LoginResult,
    LogoutRequest,
    PlatformAlarm,
    RealTimePosition,
    SubLinkHeartbeatResponse,
    SubLinkLoginRequest,
    SubLinkLoginResponse,
    SubLinkLoginResult,
    VehicleDynamic,
    VehicleDynamicDown,
    VehicleRegistration,
)
from tests.unit.protocols.jt809_vectors import VECTORS

SMALLCHI = CipherKeys(30000000, 20000000, 20000000)
DEMO_2019 = CipherKeys(20240604, 20240604, 20240604)
GUOJIAN = CipherKeys(56107078, 37382110, 50361430)

# The 2011 0x1202 position the SmallChi tests assert (Beijing 2012-07-19 15:15:15 = 07:15:15 UTC).
SMALLCHI_POSITION = Gnss2011(datetime(2012, 7, 19, 7, 15, 15, tzinfo=UTC), 133123456, 24123456, 50, 51, 150, 45, 45,
                             3, 257)


def _decode(name: str, version: str = "2011", keys: CipherKeys | None = None) -> object:
    message = decode_frame(bytes.fromhex(VECTORS[name]), version=version, keys=keys)
    assert message.body.encode(version) == message.plain  # known answer both ways
    return message.body


@pytest.mark.parametrize(("name", "keys"), [("LOGIN-2011", None), ("ENC-LOGIN-2011", SMALLCHI)])
def test_login_request_2011(name: str, keys: CipherKeys | None) -> None:
    assert _decode(name, keys=keys) == LoginRequest(20180920, "20180920", "127.0.0.1", 809)


def test_login_request_from_the_dotnetty_demo() -> None:
    assert _decode("LOGIN-DN") == LoginRequest(20140813, "20140813", "127.0.0.1", 8099)


def test_login_request_2019_carries_the_centre_id() -> None:
    assert _decode("ENC-LOGIN-2019", "2019", DEMO_2019) == LoginRequest(102, "123456", "127.0.0.1", 10062, 102)


def test_login_response_with_its_result_code_and_verify_code() -> None:
    body = _decode("LOGIN-RESP")
    assert body == LoginResponse(LoginResult.OK, 1256)
    assert isinstance(body, LoginResponse) and body.result is LoginResult.OK


def test_login_response_keeps_an_unknown_result_code() -> None:
    assert decode_body(c.LOGIN_RESPONSE, bytes.fromhex("0900000001"), "2011") == LoginResponse(9, 1)
    assert LoginResponse(LoginResult.PASSWORD_WRONG, 7).encode("2019") == bytes.fromhex("0400000007")


def test_logout_request() -> None:
    assert _decode("LOGOUT") == LogoutRequest(123456, "123456")


def test_heartbeat_and_sub_link_heartbeat_answer_are_empty() -> None:
    assert _decode("HEARTBEAT") == Heartbeat()
    assert _decode("SUBLINK-9006") == SubLinkHeartbeatResponse()


def test_sub_link_login_response() -> None:
    assert _decode("SUBLINK-9002") == SubLinkLoginResponse(SubLinkLoginResult.OK)


def test_disconnect_notice_from_a_real_encrypted_capture() -> None:
    assert _decode("REAL-1007-ENC", "2019", GUOJIAN) == DisconnectNotice(0)


def test_sub_link_login_request_round_trip_through_a_frame() -> None:
    frame = encode_frame(c.SUB_LOGIN_REQUEST, SubLinkLoginRequest(1256), sn=1, centre_id=20191013, version="2019",
                         keys=GUOJIAN, key=15241, timestamp=1755833777)
    message = decode_frame(frame, version="2019", keys=GUOJIAN)
    assert message.body == SubLinkLoginRequest(1256)
    assert message.header.time == datetime(2025, 8, 22, 3, 36, 17, tzinfo=UTC)


@pytest.mark.parametrize("msg_id", [c.HEARTBEAT, c.LOGIN_RESPONSE, c.LOGIN_REQUEST, c.SUB_LOGIN_REQUEST,
                                    c.DISCONNECT_NOTICE, c.LOGOUT_REQUEST])
def test_link_bodies_of_the_wrong_size_are_refused(msg_id: int) -> None:
    with pytest.raises(BodyError, match=f"0x{msg_id:04X}"):
        decode_body(msg_id, b"\x00" * 3, "2011")


def test_real_time_position_2011_body_from_smallchi() -> None:
    data = bytes.fromhex(VECTORS["1202-2011-BODY"])
    position = RealTimePosition.decode(data, "2011")
    assert position == RealTimePosition(SMALLCHI_POSITION)
    assert position.encode("2011") == data


def test_real_time_position_2011_frame_with_escaped_length() -> None:
    body = _decode("1202-2011-ESC")
    assert isinstance(body, VehicleDynamic)
    assert (body.plate, body.plate_colour, body.data_type) == ("粤A123456", 2, c.REAL_TIME_POSITION)
    position = body.data.position
    assert position.fix_at == datetime(2019, 4, 14, 14, 19, 15, tzinfo=UTC)  # 22:19:15 Beijing time
    assert (position.lng, position.lat, position.speed_kmh, position.alarm) == (133.123456, 24.123456, 50, 0)


def test_real_time_position_2019_body_is_a_jt808_location_with_three_platforms() -> None:
    data = bytes.fromhex(VECTORS["1202-2019-BODY"])
    position = RealTimePosition.decode(data, "2019").position
    assert isinstance(position, Gnss2019) and position.encrypted
    assert position.platforms == (PlatformAlarm("11111111111", 1), PlatformAlarm("22222222222", 2),
                                  PlatformAlarm("33333333333", 3))
    location = position.location
    assert location is not None
    assert (location.alarm_flags, location.status_flags, location.lat, location.lng, location.speed_kmh) == (
        1, 2, 12.222222, 132.444444, 6.0)
    assert location.fix_at == datetime(2018, 7, 15, 2, 10, 10, tzinfo=UTC)
    assert location.extras["mileage_km"] == 10.0
    assert RealTimePosition(position).encode("2019") == data


def test_real_2019_capture_with_a_2011_record_inside_keeps_the_bytes_without_a_location() -> None:
    body = _decode("1202-2019-QUIRK", "2019")
    assert isinstance(body, VehicleDynamic) and body.plate == "测试报警"
    position = body.data.position
    assert position.location is None and len(position.gnss_data) == 35
    assert position.platforms == (PlatformAlarm(),) * 3


def test_real_encrypted_2019_position_with_a_stray_byte() -> None:
    body = _decode("REAL-1202-ENC-1", "2019", GUOJIAN)
    assert isinstance(body, VehicleDynamic) and (body.plate, body.plate_colour) == ("测B01844", 2)
    position = body.data.position
    assert len(position.gnss_data) == 29
    assert position.platforms[0] == PlatformAlarm("0", 0x00040000)
    assert position.platforms[1] == PlatformAlarm("\x01" * 11, 0)
    assert position.location is not None
    assert (position.location.lat, position.location.lng) == (32.353134, 121.357231)
    assert position.location.fix_at == datetime(2025, 8, 22, 3, 35, 45, tzinfo=UTC)


def test_real_encrypted_2019_position_with_extras() -> None:
    body = _decode("REAL-1202-ENC-2", "2019", GUOJIAN)
    assert isinstance(body, VehicleDynamic) and body.plate == "陕CJ3819"
    location = body.data.position.location
    assert (location.lat, location.lng, location.speed_kmh, location.direction_deg, location.altitude_m) == (
        34.479181, 108.630994, 83.0, 56, 501)


def test_backfilled_positions_2011() -> None:
    data = bytes.fromhex(VECTORS["1203-2011-BODY"])
    backfill = BackfilledPositions.decode(data, "2011")
    assert [p.fix_at.hour for p in backfill.positions] == [7, 8, 9]  # 15, 16, 17 h Beijing time
    assert all(p.lng_e6 == 133123456 and p.alarm == 257 for p in backfill.positions)
    assert backfill.encode("2011") == data


def test_backfilled_positions_2019_round_trip_through_a_frame() -> None:
    location = LocationReport.decode(bytes.fromhex(VECTORS["1202-2019-BODY"])[5:43], "2019")
    positions = (Gnss2019.from_location(location), Gnss2019.from_location(location, (PlatformAlarm("1", 2),) * 3))
    frame = encode_frame(c.DYNAMIC_UP, VehicleDynamic.backfill("京A12345", 1, positions), sn=7, centre_id=9,
                         version="2019")
    body = decode_frame(frame, version="2019").body
    assert body.data_type == c.BACKFILLED_POSITIONS and body.data.positions == positions
    assert body.data.positions[0].location.lat == 12.222222


def test_vehicle_registration_2019() -> None:
    body = _decode("1201-2019", "2019")
    assert isinstance(body, VehicleDynamic)
    assert (body.plate, body.plate_colour, body.data_type) == ("粤A12345", 1, c.VEHICLE_REGISTRATION)
    assert body.data == VehicleRegistration("1111111111", "1111111111", "11111111", "123456789", "11111AA",
                                            "222222222222")


def test_other_data_types_are_kept_as_bytes_with_their_sub_business_header() -> None:
    body = VehicleDynamic("粤A12345", 1, 0x1201, b"\x01" * 61)  # a 2011 registration is not typed
    assert decode_body(c.DYNAMIC_UP, body.encode("2011"), "2011") == body
    body = VehicleDynamic("粤A12345", 1, 0x120C, b"\x02" * 9)
    assert decode_body(c.DYNAMIC_UP, body.encode("2019"), "2019") == body


def test_sub_link_family_uses_the_same_header() -> None:
    down = VehicleDynamicDown("粤A12345", 2, c.EXCHANGED_POSITION, RealTimePosition(SMALLCHI_POSITION))
    assert decode_body(c.DYNAMIC_DOWN, down.encode("2011"), "2011").data.position == SMALLCHI_POSITION


def test_wrong_data_length_is_refused() -> None:
    body = VehicleDynamic.position("粤A12345", 2, SMALLCHI_POSITION).encode("2011")
    with pytest.raises(BodyError, match="DATA_LENGTH 36 but 35 bytes follow"):
        decode_body(c.DYNAMIC_UP, body[:-1], "2011")


def test_backfill_count_beyond_the_data_is_refused() -> None:
    data = bytes.fromhex(VECTORS["1203-2011-BODY"])
    with pytest.raises(BodyError):
        BackfilledPositions.decode(b"\x04" + data[1:], "2011")


def test_invalid_date_is_refused() -> None:
    data = bytearray(bytes.fromhex(VECTORS["1202-2011-BODY"]))
    data[2] = 13  # month 13
    with pytest.raises(BodyError, match="invalid GNSS date"):
        RealTimePosition.decode(bytes(data), "2011")


def test_a_body_error_in_a_frame_carries_the_header_and_body() -> None:
    frame = encode_frame(c.LOGIN_RESPONSE, b"\x00", sn=1, centre_id=2)
    with pytest.raises(BodyError) as caught:
        decode_frame(frame)
    assert caught.value.header is not None and caught.value.body == b"\x00"


def test_a_2019_position_in_a_2011_body_is_refused_on_encode() -> None:
    with pytest.raises(ValueError, match="Gnss2019 cannot be sent in a 2011 body"):
        RealTimePosition(Gnss2019(b"")).encode("2011")


def test_plate_too_long_is_refused_on_encode() -> None:
    with pytest.raises(ValueError, match="plate"):
        VehicleDynamic.position("粤" * 11, 2, SMALLCHI_POSITION).encode("2011")


def test_damaged_bodies_only_ever_raise_body_errors() -> None:
    rng = random.Random(1202)
    samples = [(c.DYNAMIC_UP, VehicleDynamic.position("粤A1", 2, SMALLCHI_POSITION).encode("2011"), "2011"),
               (c.DYNAMIC_UP, VehicleDynamic("粤A1", 2, c.REAL_TIME_POSITION,
                                             RealTimePosition.decode(bytes.fromhex(VECTORS["1202-2019-BODY"]), "2019")
                                             ).encode("2019"), "2019"),
               (c.DYNAMIC_UP, bytes.fromhex("D4C1413100000000000000000000000000000000000002") + b"\x12\x03\x00\x00\x00\x6d"
                + bytes.fromhex(VECTORS["1203-2011-BODY"]), "2011"),
               (c.LOGIN_REQUEST, bytes.fromhex(VECTORS["LOGIN-2011"])[23:69], "2011")]
    for _ in range(3000):
        msg_id, body, version = rng.choice(samples)
        damaged = bytearray(body)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        cut = rng.choice([len(damaged), rng.randrange(len(damaged) + 1)])
        try:
            decode_body(msg_id, bytes(damaged[:cut]), version)
        except JT809Error:
            pass


def test_every_registered_body_is_in_the_catalogue_with_its_direction() -> None:
    assert set(registered_ids()) <= set(c.BY_ID)
    assert c.BY_ID[c.LOGIN_REQUEST].direction is c.Direction.UP
    assert c.BY_ID[c.SUB_LOGIN_REQUEST].direction is c.Direction.DOWN
    assert c.BY_DATA_TYPE[c.REAL_TIME_POSITION].family == c.DYNAMIC_UP
    assert c.BY_DATA_TYPE[0x9301].direction is c.Direction.DOWN
    assert all(d.family in c.BY_ID and d.family >> 8 == d.data_type >> 8 for d in c.DATA_TYPES)
    assert len(c.BY_DATA_TYPE) == len(c.DATA_TYPES) and len(c.BY_ID) == len(c.MESSAGES)
    assert c.name_of(c.DYNAMIC_UP, c.BACKFILLED_POSITIONS) == "车辆定位信息自动补报"
