"""The public hex vectors (tests/unit/protocols/jt808_vectors.py) decode to the fields their sources state."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any

import pytest

from protocols import jt808
from protocols.jt808 import (
    AlarmAttachmentList,
    LocationReport,
    decode_body,
    decode_frame,
    encode_frame,
    to_json,
)
from tests.unit.protocols.jt808_vectors import BAD_VECTORS, BODY_VECTORS, VECTORS, Vector


def _at(tree: Any, path: str) -> Any:
    for part in path.split("."):
        tree = tree[int(part)] if isinstance(tree, list) else tree[part]
    return tree


def _variant(vector: Vector) -> AbstractContextManager[Any]:
    """Vectors of a regional variant (``expect["variant"]``) decode with that variant selected."""
    name = vector.expect.get("variant")
    return jt808.variant(name) if name else nullcontext()


def _check(vector: Vector) -> None:
    with _variant(vector):
        message = decode_frame(bytes.fromhex(vector.hex))
    data = to_json(message)
    for key, expected in vector.expect.items():
        if key == "variant":
            continue
        if key == "body_type":
            assert type(message.body).__name__ == expected
        elif key == "unknown_ids":
            assert [item["id"] for item in data["body"]["unknown_items"]] == expected
        elif key == "unknown_sizes":
            assert [len(item["hex"]) // 2 for item in data["body"]["unknown_items"]] == expected
        elif key == "item_count":
            assert len(data["body"]["items"]) == expected
        elif key == "extras_order":
            assert list(data["body"]["extras"]) == expected
        else:
            assert _at(data, key) == expected, key


def test_vector_table_has_at_least_40_frames_with_sources() -> None:
    assert len(VECTORS) >= 40
    assert all(v.source and v.expect for v in VECTORS)
    assert len({v.tag for v in VECTORS + BAD_VECTORS}) == len(VECTORS) + len(BAD_VECTORS)


@pytest.mark.parametrize("vector", VECTORS, ids=[v.tag for v in VECTORS])
def test_decodes_vector_to_the_fields_its_source_states(vector: Vector) -> None:
    _check(vector)


@pytest.mark.parametrize("vector", VECTORS, ids=[v.tag for v in VECTORS])
def test_keeps_the_frame_exactly_as_received_in_raw(vector: Vector) -> None:
    frame = bytes.fromhex(vector.hex)
    with _variant(vector):
        assert decode_frame(frame).raw == frame


@pytest.mark.parametrize("vector", BAD_VECTORS, ids=[v.tag for v in BAD_VECTORS])
def test_rejects_bad_vector_with_the_matching_error(vector: Any) -> None:
    error = getattr(jt808, vector.error)
    with pytest.raises(error):
        decode_frame(bytes.fromhex(vector.hex))


def test_rejects_libjt808_truncated_report_but_keeps_its_header_on_the_error() -> None:
    bad = next(v for v in BAD_VECTORS if v.tag == "PEER-YBZ-0200-TRUNC")
    with pytest.raises(jt808.LengthError) as caught:
        decode_frame(bytes.fromhex(bad.hex))
    assert caught.value.header is not None
    assert (caught.value.header.msg_id, caught.value.header.phone, caught.value.header.seq) == (0x0200, "013395279527", 2)


@pytest.mark.parametrize("tag,source,msg_id,body_hex", BODY_VECTORS, ids=[b[0] for b in BODY_VECTORS])
def test_decodes_body_only_vector(tag: str, source: str, msg_id: int, body_hex: str) -> None:
    body = decode_body(msg_id, bytes.fromhex(body_hex), "2013")
    if msg_id != 0x0200:
        assert isinstance(body, AlarmAttachmentList)
        assert (body.terminal_id, body.alarm_no.terminal_id, body.alarm_no.seq, body.alarm_uuid) == (
            "4444444", "4444444", 3, "1" * 32)
        assert [(f.name, f.size) for f in body.files] == [("filename", 9), ("filename1", 10)]
        return
    assert isinstance(body, LocationReport)
    assert (body.alarm_flags, body.status_flags, body.lat, body.lng) == (1, 2, 12.222222, 132.444444)
    assert body.unknown_items == ()
    (name,) = body.extras
    assert name == {"BODY-0x64": "adas_alarm", "BODY-0x65": "dsm_alarm"}[tag]
    assert body.extras[name]["alarm_no"] == {"terminal_id": "4444444", "time": "2019-12-10T10:31:00+00:00",
                                             "seq": 3, "attachments": 2}


def test_decodes_suibiao_alarm_items_with_the_jiangsu_extension_and_keeps_them_raw_without_it() -> None:
    vector = next(v for v in VECTORS if v.tag == "LOC-ADAS-DSM")
    report = decode_frame(bytes.fromhex(vector.hex)).body
    assert isinstance(report, LocationReport)
    assert report.extras["adas_alarm"]["alarm_id"] == 64
    with jt808.variant("guangdong2019"):  # a 16-byte alarm number is not a Guangdong one
        report = decode_frame(bytes.fromhex(vector.hex)).body
        assert isinstance(report, LocationReport)
        assert report.extras == {} and report.unknown_items[0].hex.startswith("000000400101010a0a")


@pytest.mark.parametrize(
    "vector",
    [v for v in VECTORS if v.expect.get("header.package_total") is None and not v.tag.startswith("QUIRK")],
    ids=lambda v: v.tag,
)
def test_reencodes_vector_to_the_same_decoded_message(vector: Vector) -> None:
    with _variant(vector):
        message = decode_frame(bytes.fromhex(vector.hex))
        h = message.header
        frame = encode_frame(
            h.msg_id, message.body, phone=h.phone, seq=h.seq, version=h.version,
            protocol_version=h.protocol_version or 1,
        )
        again = decode_frame(frame)
    # body_length may shrink: padding is normalised (QuecPython pads plates on the left)
    assert replace(again.header, body_length=h.body_length) == h
    assert again.body == message.body
