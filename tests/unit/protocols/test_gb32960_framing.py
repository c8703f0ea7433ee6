"""GB/T 32960 / GB 17691 framing: header layouts, BCC, data length, and the stream reader that splits
frames out of TCP chunks, refusing garbage and oversize frames with typed errors and bounded memory."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols.gb32960 import (
    BodyError,
    ChecksumError,
    FrameReader,
    FramingError,
    GB32960Error,
    LengthError,
    Protocol,
    decode_frame,
    encode_frame,
)
from protocols.gb32960.framing import bcc
from protocols.gb32960.header import parse_header
from protocols.gb32960.messages import Heartbeat
from tests.unit.protocols.gb32960_vectors import VECTORS

LOGIN = bytes.fromhex(VECTORS["LOGIN"])
HEARTBEAT = bytes.fromhex(VECTORS["HEARTBEAT"])
LOGOUT = bytes.fromhex(VECTORS["LOGOUT"])
RT_2025 = bytes.fromhex(VECTORS["RT-2025-SAMPLE"])


def test_bcc_is_the_xor_from_the_command_byte_to_the_end_of_the_data_unit() -> None:
    assert bcc(HEARTBEAT[2:-1]) == HEARTBEAT[-1] == 0xC9


@given(st.binary(max_size=2048))
def test_bcc_is_the_xor_of_every_byte_whatever_the_length(data: bytes) -> None:
    expected = 0
    for byte in data:
        expected ^= byte
    assert bcc(data) == bcc(bytearray(data)) == bcc(memoryview(data)) == expected


def test_a_flipped_byte_in_the_data_unit_is_a_checksum_error_with_the_header() -> None:
    bad = bytearray(LOGOUT)
    bad[25] ^= 0x01
    with pytest.raises(ChecksumError) as caught:
        decode_frame(bytes(bad))
    assert caught.value.header is not None and caught.value.header.command == 0x04


def test_a_truncated_frame_is_a_length_error_naming_the_announced_size() -> None:
    with pytest.raises(LengthError, match="announces a 67-byte frame, got 60"):
        decode_frame(LOGIN[:60])


def test_a_frame_shorter_than_the_header_is_a_length_error() -> None:
    with pytest.raises(LengthError, match="shorter than the 24-byte header"):
        decode_frame(HEARTBEAT[:10])


def test_bytes_not_starting_with_hash_or_dollar_are_a_framing_error() -> None:
    with pytest.raises(FramingError, match="## or \\$\\$"):
        decode_frame(b"\x7e" + HEARTBEAT[1:])


def test_a_data_unit_cut_short_with_a_matching_bcc_is_a_body_error() -> None:
    # a login data unit that stops inside the ICCID, re-framed so length and BCC are right
    frame = encode_frame(0x01, LOGIN[24:40], vin="123456789")
    with pytest.raises(BodyError, match="ICCID needs 20 bytes") as caught:
        decode_frame(frame)
    assert caught.value.header is not None and caught.value.header.vin == "123456789"


def test_dollar_start_is_the_2025_edition_whatever_protocol_is_asked() -> None:
    assert parse_header(RT_2025, Protocol.GB17691).protocol is Protocol.GB32960_2025
    assert encode_frame(0x07, Heartbeat(), vin="V", protocol=Protocol.GB32960_2025)[:2] == b"$$"


def test_gb17691_header_puts_the_vin_before_the_software_version() -> None:
    frame = encode_frame(0x07, b"", vin="LZZ1234567890ABCD", protocol=Protocol.GB17691, software_version=3)
    assert frame[3:20] == b"LZZ1234567890ABCD" and frame[20] == 3
    header = decode_frame(frame, protocol=Protocol.GB17691).header
    assert (header.vin, header.software_version, header.response) == ("LZZ1234567890ABCD", 3, None)
    # read as 32960 the same bytes give another VIN: the port, not the frame, decides
    assert parse_header(frame).vin != "LZZ1234567890ABCD"


def _feed_all(reader: FrameReader, chunks: list[bytes]) -> list[bytes | GB32960Error]:
    out: list[bytes | GB32960Error] = []
    for chunk in chunks:
        out += reader.feed(chunk)
    return out


@pytest.mark.parametrize("size", [1, 2, 3, 7, 24, 25, 64])
def test_reader_splits_frames_out_of_any_chunking(size: int) -> None:
    stream = LOGIN + HEARTBEAT + RT_2025 + LOGOUT
    items = _feed_all(FrameReader(), [stream[i : i + size] for i in range(0, len(stream), size)])
    assert items == [LOGIN, HEARTBEAT, RT_2025, LOGOUT]


def test_reader_reports_garbage_once_then_resynchronises() -> None:
    reader = FrameReader()
    items = _feed_all(reader, [b"GET / HTTP/1.1\r\n", b"\r\n" + HEARTBEAT[:5], HEARTBEAT[5:]])
    assert len(items) == 2 and isinstance(items[0], FramingError) and "18 bytes" in str(items[0])
    assert items[1] == HEARTBEAT


def test_reader_refuses_an_oversize_frame_and_finds_the_next_one() -> None:
    reader = FrameReader(max_frame_bytes=64)
    items = reader.feed(LOGIN[:24] + HEARTBEAT)  # the login header announces 67 bytes > 64
    assert isinstance(items[0], LengthError) and "67 bytes exceeds 64" in str(items[0])
    assert items[-1] == HEARTBEAT
    assert reader.buffered == 0


def test_reader_memory_stays_bounded_on_endless_garbage_and_on_a_slow_frame() -> None:
    reader = FrameReader(max_frame_bytes=512)
    for _ in range(100):
        assert reader.feed(b"\x00" * 1000) == []
        assert reader.buffered <= 1
    partial = LOGIN[:-1]
    assert reader.feed(partial)[0].__class__ is FramingError
    assert reader.buffered == len(partial) <= 512
    assert reader.feed(LOGIN[-1:]) == [LOGIN]


def test_reader_keeps_a_start_split_between_chunks() -> None:
    reader = FrameReader()
    assert reader.feed(b"xx#") == []
    assert reader.feed(HEARTBEAT[1:])[-1] == HEARTBEAT
