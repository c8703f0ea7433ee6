"""Byte-level framing: delimiters, escaping both ways, checksum, header fields, and FrameReader."""

from __future__ import annotations

import functools
import operator
import os

import pytest

from protocols.jt808 import (
    ChecksumError,
    EncryptedBodyError,
    FrameReader,
    FramingError,
    Heartbeat,
    JT808Error,
    LengthError,
    RawBody,
    UnknownVersionError,
    decode_frame,
    encode_frame,
)
from protocols.jt808.framing import escape, frame_content, unescape, xor_checksum

PHONE = "013912345678"


def _heartbeat(seq: int = 1) -> bytes:
    return encode_frame(0x0002, b"", phone=PHONE, seq=seq)


# --- escaping ---------------------------------------------------------------------------------


def test_escapes_a_checksum_of_7e_as_7d_02() -> None:  # ESC-1, byte for byte
    assert encode_frame(0x0002, Heartbeat(), phone="040021679287", seq=43).hex().upper() == (
        "7E00020000040021679287002B7D027E"
    )


def test_escapes_a_checksum_of_7d_as_7d_01() -> None:  # ESC-2, byte for byte
    assert encode_frame(0x0002, b"", phone="000000000678", seq=1).hex().upper() == "7E0002000000000000067800017D017E"


def test_escapes_a_serial_number_of_007e_in_the_header() -> None:
    frame = encode_frame(0x0002, b"", phone=PHONE, seq=0x007E)
    assert frame[11:14] == b"\x00\x7d\x02"
    assert decode_frame(frame).header.seq == 0x7E


def test_escapes_7e_and_7d_in_the_body_and_restores_them() -> None:
    body = bytes([0x7E, 0x7D, 0x7D, 0x02, 0x7D, 0x01, 0x7E, 0x7E])
    frame = encode_frame(0x0F00, body, phone=PHONE, seq=2)
    assert b"\x7e" not in frame[1:-1]
    assert frame.count(b"\x7d\x02") == 3 and frame.count(b"\x7d\x01") >= 3
    assert decode_frame(frame).body == RawBody(body.hex())


@pytest.mark.parametrize(
    "raw",
    [b"\x7d\x02", b"\x7d\x01", b"\x7e\x7d", b"\x7d\x7e", b"\x7d\x7d\x02", b"\x7d", b"\x7e", b"", b"\x00\x7d\x01\x7e"],
)
def test_unescape_inverts_escape(raw: bytes) -> None:
    escaped = escape(raw)
    assert b"\x7e" not in escaped
    assert unescape(escaped) == raw


def test_escapes_7d_before_7e_so_nothing_is_escaped_twice() -> None:
    assert escape(b"\x7e") == b"\x7d\x02"
    assert escape(b"\x7d") == b"\x7d\x01"
    assert escape(b"\x7d\x02") == b"\x7d\x01\x02"


def test_accepts_a_bare_7d_checksum_as_go_jt808_does() -> None:  # QUIRK-7D
    message = decode_frame(bytes.fromhex("7E0002000000000000067900007D7E"))
    assert message.header.phone == "000000000679"


# --- checksum ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 2, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1045, 2100])
def test_xor_checksum_equals_the_byte_by_byte_xor(size: int) -> None:
    data = os.urandom(size)
    assert xor_checksum(data) == functools.reduce(operator.xor, data, 0)


@pytest.mark.parametrize("body_size", [0, 50, 113, 114, 115, 200, 1023])
def test_decodes_frames_either_side_of_the_checksum_fast_path(body_size: int) -> None:
    body = bytes(range(256)) * 4
    frame = encode_frame(0x0F01, body[:body_size], phone=PHONE, seq=9)
    assert decode_frame(frame).body == RawBody(body[:body_size].hex())


def test_rejects_a_wrong_checksum_naming_both_values() -> None:
    frame = bytearray(_heartbeat())
    frame[-2] ^= 0x01
    with pytest.raises(ChecksumError, match="does not match computed"):
        decode_frame(bytes(frame))


