"""Re-decoding the message log: what changed, the CLI's arguments (no database)."""

from __future__ import annotations

import click
import pytest

from protocols.jt808 import encode_frame
from warehouse.message_log import _msg_id, _when, changed_paths, decode_raw, json_ready, split_frames


def test_changed_paths_name_the_differing_keys() -> None:
    old = {"header": {"msg_id": 512, "seq": 1}, "body": {"lat": 39.9, "extras": {"mileage_km": 1.0}}}
    new = {"header": {"msg_id": 512, "seq": 1}, "body": {"lat": 39.9, "extras": {"mileage_km": 1.5, "fuel_l": 3}}}
    assert changed_paths(old, new) == ["body.extras.fuel_l", "body.extras.mileage_km"]
    assert changed_paths(old, old) == []
    assert changed_paths({"error": "x"}, new) == ["body", "error", "header"]
    assert changed_paths(1, 2) == ["(whole)"]


def test_split_frames_and_decode_raw() -> None:
    a = encode_frame(0x8201, b"", phone="13800000001", seq=1)
    b = encode_frame(0x8201, b"", phone="13800000001", seq=2)
    assert split_frames(a + b) == [a, b]
    decoded = decode_raw(a.hex())
    assert decoded["header"]["msg_id"] == 0x8201 and decoded["header"]["seq"] == 1
    assert decode_raw("zz") == {"error": "not hex"}
    assert decode_raw("0102") == {"error": "FramingError: no frame"}


def test_json_ready_is_what_jsonb_gives_back() -> None:
    assert json_ready({"t": (1, 2), "s": "a\x00"}) == {"t": [1, 2], "s": "a\ufffd"}


def test_cli_arguments() -> None:
    assert _msg_id("0x0200") == 512 and _msg_id("512") == 512 and _msg_id(None) is None
    with pytest.raises(click.BadParameter):
        _msg_id("location")
    when = _when("2026-05-01T08:00:00", "--since")
    assert when is not None and when.utcoffset() is not None and when.hour == 8
    with pytest.raises(click.BadParameter):
        _when("yesterday", "--since")
