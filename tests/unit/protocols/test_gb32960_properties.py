"""Property tests: every typed block and data unit encodes back to the bytes it was decoded from (any
raw value, abnormal and invalid included), and whatever bytes arrive, decode_frame answers with a
message or a GB32960Error, nothing else."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocols.gb32960 import FrameReader, GB32960Error, Protocol, decode_frame, encode_frame
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages import BLOCKS, EngineDataStream, blocks_2016, blocks_2025, emission
from protocols.gb32960.messages.blocks_2016 import MOTOR_FIELDS_2016
from protocols.gb32960.messages.blocks_2025 import MOTOR_FIELDS_2025
from protocols.gb32960.messages.realtime import decode_blocks, encode_blocks
from protocols.gb32960.values import Field, to_raw, to_value
from tests.unit.protocols.gb32960_vectors import VECTORS

PROFILE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = [bytes.fromhex(h) for name, h in VECTORS.items() if not name.startswith("INFO-")]
MOTOR_BYTES_2016 = sum(f.width for f in MOTOR_FIELDS_2016)
MOTOR_BYTES_2025 = sum(f.width for f in MOTOR_FIELDS_2025)


def _count_list(draw: st.DrawFn, count_bytes: int, item_bytes: int, most: int) -> bytes:
    n = draw(st.integers(0, most))
    return n.to_bytes(count_bytes, "big") + draw(st.binary(min_size=n * item_bytes, max_size=n * item_bytes))


@st.composite
def block_bytes_2016(draw: st.DrawFn) -> bytes:
    """One 2016 block of any type, with random raw values in a valid layout."""
    kind = draw(st.sampled_from(sorted(BLOCKS[Protocol.GB32960_2016])))
    if kind in (0x01, 0x04, 0x05, 0x06):
        size = {0x01: 20, 0x04: 5, 0x05: 9, 0x06: 14}[kind]
        return bytes((kind,)) + draw(st.binary(min_size=size, max_size=size))
    if kind == 0x02:
        return b"\x02" + _count_list(draw, 1, MOTOR_BYTES_2016, 4)
    if kind == 0x03:
        return (b"\x03" + draw(st.binary(min_size=6, max_size=6)) + _count_list(draw, 2, 1, 8)
                + draw(st.binary(min_size=10, max_size=10)))
    if kind == 0x07:
        return b"\x07" + draw(st.binary(min_size=5, max_size=5)) + b"".join(_count_list(draw, 1, 4, 5) for _ in range(4))
    n = draw(st.integers(0, 3))
    if kind == 0x08:
        packs = b"".join(draw(st.binary(min_size=9, max_size=9)) + _count_list(draw, 1, 2, 120) for _ in range(n))
    else:
        packs = b"".join(draw(st.binary(min_size=1, max_size=1)) + _count_list(draw, 2, 1, 64) for _ in range(n))
    return bytes((kind, n)) + packs


@PROFILE
@given(st.lists(block_bytes_2016(), min_size=1, max_size=6))
def test_any_2016_blocks_encode_back_to_their_bytes(blocks: list[bytes]) -> None:
    data = b"".join(blocks)
    decoded = decode_blocks(data, 0, Protocol.GB32960_2016)
    assert len(decoded) == len(blocks)
    assert encode_blocks(decoded) == data


def _fixed(draw: st.DrawFn, size: int) -> bytes:
    return draw(st.binary(min_size=size, max_size=size))


def _codes(draw: st.DrawFn, width: int) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return bytes((draw(st.sampled_from([0xFE, 0xFF])),))  # abnormal / invalid count, no codes
    return _count_list(draw, 1, width, 4)


@st.composite
def block_bytes_2025(draw: st.DrawFn) -> bytes:
    """One block of the 2025 reading, of any type, with random raw values in a valid layout."""
    kind = draw(st.sampled_from(sorted(BLOCKS[Protocol.GB32960_2025])))
    fixed = {0x01: 18, 0x03: 12, 0x04: 2, 0x05: 10, 0x32: 18}
    if kind in fixed:
        body = _fixed(draw, fixed[kind])
    elif kind == 0x02:
        body = _count_list(draw, 1, MOTOR_BYTES_2025, 4)
    elif kind == 0x06:
        body = _fixed(draw, 5) + b"".join(_codes(draw, 4) for _ in range(4)) + _codes(draw, 2)
    elif kind == 0x07:
        n = draw(st.integers(0, 3))
        body = bytes((n,)) + b"".join(_fixed(draw, 5) + _count_list(draw, 2, 2, 100) for _ in range(n))
    elif kind == 0x08:
        n = draw(st.integers(0, 3))
        body = bytes((n,)) + b"".join(_fixed(draw, 1) + _count_list(draw, 2, 1, 40) for _ in range(n))
    elif kind == 0x30:
        n = draw(st.integers(0, 3))
        body = bytes((n,)) + b"".join(_fixed(draw, 10) + _count_list(draw, 2, 1, 8) for _ in range(n))
    elif kind == 0x31:
        body = _fixed(draw, 5) + _count_list(draw, 2, 2, 40) + _count_list(draw, 2, 1, 20)
    else:  # 0xFF signature
        body = _fixed(draw, 1) + _count_list(draw, 2, 1, 64) + _count_list(draw, 2, 1, 64)
    return bytes((kind,)) + body


@PROFILE
@given(st.lists(block_bytes_2025(), min_size=1, max_size=6))
def test_any_2025_blocks_encode_back_to_their_bytes(blocks: list[bytes]) -> None:
    data = b"".join(blocks)
    decoded = decode_blocks(data, 0, Protocol.GB32960_2025)
    assert len(decoded) == len(blocks)
    assert encode_blocks(decoded) == data


@PROFILE
@given(st.lists(block_bytes_2016(), min_size=1, max_size=4))
def test_2016_fault_lists_with_abnormal_counts_encode_back(blocks: list[bytes]) -> None:
    unit = b"\x07" + bytes(5) + b"\xfe\xff\x00\x00" + b"".join(blocks)
    assert encode_blocks(decode_blocks(unit, 0, Protocol.GB32960_2016)) == unit


@PROFILE
@given(st.binary(min_size=37, max_size=37))
def test_any_gb17691_data_stream_encodes_back_from_the_layout(raw: bytes) -> None:
    (stream,) = decode_blocks(b"\x02" + raw, 0, Protocol.GB17691)
    assert isinstance(stream, EngineDataStream) and stream.encode() == raw


@PROFILE
@given(st.lists(block_bytes_2016(), min_size=1, max_size=4),
       st.text(alphabet="ABCDEFGHJKLMNPRSTUVWXYZ0123456789", min_size=17, max_size=17), st.integers(0, 9))
def test_any_real_time_frame_round_trips_through_the_stream_reader(blocks: list[bytes], vin: str, chunk: int) -> None:
    unit = bytes((26, 1, 2, 3, 4, 5)) + b"".join(blocks)
    frame = encode_frame(0x02, unit, vin=vin)
    message = decode_frame(frame)
    assert message.header.vin == vin
    assert encode_frame(0x02, message.body, vin=vin) == frame
    size = chunk + 1
    reader = FrameReader()
    out: list[object] = []
    for i in range(0, len(frame), size):
        out += reader.feed(frame[i : i + size])
    assert out == [frame]


@st.composite
def mutated_frames(draw: st.DrawFn) -> bytes:
    frame = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(frame) - 1))
        frame[at] = draw(st.integers(0, 255))
    if draw(st.booleans()):  # keep the BCC right so the data unit itself is exercised
        frame[-1] = 0
        for byte in frame[2:-1]:
            frame[-1] ^= byte
    return bytes(frame[: draw(st.integers(0, len(frame)))] if draw(st.booleans()) else frame)


@PROFILE
@given(mutated_frames(), st.sampled_from([None, Protocol.GB17691]))
def test_any_bytes_give_a_message_or_a_codec_error(frame: bytes, protocol: Protocol | None) -> None:
    try:
        message = decode_frame(frame, protocol=protocol)
    except GB32960Error:
        return
    json.dumps(to_json(message))


def _scaled_fields() -> list[Field]:
    fields: set[Field] = set()
    for module in (blocks_2016, blocks_2025, emission):
        for value in vars(module).values():
            declared = value if isinstance(value, tuple) else getattr(value, "FIELDS", ())
            fields.update(f for f in declared if isinstance(f, Field) and f.scale != 1)
    return sorted(fields, key=lambda f: f.name)


@PROFILE
@given(st.sampled_from(_scaled_fields()), st.data())
def test_a_scaled_value_is_the_wire_number_rounded_to_the_scales_decimals(field: Field, data: st.DataObject) -> None:
    raw = data.draw(st.integers(0, field.top - 2))
    assert to_value(field, raw) == round(raw * field.scale + field.offset, field.decimals)
    assert to_raw(field, to_value(field, raw)) == raw
