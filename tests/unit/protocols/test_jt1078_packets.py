"""JT/T 1078 RTP packets (protocols/jt1078): the public vectors (RTP-1, RTP-2, RTP-3, RTP-REAL from
/work/shared/reference/jt808-vectors.md), both layouts, the TCP reader (chunking, layout detection,
garbage), and property tests."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.jt1078 import (
    AUDIO,
    I_FRAME,
    TRANSPARENT,
    JT1078Error,
    Packet,
    PacketReader,
    decode_packet,
    encode_packet,
    header_size,
    packetize,
)


class RtpVector(NamedTuple):
    tag: str
    source: str
    hex: str
    expect: dict[str, object]


_SMALLCHI = "SmallChi/JT1078@c4931a8 src/"
RTP_VECTORS = [
    RtpVector("RTP-1", _SMALLCHI + "JT1078.Protocol.Test/JT1078SerializerTest.cs:115",
              "3031636481E2108801123456781001100000016BB392CA7C02800028002E0000000161E1A2BF0098CFC0EE1E17283407788E"
              "39A403FDDBD1D546BFB063013F59AC34C97A021AB96A28A42C08",
              {"payload_type": 98, "marker": True, "seq": 0x1088, "sim": "011234567810", "channel": 1, "data_type": 1,
               "subpackage": 0, "timestamp_ms": 1562085870204, "last_i_interval_ms": 0x0280,
               "last_frame_interval_ms": 0x0028, "body_length": 46}),
    RtpVector("RTP-2", _SMALLCHI + "JT1078.Protocol.Test/JT1078SerializerTest.cs:157",
              "30316364818810BA01123456781001300000016BB392CF8D0078FE6D3BBEEF3E4E7DFFB76D5FF56FC7BE6FDF77DCDF8EED3B6F"
              "E33FB573DF6FECF8FDFFFEBEEFDBF76FDBBFFDD7BF6FFB6F6EF7FF5FDFBFD3F78FFDFAB2EF3EF75FFFF15D3FBFFB26BEEDC7B7"
              "7D3FAEE3FBEF1D3BAE93FEEF7FDF7793FEB6653BBDFAE68EEDF8F7EFDBB1FFC66F7CFFEFFDDB717FFF6EEE3E",
              {"payload_type": 8, "marker": True, "seq": 0x10BA, "data_type": AUDIO, "subpackage": 0,
               "timestamp_ms": 1562085871501, "last_i_interval_ms": None, "last_frame_interval_ms": None,
               "body_length": 120}),
    RtpVector("RTP-3", _SMALLCHI + "JT1078.Protocol.Test/JT1078SerializerTest.cs:188",
              "3031636481E210BB01123456781001100000016BB392CF2C07300028001D0000000161E462BF0032BE88823B946F41EE7C287D"
              "82A59C2949A84CBF",
              {"seq": 0x10BB, "data_type": 1, "timestamp_ms": 1562085871404, "last_i_interval_ms": 0x0730,
               "last_frame_interval_ms": 0x0028, "body_length": 29}),
    RtpVector("RTP-REAL", _SMALLCHI + "JT1078.Flv.Test/FlvEncoderTest.cs:212 (device capture)",
              "3031636481E2022D0019013050370210000001749179C79D05C80050000E0000000161E1E2FF000003006840",
              {"seq": 557, "sim": "001901305037", "channel": 2, "data_type": 1, "subpackage": 0,
               "timestamp_ms": 1600168511389, "last_i_interval_ms": 1480, "last_frame_interval_ms": 80,
               "body_length": 14}),
]


@pytest.mark.parametrize("vector", RTP_VECTORS, ids=[v.tag for v in RTP_VECTORS])
def test_decodes_the_public_rtp_vectors_to_their_stated_fields(vector: RtpVector) -> None:
    raw = bytes.fromhex(vector.hex)
    packet = decode_packet(raw)
    for key, expected in vector.expect.items():
        actual = len(packet.payload) if key == "body_length" else getattr(packet, key)
        assert actual == expected, key
    assert encode_packet(packet) == raw


def test_header_sizes_follow_the_data_type_and_layout() -> None:
    assert [header_size(t) for t in range(5)] == [30, 30, 30, 26, 18]
    assert [header_size(t, "2019") for t in range(5)] == [34, 34, 34, 30, 22]


def test_a_2019_packet_carries_a_20_digit_sim() -> None:
    packet = Packet(98, 7, "00000000013912345678", 3, I_FRAME, 0, b"\x00\x00\x00\x01\x65", 1, 2, 3, True, "2019")
    raw = encode_packet(packet)
    assert len(raw) == 34 + 5
    assert decode_packet(raw, "2019") == packet


def test_transparent_data_has_no_timestamp() -> None:
    packet = Packet(91, 1, "013912345678", 1, TRANSPARENT, 0, b"hello", None)
    assert decode_packet(encode_packet(packet)) == packet


def test_refuses_a_wrong_magic_and_a_wrong_length() -> None:
    raw = bytes.fromhex(RTP_VECTORS[0].hex)
    with pytest.raises(JT1078Error, match="magic"):
        decode_packet(b"\x7e" + raw[1:])
    with pytest.raises(JT1078Error, match="body length"):
        decode_packet(raw[:-1])


def _frames_of(version: str) -> list[Packet]:
    sim = "013912345678" if version == "2016" else "00000000013912345678"
    out = packetize(98, sim, 2, I_FRAME, bytes(range(256)) * 9, seq=65530, timestamp_ms=1000, version=version)
    out += packetize(6, sim, 2, AUDIO, b"\xd5" * 320, seq=65533, timestamp_ms=1040, version=version)
    out += packetize(98, sim, 2, 1, b"\x00\x00\x00\x01\x41" * 40, seq=65534, timestamp_ms=1040, version=version)
    return out


@pytest.mark.parametrize("version", ["2016", "2019"])
def test_reader_detects_the_layout_from_where_the_next_packet_starts(version: str) -> None:
    packets = _frames_of(version)
    stream = b"".join(encode_packet(p) for p in packets)
    reader = PacketReader()
    got = [item for i in range(0, len(stream), 7) for item in reader.feed(stream[i:i + 7])]
    assert got == packets
    assert reader.version == version


def test_reader_skips_garbage_and_goes_on() -> None:
    packets = _frames_of("2016")
    stream = b"garbage" + encode_packet(packets[0]) + b"\x30\x31junk" + b"".join(encode_packet(p) for p in packets[1:])
    got = PacketReader("2016").feed(stream)
    assert [g for g in got if isinstance(g, Packet)] == packets
    assert sum(isinstance(g, JT1078Error) for g in got) == 2


def test_reader_refuses_a_body_over_its_limit_without_buffering_it() -> None:
    big = encode_packet(Packet(98, 1, "013912345678", 1, I_FRAME, 0, bytes(5000), 1, 0, 0))
    reader = PacketReader("2016", max_body=4096)
    got = reader.feed(big)
    assert all(isinstance(g, JT1078Error) for g in got)


_packets = st.builds(
    Packet,
    payload_type=st.sampled_from([6, 7, 8, 19, 91, 98, 99]),
    seq=st.integers(0, 0xFFFF),
    sim=st.from_regex(r"[0-9]{12}", fullmatch=True),
    channel=st.integers(0, 255),
    data_type=st.sampled_from([0, 1, 2, 3]),
    subpackage=st.integers(0, 3),
    payload=st.binary(max_size=950),
    timestamp_ms=st.integers(0, 2**63 - 1),
    last_i_interval_ms=st.integers(0, 0xFFFF),
    last_frame_interval_ms=st.integers(0, 0xFFFF),
    marker=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_packets, min_size=1, max_size=6), st.integers(1, 200))
def test_any_packets_survive_any_tcp_chunking(packets: list[Packet], chunk: int) -> None:
    packets = [p if p.data_type <= 2 else Packet(p.payload_type, p.seq, p.sim, p.channel, p.data_type, p.subpackage,
                                                  p.payload, p.timestamp_ms, None, None, p.marker) for p in packets]
    stream = b"".join(encode_packet(p) for p in packets)
    reader = PacketReader("2016")
    got = [item for i in range(0, len(stream), chunk) for item in reader.feed(stream[i:i + chunk])]
    assert got == packets


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_the_reader_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    reader = PacketReader()
    for i in range(0, len(data), 13):
        for item in reader.feed(data[i:i + 13]):
            assert isinstance(item, Packet | JT1078Error)