def test_rejects_a_single_flipped_body_bit() -> None:
    frame = bytearray(encode_frame(0x0F02, b"\x01\x02\x03", phone=PHONE, seq=3))
    frame[14] ^= 0x40
    with pytest.raises(ChecksumError):
        decode_frame(bytes(frame))


# --- delimiters, lengths, flags ---------------------------------------------------------------


@pytest.mark.parametrize("frame", [b"", b"\x7e", _heartbeat()[1:], _heartbeat()[:-1], b"\x00" * 20])
def test_rejects_frames_without_both_delimiters(frame: bytes) -> None:
    with pytest.raises(FramingError):
        decode_frame(frame)


def test_rejects_a_frame_shorter_than_a_header() -> None:  # NEG-SHORT
    with pytest.raises(LengthError, match="shorter than a header"):
        decode_frame(bytes.fromhex("7E0100002C0123454A7E"))


def test_rejects_a_body_length_field_that_disagrees_with_the_bytes() -> None:
    content = bytes.fromhex("00020003") + bytes.fromhex(PHONE) + b"\x00\x01" + b"\xaa\xbb"
    with pytest.raises(LengthError, match="says 3 bytes, frame holds 2") as caught:
        decode_frame(frame_content(content))
    assert caught.value.header is not None and caught.value.header.phone == PHONE


@pytest.mark.parametrize("bits", [0b001, 0b010, 0b100])
def test_rejects_encrypted_bodies(bits: int) -> None:
    attr = (bits << 10) | 2
    content = (0x0200).to_bytes(2, "big") + attr.to_bytes(2, "big") + bytes.fromhex(PHONE) + b"\x00\x05\x12\x34"
    with pytest.raises(EncryptedBodyError, match="encrypted body") as caught:
        decode_frame(frame_content(content))
    assert caught.value.header is not None and caught.value.header.encrypted


def test_reads_the_2019_flag_on_a_2013_shaped_header_as_2013() -> None:  # QUIRK-VER
    content = bytes.fromhex("0002" + "4000") + bytes.fromhex(PHONE) + b"\x00\x07"
    message = decode_frame(frame_content(content))
    assert (message.header.version, message.header.phone, message.header.seq) == ("2013", PHONE, 7)


def test_accepts_bytearray_and_memoryview_frames() -> None:
    frame = _heartbeat()
    assert decode_frame(bytearray(frame)).header.seq == 1  # type: ignore[arg-type]
    assert decode_frame(memoryview(frame)).raw == frame  # type: ignore[arg-type]


# --- header fields ----------------------------------------------------------------------------


def test_writes_the_2019_header_byte_for_byte() -> None:  # HB-2019
    frame = encode_frame(0x0002, b"", phone="12345678901234567890", seq=65535, version="2019")
    assert frame.hex().upper() == "7E000240000112345678901234567890FFFF437E"


def test_writes_the_2013_header_byte_for_byte() -> None:  # HB-2013
    assert encode_frame(0x0002, b"", phone="123456782013", seq=1).hex().upper() == "7E000200001234567820130001387E"


def test_pads_short_phones_with_leading_zeros() -> None:
    header = decode_frame(encode_frame(0x0002, b"", phone="13912345678", seq=1)).header
    assert header.phone == "013912345678"
    header = decode_frame(encode_frame(0x0002, b"", phone="13912345678", seq=1, version="2019")).header
    assert header.phone == "00000000013912345678"


def test_writes_the_protocol_version_byte_only_in_2019_headers() -> None:
    frame = encode_frame(0x0002, b"", phone=PHONE, seq=1, version="2019", protocol_version=3)
    assert frame[5] == 3
    assert decode_frame(frame).header.protocol_version == 3
    assert decode_frame(_heartbeat()).header.protocol_version is None


def test_wraps_the_serial_number_at_65536() -> None:
    assert decode_frame(encode_frame(0x0002, b"", phone=PHONE, seq=65536 + 5)).header.seq == 5


