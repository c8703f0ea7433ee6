"""JT/T 1078 808-side bodies (0x9101, 0x9102, 0x9003/0x1003, 0x9105, 0x9201, 0x9202, 0x9205/0x1205,
0x9206/0x1206): the sources' vectors, round trips under every header version, and field errors."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from protocols.jt808 import (
    AvAttributes,
    AvResource,
    AvResourceList,
    AvTransmissionControl,
    AvTransmissionStatus,
    BodyError,
    FileUploadDone,
    FileUploadRequest,
    PlaybackControl,
    PlaybackRequest,
    QueryAvAttributes,
    QueryAvResources,
    RealtimeAvRequest,
    decode_body,
    decode_frame,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
)
from protocols.jt808.jsonify import to_json_value
from tests.unit.protocols.jt808_vectors import BODY_9206_SMALLCHI, VIDEO_BODY_VECTORS, BodyVector

START = datetime(2026, 11, 20, 1, 0, 0, tzinfo=UTC)
END = datetime(2026, 11, 20, 1, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize("vector", VIDEO_BODY_VECTORS, ids=[v.tag for v in VIDEO_BODY_VECTORS])
def test_decodes_the_sources_video_bodies_to_their_stated_fields(vector: BodyVector) -> None:
    body = decode_body(vector.msg_id, bytes.fromhex(vector.hex), vector.version)
    data = to_json_value(body)
    for key, expected in vector.expect.items():
        assert data[key] == expected, key
    assert body.encode(vector.version).hex() == vector.hex.lower()


def test_reads_0x9206_alarm_flags_as_64_bits_not_smallchis_dword() -> None:
    with pytest.raises(BodyError, match=r"0x9206 media_type at byte 52"):
        decode_body(0x9206, bytes.fromhex(BODY_9206_SMALLCHI.hex))


def _bodies() -> list[Any]:
    resource = AvResource(2, START, END, 1 << 33, 0, 1, 1, 123_456_789)
    return [
        RealtimeAvRequest("192.168.1.10", 7612, 0, 2, 0, 1),
        AvTransmissionControl(2, 0, 0, 0),
        AvTransmissionControl(36, 4),
        QueryAvAttributes(),
        AvAttributes(6, 1, 0, 1, 320, 1, 98, 1, 4),
        AvTransmissionStatus(3, 12),
        PlaybackRequest("media.example", 7612, 0, 1, 0, 1, 1, 0, 0, START, END),
        PlaybackRequest("127.0.0.1", 7612, 0, 1, 2, 0, 0, 4, 0, START, None),
        PlaybackControl(1, 5, 0, START),
        PlaybackControl(1, 1),
        QueryAvResources(0, None, None),
        QueryAvResources(2, START, END, (1 << 63) | 5, 3, 2, 1),
        AvResourceList(77, ()),
        AvResourceList(78, (resource,) * 3),
        FileUploadRequest("10.0.0.1", 21, "ftp", "pw", "/upload/clip", 1, START, END, 0, 0, 1, 1, 0b111),
        FileUploadDone(9, 0),
    ]


@pytest.mark.parametrize("version", ["2011", "2013", "2019"])
@pytest.mark.parametrize("body", _bodies(), ids=lambda b: f"{b.MSG_ID:04X}")
def test_round_trips_every_video_body_in_a_frame(body: Any, version: str) -> None:
    frame = encode_frame(body.MSG_ID, body, phone="13912345678", seq=65535, version=version)
    assert decode_frame(frame).body == body


def test_round_trips_a_long_resource_list_as_sub_packages() -> None:
    items = tuple(AvResource(1 + i % 4, START, END, 0, 0, 1, 1, 1000 + i) for i in range(200))
    frames = encode_subpackages(0x1205, AvResourceList(5, items), phone="13912345678", seq=10)
    assert len(frames) == 6  # 6 + 200 x 28 bytes in packages of 1023
    merged = merge_subpackages(decode_frame(f) for f in reversed(frames))
    assert merged.body == AvResourceList(5, items)


@pytest.mark.parametrize(("msg_id", "hex_body", "message"), [
    (0x9101, "0f3132", r"0x9101 server_ip at byte 1 needs 15 bytes"),
    (0x9102, "0101", r"0x9102 close_type at byte 2 needs 1 bytes"),
    (0x1205, "015a0000000201", r"announces 2 resources, body holds 0"),
    (0x9205, "01" + "FF" * 6, r"0x9205 start at byte 1"),
])
def test_names_the_field_and_offset_of_a_short_or_bad_body(msg_id: int, hex_body: str, message: str) -> None:
    with pytest.raises(BodyError, match=message):
        decode_body(msg_id, bytes.fromhex(hex_body))


def test_refuses_to_encode_a_field_out_of_range_naming_it() -> None:
    with pytest.raises(ValueError, match="0x9101 tcp_port"):
        RealtimeAvRequest("127.0.0.1", 70000, 0, 1, 0, 0).encode("2013")
    with pytest.raises(ValueError, match="0x9101 server_ip"):
        RealtimeAvRequest("x" * 256, 1, 0, 1, 0, 0).encode("2013")
