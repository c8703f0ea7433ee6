"""Message bodies (commands, replies, media): round trips under every header version, and the
layout rules that differ by version or by result."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from protocols.jt808 import (
    BodyError,
    CameraShoot,
    CameraShootResponse,
    LocationQueryResponse,
    LocationReport,
    ManualAlarmConfirmation,
    MediaEventInfo,
    MediaSearchItem,
    MediaUpload,
    MediaUploadResponse,
    QueryLocation,
    QuerySpecifiedParameters,
    StoredMediaSearch,
    StoredMediaSearchResponse,
    StoredMediaUpload,
    TemporaryTracking,
    TerminalControl,
    TextMessage,
    decode_body,
    decode_frame,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
)
from protocols.jt808.jsonify import to_json_value
from tests.unit.protocols.jt808_vectors import COMMAND_BODY_VECTORS, BodyVector

VERSIONS = ["2011", "2013", "2019"]
PHONE = "13912345602"
FIX = datetime(2026, 11, 20, 23, 15, 56, tzinfo=UTC)


def _basic(**changes: Any) -> LocationReport:
    fields: dict[str, Any] = {
        "alarm_flags": 0,
        "status_flags": 0x00000003,
        "lat": 22.570336,
        "lng": 113.937577,
        "altitude_m": 54,
        "speed_kmh": 60.5,
        "direction_deg": 90,
        "fix_at": FIX,
    }
    fields.update(changes)
    return LocationReport(**fields)


def _bodies() -> list[Any]:
    return [
        TerminalControl(4),
        TerminalControl(1, "http://upgrade.example/fw.bin;apn;user;pw;10.0.0.1;7000;;MKR01;1.0;2.0;60"),
        QuerySpecifiedParameters((0x0055, 0x0056, 0x0031)),
        QuerySpecifiedParameters(()),
        QueryLocation(),
        TemporaryTracking(interval_s=10, validity_s=3600),
        ManualAlarmConfirmation(alarm_seq=0x1234, alarm_type=1 << 20),
        TextMessage(flags=0b1101, text="前方拥堵，请绕行 ABC"),
        CameraShoot(1, 3, 5, 0, 2, 5, 128, 64, 100, 32),
        CameraShoot(2, 0xFFFF, 0, 1, 8, 1, 0, 255, 0, 255),
        StoredMediaSearch(0, 1, 0, FIX, datetime(2026, 11, 21, 1, 0, 0, tzinfo=UTC)),
        StoredMediaSearch(2, 0, 9, None, None),
        StoredMediaUpload(0, 1, 0, None, FIX, delete=1),
        MediaUploadResponse(0x01020304),
        MediaUploadResponse(7, (1, 3, 300)),
        LocationQueryResponse(9, _basic(extras={"mileage_km": 12.3, "rssi": 20})),
        MediaEventInfo(media_id=77, media_type=0, media_format=0, event_code=1, channel=2),
        MediaUpload(77, 0, 0, 0, 1, _basic(), b"\xff\xd8\xff\xe0" + bytes(range(256)) + b"\xff\xd9"),
        StoredMediaSearchResponse(3, ()),
        StoredMediaSearchResponse(
            3,
            (
                MediaSearchItem(10, 0, 1, 0, _basic()),
                MediaSearchItem(11, 2, 2, 9, _basic(lat=-33.856784, lng=-151.215297, status_flags=0x0C)),
            ),
        ),
        CameraShootResponse(5, 0, (100, 101, 102)),
        CameraShootResponse(5, 2),
    ]


CASES = [(v, b) for v in VERSIONS for b in _bodies()]


@pytest.mark.parametrize("version,body", CASES, ids=[f"{v}-{type(b).__name__}-{i}" for i, (v, b) in enumerate(CASES)])
def test_round_trips_through_a_frame(version: str, body: Any) -> None:
    if version == "2011" and isinstance(body, MediaUpload):
        body = replace(body, location=None)  # JT/T 808-2011 0x0801 carries no position
    frame = encode_frame(body.MSG_ID, body, phone=PHONE, seq=321, version=version)
    message = decode_frame(frame)
    assert message.body == body
    assert message.header.msg_id == body.MSG_ID
    assert decode_body(body.MSG_ID, body.encode(version), version) == body


def test_text_type_is_on_the_wire_only_from_2019() -> None:
    body = TextMessage(flags=0x0C, text="AB", text_type=2)
    assert body.encode("2013").hex() == "0c4142"
    assert body.encode("2019").hex() == "0c024142"
    assert decode_body(0x8300, bytes.fromhex("0c4142"), "2013") == TextMessage(0x0C, "AB", 1)


def test_text_is_gbk() -> None:
    assert TextMessage(0x08, "你好").encode("2013").hex() == "08c4e3bac3"


def test_a_media_upload_splits_into_subpackages_and_merges_back() -> None:
    body = MediaUpload(5, 0, 0, 0, 1, _basic(), bytes(range(256)) * 10)
    frames = encode_subpackages(0x0801, body, phone=PHONE, seq=100, max_body=900)
    parts = [decode_frame(f) for f in frames]
    assert [p.header.seq for p in parts] == [100, 101, 102]
    assert [p.header.package_index for p in parts] == [1, 2, 3]
    assert merge_subpackages(reversed(parts)).body == body


def test_a_0805_success_without_its_media_ids_is_a_body_error() -> None:
    with pytest.raises(BodyError, match="0x0805"):
        decode_body(0x0805, bytes.fromhex("000500"), "2013")
    with pytest.raises(BodyError, match="announces 2 media ids"):
        decode_body(0x0805, bytes.fromhex("0005000002" + "00000001"), "2013")


def test_a_0805_failure_carries_no_ids() -> None:
    assert CameraShootResponse(5, 1, (9,)).encode("2013").hex() == "000501"
    assert decode_body(0x0805, bytes.fromhex("000501"), "2013") == CameraShootResponse(5, 1)


def test_an_8800_without_a_count_means_complete() -> None:
    assert decode_body(0x8800, bytes.fromhex("00000007"), "2013") == MediaUploadResponse(7)
    assert MediaUploadResponse(7).encode("2013").hex() == "0000000700"


@pytest.mark.parametrize(
    "msg_id,hex_body,match",
    [
        (0x0801, "00000001000000" + "00" * 28, "at least 36"),
        (0x0801, "00000001000000", "at least 8"),
        (0x0802, "00030002" + "00" * 35, "announces 2 items"),
        (0x8106, "02" + "00000055", "announces 2 ids"),
        (0x8800, "0000000702" + "0001", "announces 2 package ids"),
        (0x8801, "01" * 11, "needs 12 bytes"),
        (0x8802, "00" * 14, "needs 15 bytes"),
        (0x0201, "00", "at least 2"),
        (0x0201, "0001" + "00" * 27, "basic block"),
    ],
)
def test_a_short_body_is_a_body_error(msg_id: int, hex_body: str, match: str) -> None:
    with pytest.raises(BodyError, match=match):
        decode_body(msg_id, bytes.fromhex(hex_body), "2013")


@pytest.mark.parametrize("vector", COMMAND_BODY_VECTORS, ids=[v.tag for v in COMMAND_BODY_VECTORS])
def test_decodes_body_vector_to_the_fields_its_source_states(vector: BodyVector) -> None:
    body = decode_body(vector.msg_id, bytes.fromhex(vector.hex), vector.version)
    data = to_json_value(body)
    for path, expected in vector.expect.items():
        node = data
        for part in path.split("."):
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert node == expected, path
    # and the body re-encodes to the same bytes
    assert body.encode(vector.version).hex() == vector.hex.lower()


def test_driver_identity_2011_and_left_padded_text_and_short_bodies() -> None:
    from protocols.jt808.errors import BodyError
    from protocols.jt808.messages import DriverIdentity

    # SmallChi/JT808 JT808_0x0702Test.cs Test2011_2 (2011 layout: no status, no time)
    old = decode_body(0x0702, bytes.fromhex(
        "02746B0000313233343536373839313233343536373839000000000000000000000000000000000000000000000000000000007177"
        "6531323334353661616106717765727478"), "2011")
    assert isinstance(old, DriverIdentity) and (old.driver_name, old.id_card, old.time) == ("tk", "123456789123456789", None)
    assert (old.qualification_no, old.issuing_authority) == ("qwe123456aaa", "qwertx")
    # SmallChi's own encoder pads the qualification number on the left (Test3): read the same
    left = decode_body(0x0702, bytes.fromhex(
        "0118081609161600056B6F696B6500000000000000007177653132333435366161610671776572747820180816"), "2013")
    assert isinstance(left, DriverIdentity) and left.qualification_no == "qwe123456aaa"
    with pytest.raises(BodyError):
        decode_body(0x0702, bytes.fromhex("01180816091616"), "2013")  # sign-in without its read result
