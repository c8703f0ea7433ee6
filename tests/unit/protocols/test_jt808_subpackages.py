"""Sub-packages: splitting, package header fields, merging (SUB-2a/b), and 0x8003 requests."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from protocols.jt808 import (
    AvResourceList,
    BatchLocationUpload,
    BodyError,
    LocationReport,
    RawBody,
    ResendSubpackagesRequest,
    decode_frame,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
    missing_packages,
)
from protocols.jt808.framing import unescape
from tests.unit.protocols.jt808_vectors import VECTORS

PHONE = "013912345678"
BODY = bytes(random.Random(7).randrange(256) for _ in range(2500))


@pytest.mark.parametrize("version,header_size", [("2013", 16), ("2019", 21)])
def test_splits_a_long_body_into_numbered_packages(version: str, header_size: int) -> None:
    frames = encode_subpackages(0x0801, BODY, phone=PHONE, seq=100, version=version, max_body=1023)
    messages = [decode_frame(f) for f in frames]
    assert [m.header.package_total for m in messages] == [3, 3, 3]
    assert [m.header.package_index for m in messages] == [1, 2, 3]
    assert [m.header.seq for m in messages] == [100, 101, 102]
    assert [m.header.body_length for m in messages] == [1023, 1023, 454]
    assert all(isinstance(m.body, RawBody) for m in messages)
    for frame, message in zip(frames, messages, strict=True):
        content = unescape(frame)[1:-2]
        attr = int.from_bytes(content[2:4], "big")
        assert attr & 0x2000, "sub-package bit 13"
        assert len(content) == header_size + message.header.body_length
        assert content[header_size - 4 : header_size] == bytes([0, 3, 0, message.header.package_index or 0])


def test_gives_packages_consecutive_serials_that_wrap() -> None:
    frames = encode_subpackages(0x0801, BODY, phone=PHONE, seq=65535, max_body=1000)
    assert [decode_frame(f).header.seq for f in frames] == [65535, 0, 1]


def test_sends_a_body_that_fits_as_one_ordinary_frame() -> None:
    (frame,) = encode_subpackages(0x0F01, b"\x01\x02", phone=PHONE, seq=5)  # an unregistered id
    assert frame == encode_frame(0x0F01, b"\x01\x02", phone=PHONE, seq=5)
    assert decode_frame(frame).header.package_total is None


def test_rejects_a_package_size_the_header_cannot_carry() -> None:
    with pytest.raises(ValueError):
        encode_subpackages(0x0801, BODY, phone=PHONE, seq=1, max_body=1024)


def test_merges_packages_in_any_order_ignoring_duplicates() -> None:
    # an unregistered id merges to RawBody (0x0801 bodies: test_jt808_command_bodies.py)
    messages = [decode_frame(f) for f in encode_subpackages(0x0F01, BODY, phone=PHONE, seq=9, max_body=700)]
    shuffled = [messages[3], messages[0], messages[2], messages[0], messages[1]]
    merged = merge_subpackages(shuffled)
    assert merged.body == RawBody(BODY.hex())
    assert (merged.header.seq, merged.header.body_length, merged.header.package_total) == (9, 2500, None)
    assert merged.raw == b"".join(m.raw for m in messages)


def test_merges_and_decodes_a_sub_packaged_batch_upload() -> None:
    report = LocationReport(0, 3, 22.5, 113.9, 10, 50.0, 90, datetime(2025, 1, 1, tzinfo=UTC), {"rssi": 20})
    batch = BatchLocationUpload(kind=1, items=(report,) * 40)
    frames = encode_subpackages(0x0704, batch, phone=PHONE, seq=1, max_body=512)
    assert len(frames) > 1
    merged = merge_subpackages(decode_frame(f) for f in frames)
    assert merged.body == batch


def test_merges_the_smallchi_0x1205_pair() -> None:  # SUB-2a + SUB-2b
    parts = [decode_frame(bytes.fromhex(v.hex)) for v in VECTORS if v.tag in ("SUB-2b", "SUB-2a")]
    merged = merge_subpackages(parts)
    assert merged.header.body_length == 930 + 56
    body = merged.body
    assert isinstance(body, AvResourceList)
    assert body.reply_seq == 0x015A and len(body.items) == 35  # the source's stated values
    first = body.items[0]
    assert (first.channel, first.alarm_flags, first.media_type, first.stream_type, first.storage) == (1, 0, 0, 1, 1)
    assert first.start == datetime(2020, 12, 19, 2, 42, 5, tzinfo=UTC)  # 10:42:05 GMT+8
    assert first.end == datetime(2020, 12, 19, 2, 50, 19, tzinfo=UTC)
    assert first.size_bytes == 0x064446D1


def test_names_the_missing_packages() -> None:
    messages = [decode_frame(f) for f in encode_subpackages(0x0801, BODY, phone=PHONE, seq=9, max_body=300)]
    kept = [m for m in messages if m.header.package_index not in (2, 5)]
    assert missing_packages(kept) == [2, 5]
    with pytest.raises(BodyError, match=r"missing packages \[2, 5\]"):
        merge_subpackages(kept)


def test_rejects_merging_packages_of_different_messages() -> None:
    a = [decode_frame(f) for f in encode_subpackages(0x0801, BODY, phone=PHONE, seq=9, max_body=1000)]
    b = [decode_frame(f) for f in encode_subpackages(0x0801, BODY, phone="013900000000", seq=9, max_body=1000)]
    with pytest.raises(BodyError, match="another message"):
        merge_subpackages([a[0], b[1], a[2]])


def test_asks_for_missing_packages_with_0x8003() -> None:
    request = ResendSubpackagesRequest(original_seq=0x00EB, package_ids=(7, 8, 16))
    for version in ("2013", "2019"):
        frame = encode_frame(0x8003, request, phone=PHONE, seq=1, version=version)
        assert decode_frame(frame).body == request


def test_rejects_a_0x8003_announcing_more_ids_than_it_holds() -> None:
    from protocols.jt808 import decode_body

    with pytest.raises(BodyError, match="announces 3 package ids"):
        decode_body(0x8003, bytes.fromhex("00eb03" "0007" "0008"), "2013")
