"""JT/T 1078-2016's JT/T 809 video messages (protocols/jt809/messages/video.py): 0x9A01 against the one public
vector found (SmallChi/JT809, JT809.Protocol.Extensions.JT1078 tests: JT809_JT1078_0x9A00 Test1, authorisation
code as text), 0x1701 and 0x1801 against the public frames of the vector note (1701-2011, 1701-2019-ESC,
1801-2019); the other bodies against vectors built by hand from JT/T 1078-2016's layouts (no public capture or
library vector was found for them: protocols/jt809/README.md), each a whole family body (plate header + data)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from protocols.jt809 import BodyError, decode_body, decode_frame, encode_frame
from protocols.jt809 import catalogue as c
from protocols.jt809.messages import (
    Authorize,
    AuthorizeDown,
    AuthorizeReport,
    AuthorizeRequest,
    AuthorizeRequestAnswer,
    Playback,
    PlaybackAnswer,
    PlaybackControl,
    PlaybackControlAnswer,
    PlaybackDown,
    PlaybackRequest,
    RealVideo,
    RealVideoAnswer,
    RealVideoDown,
    RealVideoEnd,
    RealVideoEndAnswer,
    RealVideoRequest,
)
from tests.unit.protocols.jt809_vectors import VECTORS

# SmallChi/JT809 src/JT809.Protocol.Extensions.JT1078.Test/JT809_JT1078_0x9A00_Test.cs (MIT), Test1: 粤B12345
# yellow (2), channel 2, audio (1), stream 4, storage 3, 2017-07-16 10:10:10 to 2017-07-17 10:10:10 (GMT+8),
# an ASCII authorisation code, GNSS_DATA 00..23.
PUBLIC_9A01 = (
    "D4C142313233343500000000000000000000000000029A01000000780201040300000000596ACB0200000000596C1C82303132333435"
    "3637383930313233343536373839303132333435363738393031323334353637383930313233343536373839303132333435363738"
    "3930313233000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223")

# Built from the standard's tables: plate 京A12345, colour 1 (blue).
HEAD = "BEA94131323334350000000000000000000000000001"
BUILT = {
    "9801": HEAD + "98010000004202004155544830313233" + "00" * 56,
    "1801": HEAD + "180100000023003230332E302E3131332E37" + "00" * 21 + "1F90",
    "1801-LEFT-PADDED": HEAD + "18010000002300" + "00" * 21 + "3230332E302E3131332E371F90",
    "9802": HEAD + "9802000000020200",
    "1802": HEAD + "18020000000100",
    "1A01": HEAD + "1A010000002301" + "00" * 34,
    "9A02": HEAD + "9A020000000A050000000000692E9C80",
    "1A02": HEAD + "1A020000000100",
    # JT/T 1078-2016 table 40: the family header alone, DATA_LENGTH 0 (28 bytes in all, as the table says)
    "1702": HEAD + "170200000000",
    # table 41: AUTHORIZE_CODE_1 BYTE[64], AUTHORIZE_CODE_2 BYTE[64] (128 bytes of data)
    "9702": HEAD + "970200000080" + "484F4D45434F4445" + "00" * 56 + "43524F5353434F4445" + "00" * 55,
    "1701": HEAD + "17010000008B3133303030303030303031484F4D45434F4445" + "00" * 56 + "43524F5353434F4445" + "00" * 55,
}


def test_public_authorisation_frames_decode_in_both_layouts() -> None:
    for name, version in (("1701-2011", "2011"), ("1701-2019-ESC", "2019")):
        message = decode_frame(bytes.fromhex(VECTORS[name]), version=version)
        assert isinstance(message.body, Authorize) and message.body.plate == "粤A12345"
        assert message.body.data == AuthorizeReport(bytes(range(1, 10)).decode() + "\x10\x11", "", "")
        assert message.body.encode(version) == message.plain


def test_public_real_video_answer_capture_names_its_server() -> None:
    message = decode_frame(bytes.fromhex(VECTORS["1801-2019"]), version="2019")
    assert isinstance(message.body, RealVideo) and (message.body.plate, message.body.plate_colour) == ("粤A88888", 1)
    assert message.body.data == RealVideoAnswer(0, "127.0.0.1", 1078)
    assert message.body.encode("2019") == message.plain


def test_public_playback_request_vector_decodes_to_its_fields_and_back() -> None:
    body = decode_body(PlaybackDown.MSG_ID, bytes.fromhex(PUBLIC_9A01), "2011")
    assert isinstance(body, PlaybackDown) and (body.plate, body.plate_colour) == ("粤B12345", 2)
    assert body.data == PlaybackRequest(
        channel_id=2, av_item_type=1, stream_type=4, mem_type=3,
        start=datetime(2017, 7, 16, 2, 10, 10, tzinfo=UTC), end=datetime(2017, 7, 17, 2, 10, 10, tzinfo=UTC),
        authorize_code="0123456789012345678901234567890123456789012345678901234567890123",
        gnss_hex="".join(f"{i:02X}" for i in range(36)))
    assert body.encode("2011").hex().upper() == PUBLIC_9A01


@pytest.mark.parametrize(("name", "family", "data"), [
    ("9801", RealVideoDown, RealVideoRequest(2, 0, "AUTH0123", None)),
    ("1801", RealVideo, RealVideoAnswer(0, "203.0.113.7", 8080)),
    ("9802", RealVideoDown, RealVideoEnd(2, 0)),
    ("1802", RealVideo, RealVideoEndAnswer(0)),
    ("1A01", Playback, PlaybackAnswer(1, "", 0)),
    ("9A02", PlaybackDown, PlaybackControl(5, 0, datetime(2025, 12, 2, 8, 0, tzinfo=UTC))),
    ("1A02", Playback, PlaybackControlAnswer(0)),
    ("1701", Authorize, AuthorizeReport("13000000001", "HOMECODE", "CROSSCODE")),
    ("1702", Authorize, AuthorizeRequest()),
    ("9702", AuthorizeDown, AuthorizeRequestAnswer("HOMECODE", "CROSSCODE")),
])
def test_built_vectors_decode_to_their_fields_and_encode_to_the_same_bytes(name: str, family: type,
                                                                            data: object) -> None:
    raw = bytes.fromhex(BUILT[name])
    for version in ("2011", "2019"):  # JT/T 1078 gives these one layout whatever the 809 header
        body = decode_body(family.MSG_ID, raw, version)  # type: ignore[attr-defined]
        assert isinstance(body, family)
        assert (body.plate, body.plate_colour, body.data_type, body.data) == ("京A12345", 1, int(name, 16), data)  # type: ignore[attr-defined]
        assert body.encode(version) == raw  # type: ignore[attr-defined]


def test_a_server_address_padded_on_the_left_is_read_as_well() -> None:
    body = decode_body(RealVideo.MSG_ID, bytes.fromhex(BUILT["1801-LEFT-PADDED"]), "2011")
    assert body.data == RealVideoAnswer(0, "203.0.113.7", 8080)  # type: ignore[attr-defined]


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_a_real_video_answer_round_trips_in_a_whole_frame(version: str) -> None:
    body = RealVideo("京A12345", 1, RealVideoAnswer.DATA_TYPE, RealVideoAnswer(0, "203.0.113.7", 7612))
    frame = encode_frame(RealVideo.MSG_ID, body, sn=7, centre_id=80900001, version=version)
    message = decode_frame(frame, version=version)
    assert message.header.msg_id == 0x1800 and message.body == body


def test_a_request_with_its_optional_gnss_data_keeps_the_36_bytes() -> None:
    request = RealVideoRequest(1, 2, "CODE", "00" * 35 + "01")
    assert RealVideoRequest.decode(request.encode("2011"), "2011") == request


@pytest.mark.parametrize(("family", "data_hex", "what"), [
    (RealVideoDown, "9801000000040200004" + "1", "0x9801 needs 66 bytes"),
    (RealVideoDown, "980100000043" + "02" + "00" * 66, "GNSS_DATA is 36 bytes"),
    (RealVideo, "1801000000020000", "0x1801 is 35 bytes"),
    (PlaybackDown, "9A0200000002" + "0500", "0x9A02 is 10 bytes"),
    (PlaybackDown, "9A0100000004" + "01020304", "0x9A01 needs 84 bytes"),
    (Authorize, "170200000001" + "00", "0x1702 is 0 bytes"),
    (AuthorizeDown, "970200000040" + "00" * 64, "0x9702 is 128 bytes"),
])
def test_a_short_or_long_body_is_a_body_error_naming_the_field(family: type, data_hex: str, what: str) -> None:
    with pytest.raises(BodyError, match=what):
        decode_body(family.MSG_ID, bytes.fromhex(HEAD + data_hex), "2011")  # type: ignore[attr-defined]


def test_the_catalogue_names_the_video_messages() -> None:
    assert c.name_of(0x9800, 0x9801) == "实时音视频请求"
    assert c.name_of(0x1A00, 0x1A01) == "远程录像回放请求应答"
    assert c.BY_ID[0x9A00].direction is c.Direction.DOWN
    assert c.name_of(0x1700, 0x1702) == "时效口令请求" and c.name_of(0x9700, 0x9702) == "时效口令请求应答"
    assert c.BY_ID[0x9700].direction is c.Direction.DOWN