@pytest.mark.parametrize("phone", ["", "12ab", "1234567890123", "-1"])
def test_rejects_phones_that_are_not_up_to_12_digits(phone: str) -> None:
    with pytest.raises(ValueError):
        encode_frame(0x0002, b"", phone=phone, seq=1)


def test_rejects_an_unknown_protocol_version() -> None:
    with pytest.raises(UnknownVersionError):
        encode_frame(0x0002, b"", phone=PHONE, seq=1, version="2015")


def test_rejects_a_body_over_1023_bytes_pointing_at_subpackages() -> None:
    with pytest.raises(LengthError, match="encode_subpackages"):
        encode_frame(0x0F03, bytes(1024), phone=PHONE, seq=1)


# --- FrameReader ------------------------------------------------------------------------------


def _stream(count: int = 5) -> tuple[bytes, list[bytes]]:
    frames = [encode_frame(0x0F04, bytes([i, 0x7E, 0x7D]), phone=PHONE, seq=i) for i in range(count)]
    return b"".join(frames), frames


def test_reader_finds_every_frame_across_one_byte_chunks() -> None:
    stream, frames = _stream()
    reader = FrameReader()
    out: list[bytes | JT808Error] = []
    for i in range(len(stream)):
        out += reader.feed(stream[i : i + 1])
    assert out == frames


@pytest.mark.parametrize("chunk", [2, 3, 7, 16, 1460])
def test_reader_finds_every_frame_across_any_chunking(chunk: int) -> None:
    stream, frames = _stream(20)
    reader = FrameReader()
    out: list[bytes | JT808Error] = []
    for i in range(0, len(stream), chunk):
        out += reader.feed(stream[i : i + chunk])
    assert out == frames
    assert reader.buffered == 0


def test_reader_returns_garbage_before_the_first_7e_as_an_error_instance() -> None:
    frame = _heartbeat()
    out = FrameReader().feed(b"GET / HTTP/1.1\r\n" + frame)
    assert isinstance(out[0], FramingError) and "16 bytes" in str(out[0])
    assert out[1:] == [frame]


def test_reader_reads_frames_sharing_one_delimiter() -> None:
    a, b = _heartbeat(1), _heartbeat(2)
    out = FrameReader().feed(a + b[1:])
    assert out == [a, b]


def test_reader_hands_garbage_between_frames_to_decode_frame_and_resynchronises() -> None:
    a, b = _heartbeat(1), _heartbeat(2)
    out = FrameReader().feed(a + b"\x01\x02\x03" + b)
    assert out[0] == a and out[-1] == b
    with pytest.raises(JT808Error):
        decode_frame(out[1])  # type: ignore[arg-type]


def test_reader_reports_an_oversize_frame_and_resynchronises_on_the_next_7e() -> None:
    reader = FrameReader(max_frame_bytes=64)
    good = _heartbeat(3)
    out = reader.feed(b"\x7e" + bytes(100))
    assert len(out) == 1 and isinstance(out[0], LengthError)
    assert reader.buffered <= 64
    out = reader.feed(bytes(50) + b"\x7e" + good)
    assert out == [good]


def test_reader_reports_an_oversize_frame_arriving_in_one_chunk() -> None:
    good = _heartbeat(4)
    out = FrameReader(max_frame_bytes=32).feed(b"\x7e" + bytes(40) + b"\x7e" + good)
    assert isinstance(out[0], LengthError) and out[1:] == [good]


def test_reader_memory_stays_bounded_under_endless_garbage() -> None:
    reader = FrameReader(max_frame_bytes=128)
    errors = []
    for _ in range(100):
        errors += reader.feed(bytes(100))
        assert reader.buffered == 0
    assert errors and all(isinstance(e, FramingError) for e in errors)


def test_reader_never_raises_for_a_delimiter_storm() -> None:
    assert FrameReader().feed(b"\x7e" * 1000) == []
