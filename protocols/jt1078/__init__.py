"""Pure JT/T 1078 codec: the RTP-over-TCP media packet (2016 and 2019 layouts), a TCP stream reader,
frame reassembly, the payload-type table, G.711 and the talk socket's frame layout. Bytes in, typed
values out, and back; no sockets. See protocols/README.md."""

from protocols.jt1078.frames import Frame, FrameAssembler
from protocols.jt1078.packet import (
    ATOMIC,
    AUDIO,
    B_FRAME,
    FIRST,
    I_FRAME,
    LAST,
    MAGIC,
    MAX_PAYLOAD,
    MIDDLE,
    P_FRAME,
    TRANSPARENT,
    JT1078Error,
    Packet,
    decode_packet,
    encode_packet,
    header_size,
    packetize,
)
from protocols.jt1078.payload_types import PAYLOAD_TYPES, payload_name
from protocols.jt1078.reader import PacketReader

__all__ = [
    "ATOMIC", "AUDIO", "B_FRAME", "FIRST", "I_FRAME", "LAST", "MAGIC", "MAX_PAYLOAD", "MIDDLE", "PAYLOAD_TYPES",
    "P_FRAME", "TRANSPARENT", "Frame", "FrameAssembler", "JT1078Error", "Packet", "PacketReader", "decode_packet",
    "encode_packet", "header_size", "packetize", "payload_name",
]
