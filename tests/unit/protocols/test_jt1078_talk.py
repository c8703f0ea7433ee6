"""The talk socket's frame layout (protocols/jt1078/talk.py) and G.711 (g711.py)."""

from __future__ import annotations

import math
import struct

import pytest

from protocols.jt1078 import JT1078Error, Packet, encode_packet
from protocols.jt1078.g711 import alaw_decode, alaw_encode, ulaw_decode, ulaw_encode
from protocols.jt1078.talk import FRAME_SAMPLES, parse_talk_frame, seq_gap, talk_frame


def test_a_talk_frame_is_one_atomic_audio_packet_of_320_big_endian_samples() -> None:
    samples = [round(8000 * math.sin(2 * math.pi * 440 * n / 8000)) for n in range(FRAME_SAMPLES)]
    raw = talk_frame(samples, seq=65535, timestamp_ms=123, sim="013912345678", channel=1)
    assert raw[:4] == b"01cd" and raw[4] == 0x81 and raw[5] == 0x80 | 16  # M=1, PT 16 S16BE_MONO
    assert raw[6:8] == b"\xff\xff"  # the serial
    assert raw[15] == 0x30  # audio, atomic
    assert int.from_bytes(raw[24:26], "big") == 640 and len(raw) == 26 + 640
    assert raw[26:28] == struct.pack(">h", samples[0])
    assert parse_talk_frame(raw) == (65535, samples)


def test_the_serial_wraps_after_65535() -> None:
    assert seq_gap(65535, 0) == 0
    assert seq_gap(65534, 1) == 2
    assert seq_gap(5, 5) == -1 and seq_gap(5, 4) == -1
    assert talk_frame([0] * 320, seq=65536, timestamp_ms=0)[6:8] == b"\x00\x00"


def test_g711_talk_frames_are_accepted_too() -> None:
    samples = [1000, -1000, 0, 32000] * 80
    raw = encode_packet(Packet(6, 9, "013912345678", 1, 3, 0, alaw_encode(samples), 0))
    seq, decoded = parse_talk_frame(raw)
    assert seq == 9 and all(abs(a - b) <= max(16, abs(a) // 16) for a, b in zip(samples, decoded, strict=True))


@pytest.mark.parametrize("raw", [
    encode_packet(Packet(98, 1, "013912345678", 1, 0, 0, b"\x00" * 640, 0, 0, 0)),  # video
    encode_packet(Packet(16, 1, "013912345678", 1, 3, 1, b"\x00" * 640, 0)),  # a sub-package
    encode_packet(Packet(16, 1, "013912345678", 1, 3, 0, b"\x00" * 641, 0)),  # odd PCM
    encode_packet(Packet(19, 1, "013912345678", 1, 3, 0, b"\x00" * 64, 0)),  # AAC
    b"not a packet at all, just text",
])
def test_refuses_frames_that_are_not_talk_audio(raw: bytes) -> None:
    with pytest.raises(JT1078Error):
        parse_talk_frame(raw)


def test_g711_round_trips_every_code() -> None:
    assert alaw_encode(alaw_decode(bytes(range(256)))) == bytes(range(256))
    assert ulaw_encode(ulaw_decode(bytes(range(256)))) == bytes(c if c != 0x7F else 0xFF for c in range(256))


def test_g711_keeps_a_tone_within_its_quantisation_error() -> None:
    tone = [round(12000 * math.sin(2 * math.pi * 1000 * n / 8000)) for n in range(800)]
    for encode, decode in ((alaw_encode, alaw_decode), (ulaw_encode, ulaw_decode)):
        back = decode(encode(tone))
        err = math.sqrt(sum((a - b) ** 2 for a, b in zip(tone, back, strict=True)) / len(tone))
        assert err < 200  # SNR > 30 dB at this level
