"""Property tests: whatever bytes arrive, the codec answers with a message or a JT808Error, nothing else."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocols.jt808 import FrameReader, JT808Error, LocationReport, decode_frame, encode_frame, to_json
from tests.unit.protocols.jt808_vectors import BAD_VECTORS, VECTORS

SEEDS = [bytes.fromhex(v.hex) for v in VECTORS + BAD_VECTORS]
PROFILE = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decode_fully(frame: bytes) -> None:
    """decode_frame, then touch everything lazy: only JT808Error may escape."""
    try:
        message = decode_frame(frame)
    except JT808Error:
        return
    json.dumps(to_json(message))


@st.composite
def mutated_frames(draw: st.DrawFn) -> bytes:
    frame = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]))
        if not frame:
            break
        i = draw(st.integers(0, len(frame) - 1))
        if kind == "flip":
            frame[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            frame[i] = draw(st.integers(0, 255))
        elif kind == "insert":
            frame.insert(i, draw(st.integers(0, 255)))
        elif kind == "delete":
            del frame[i]
        else:
            del frame[i:]
    return bytes(frame)


@PROFILE
@given(st.binary(max_size=300))
def test_random_bytes_never_raise_anything_but_jt808error(data: bytes) -> None:
    _decode_fully(data)
    _decode_fully(b"\x7e" + data + b"\x7e")


@PROFILE
@given(mutated_frames())
def test_mutated_valid_frames_never_raise_anything_but_jt808error(frame: bytes) -> None:
    _decode_fully(frame)


@PROFILE
@given(st.binary(max_size=300), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_frames_with_a_correct_checksum_never_raise_anything_but_jt808error(body: bytes, msg: int, attr: int) -> None:
    # A correct checksum and length get past framing: this exercises every body decoder.
    msg_id = [0x0001, 0x0100, 0x0102, 0x0104, 0x0200, 0x0704, 0x8001, 0x8003, 0x8100, 0x8103][msg % 10]
    for version in ("2013", "2019"):
        _decode_fully(encode_frame(msg_id, body[:1023], phone="013912345678", seq=attr & 0xFFFF, version=version))


@PROFILE
@given(st.lists(st.binary(max_size=80), max_size=20), st.lists(st.integers(1, 64), min_size=1, max_size=10))
def test_reader_never_raises_and_returns_only_frames_or_errors(pieces: list[bytes], cuts: list[int]) -> None:
    stream = b"\x7e".join(pieces)
    reader = FrameReader(max_frame_bytes=64)
    pos = i = 0
    while pos < len(stream):
        size = cuts[i % len(cuts)]
        for item in reader.feed(stream[pos : pos + size]):
            assert isinstance(item, JT808Error) or (item[:1] == b"\x7e" and item[-1:] == b"\x7e" and len(item) <= 64)
        assert reader.buffered <= 64
        pos += size
        i += 1


@PROFILE
@given(st.lists(st.sampled_from(SEEDS), max_size=8), st.lists(st.integers(1, 200), min_size=1, max_size=10))
def test_reader_output_does_not_depend_on_chunking(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(frames)
    whole = FrameReader().feed(stream)
    reader = FrameReader()
    chunked: list[bytes | JT808Error] = []
    pos = i = 0
    while pos < len(stream):
        chunked += reader.feed(stream[pos : pos + cuts[i % len(cuts)]])
        pos += cuts[i % len(cuts)]
        i += 1
    assert whole == frames
    assert chunked == frames


@PROFILE
@given(
    st.integers(-90_000_000, 90_000_000),
    st.integers(-180_000_000, 180_000_000),
    st.integers(-32768, 32767),
    st.integers(0, 65535),
    st.integers(0, 359),
    st.integers(0, 99 * 365 * 86400),
    st.dictionaries(st.sampled_from(["mileage_km", "rssi", "gnss_satellites", "io_status"]), st.integers(0, 255)),
)
def test_location_reports_round_trip(lat: int, lng: int, alt: int, speed: int, direction: int, seconds: int,
                                     extras: dict[str, int]) -> None:
    fix_at = datetime(2000, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)
    report = LocationReport(0, 0, lat / 1e6, lng / 1e6, alt, speed / 10, direction, fix_at, extras)
    decoded = decode_frame(encode_frame(0x0200, report, phone="1", seq=1)).body
    assert isinstance(decoded, LocationReport)
    assert (decoded.lat, decoded.lng, decoded.altitude_m, decoded.speed_kmh) == (lat / 1e6, lng / 1e6, alt, speed / 10)
    assert decoded.fix_at == fix_at
    assert decoded.extras == extras
