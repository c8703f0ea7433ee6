"""The JT/T 1078 RTP-over-TCP media packet (JT/T 1078-2016 table 19; 2019: a BCD[10] SIM).

| offset (2016) | field | wire |
|---|---|---|
| 0 | magic | DWORD 0x30316364 ("01cd") |
| 4 | V, P, X, CC | BYTE, 0x81: V 2, P 0, X 0, CC 1 |
| 5 | M, PT | BYTE: bit 7 marker (last packet of a frame), bits 0-6 payload type (``payload_types.py``) |
| 6 | seq | WORD, +1 per packet of the connection, wrapping at 65536 |
| 8 | SIM | BCD[6] (2019: BCD[10]): the terminal's phone number |
| 14 | channel | BYTE, logical channel |
| 15 | data type, sub-package | BYTE: high nibble 0 I-frame, 1 P, 2 B, 3 audio, 4 transparent; low nibble 0 atomic, 1 first, 2 last, 3 middle |
| 16 | timestamp | 8 bytes, ms (absent for transparent data) |
| 24 | last I-frame interval | WORD, ms (video only) |
| 26 | last frame interval | WORD, ms (video only) |
| 28 | body length | WORD (the standard caps it at 950) |
| 30 | body | BYTE[n] |

Header sizes (2016): video 30, audio 26, transparent 18; the 2019 layout adds 4. There is no version
flag and no checksum: ``reader.PacketReader`` tells the layouts apart by where the next magic is.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = 0x30316364
MAGIC_BYTES = MAGIC.to_bytes(4, "big")
LABEL1 = 0x81  # V=2, P=0, X=0, CC=1
MAX_PAYLOAD = 950  # the standard's cap on a packet body; terminals may send more (reader: max_body)

I_FRAME, P_FRAME, B_FRAME, AUDIO, TRANSPARENT = range(5)
ATOMIC, FIRST, LAST, MIDDLE = range(4)
DATA_TYPE_NAMES = {I_FRAME: "I", P_FRAME: "P", B_FRAME: "B", AUDIO: "audio", TRANSPARENT: "transparent"}
SIM_SIZES = {"2016": 6, "2019": 10}


class JT1078Error(ValueError):
    """A packet that cannot be read: bad magic, bad label, impossible length."""


@dataclass(frozen=True, slots=True)
class Packet:
    payload_type: int
    seq: int
    sim: str  # BCD digits, leading zeros kept (12 in 2016, 20 in 2019)
    channel: int
    data_type: int
    subpackage: int
    payload: bytes
    timestamp_ms: int | None = None  # None for transparent data
    last_i_interval_ms: int | None = None  # video only
    last_frame_interval_ms: int | None = None  # video only
    marker: bool = True
    version: str = "2016"

    @property
    def is_video(self) -> bool:
        return self.data_type <= B_FRAME


def header_size(data_type: int, version: str = "2016") -> int:
    """Bytes before the body for this data type and layout."""
    base = 18 + SIM_SIZES[version] - 6
    if data_type == TRANSPARENT:
        return base
    return base + 8 + (4 if data_type <= B_FRAME else 0)


_FIXED = struct.Struct(">IBBH")


def parse_header(buf: bytes | bytearray | memoryview, version: str, at: int = 0) -> tuple[int, int] | None:
    """(header size, body length) of the packet at ``buf[at:]`` in layout ``version``; None when the
    header is not complete yet. Raises JT1078Error when the bytes cannot be such a header."""
    sim_size = SIM_SIZES[version]
    label_at = at + 9 + sim_size
    if len(buf) < label_at + 1:
        return None
    if bytes(buf[at:at + 4]) != MAGIC_BYTES:
        raise JT1078Error(f"magic {bytes(buf[at:at + 4]).hex()} is not {MAGIC:08x}")
    if buf[at + 4] & 0xC0 != 0x80:
        raise JT1078Error(f"RTP version bits of 0x{buf[at + 4]:02x} are not 2")
    label3 = buf[label_at]
    data_type, sub = label3 >> 4, label3 & 0x0F
    if data_type > TRANSPARENT or sub > MIDDLE:
        raise JT1078Error(f"data type / sub-package byte 0x{label3:02x} is not valid")
    size = header_size(data_type, version)
    if len(buf) < at + size:
        return None
    return size, int.from_bytes(buf[at + size - 2:at + size], "big")


def decode_packet(raw: bytes, version: str = "2016") -> Packet:
    """One whole packet. Raises JT1078Error if it is short, long, or not a packet."""
    parsed = parse_header(raw, version)
    if parsed is None:
        raise JT1078Error(f"packet of {len(raw)} bytes is shorter than its header")
    size, body_length = parsed
    if len(raw) != size + body_length:
        raise JT1078Error(f"body length field says {body_length}, packet holds {len(raw) - size}")
    return _build(raw, 0, size, body_length, version)


def _build(buf: bytes | bytearray, at: int, size: int, body_length: int, version: str) -> Packet:
    sim_size = SIM_SIZES[version]
    _, _, m_pt, seq = _FIXED.unpack_from(buf, at)
    pos = at + 8
    sim = bytes(buf[pos:pos + sim_size]).hex()
    pos += sim_size
    channel = buf[pos]
    label3 = buf[pos + 1]
    pos += 2
    data_type = label3 >> 4
    timestamp = last_i = last_frame = None
    if data_type != TRANSPARENT:
        timestamp = int.from_bytes(buf[pos:pos + 8], "big")
        pos += 8
        if data_type <= B_FRAME:
            last_i = int.from_bytes(buf[pos:pos + 2], "big")
            last_frame = int.from_bytes(buf[pos + 2:pos + 4], "big")
            pos += 4
    body_at = at + size
    return Packet(m_pt & 0x7F, seq, sim, channel, data_type, label3 & 0x0F, bytes(buf[body_at:body_at + body_length]),
                  timestamp, last_i, last_frame, bool(m_pt & 0x80), version)


def encode_packet(packet: Packet) -> bytes:
    """Raises ValueError for a SIM that is not digits of the layout's size, a body over 65535 bytes or a
    field out of range."""
    sim_size = SIM_SIZES[packet.version]
    if not packet.sim.isdigit() or len(packet.sim) > sim_size * 2:
        raise ValueError(f"SIM {packet.sim!r} is not at most {sim_size * 2} digits")
    if len(packet.payload) > 0xFFFF:
        raise ValueError(f"packet body of {len(packet.payload)} bytes exceeds 65535")
    if not 0 <= packet.data_type <= TRANSPARENT or not 0 <= packet.subpackage <= MIDDLE:
        raise ValueError("data type must be 0-4 and sub-package 0-3")
    out = bytearray(_FIXED.pack(MAGIC, LABEL1, (0x80 if packet.marker else 0) | (packet.payload_type & 0x7F),
                                packet.seq & 0xFFFF))
    out += bytes.fromhex(packet.sim.zfill(sim_size * 2))
    out += bytes((packet.channel & 0xFF, packet.data_type << 4 | packet.subpackage))
    if packet.data_type != TRANSPARENT:
        out += (packet.timestamp_ms or 0).to_bytes(8, "big")
        if packet.data_type <= B_FRAME:
            out += struct.pack(">HH", packet.last_i_interval_ms or 0, packet.last_frame_interval_ms or 0)
    out += len(packet.payload).to_bytes(2, "big")
    out += packet.payload
    return bytes(out)


def packetize(payload_type: int, sim: str, channel: int, data_type: int, frame: bytes, *, seq: int,
              timestamp_ms: int, last_i_interval_ms: int = 0, last_frame_interval_ms: int = 0,
              max_payload: int = MAX_PAYLOAD, version: str = "2016") -> list[Packet]:
    """One frame as packets of at most ``max_payload`` body bytes (first / middle... / last, or one
    atomic), numbered from ``seq`` (wrapping). The marker bit is set on the last packet."""
    chunks = [frame[i:i + max_payload] for i in range(0, len(frame), max_payload)] or [b""]
    video = data_type <= B_FRAME
    packets = []
    for index, chunk in enumerate(chunks):
        if len(chunks) == 1:
            sub = ATOMIC
        elif index == 0:
            sub = FIRST
        elif index == len(chunks) - 1:
            sub = LAST
        else:
            sub = MIDDLE
        packets.append(Packet(payload_type, (seq + index) & 0xFFFF, sim, channel, data_type, sub, chunk,
                              None if data_type == TRANSPARENT else timestamp_ms,
                              last_i_interval_ms if video else None, last_frame_interval_ms if video else None,
                              index == len(chunks) - 1, version))
    return packets
