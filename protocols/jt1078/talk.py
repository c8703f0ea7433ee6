"""The talk socket's frames (console-spec §7): the browser sends its microphone to the server as
binary WebSocket messages, each ONE JT/T 1078 packet (2016 layout, ``packet.py``):

| field | value |
|---|---|
| magic, V/P/X/CC | 30 31 63 64, 0x81 |
| M, PT | 0x80 \\| 16 (S16BE_MONO, 16-bit signed big-endian PCM); 6 (G.711A) and 7 (G.711U) are accepted too |
| seq | +1 per frame, 65535 is followed by 0 |
| SIM, channel | the device's 12 digits and the talk channel (the server uses its own and ignores these) |
| data type | 0x30 (audio, atomic) |
| timestamp | ms since the session started (or the epoch) |
| body length, body | 640 bytes: 320 samples at 8 kHz, mono (40 ms); G.711: 320 bytes |

``talk_frame`` builds one (what the console does), ``parse_talk_frame`` reads one into PCM samples
and its serial, raising JT1078Error for anything else. The server sends the terminal G.711A
(``g711.alaw_encode``) in audio packets on the terminal's own talk connection.
"""

from __future__ import annotations

import struct

from protocols.jt1078.g711 import alaw_decode, ulaw_decode
from protocols.jt1078.packet import ATOMIC, AUDIO, JT1078Error, Packet, decode_packet, encode_packet
from protocols.jt1078.payload_types import G711A, G711U, S16BE_MONO

SAMPLE_RATE_HZ = 8000
FRAME_SAMPLES = 320
FRAME_MS = FRAME_SAMPLES * 1000 // SAMPLE_RATE_HZ  # 40
PCM_FRAME_BYTES = FRAME_SAMPLES * 2
MAX_SAMPLES = 4 * FRAME_SAMPLES  # a bigger frame is refused


def talk_frame(samples: list[int], seq: int, timestamp_ms: int, *, sim: str = "000000000000",
               channel: int = 0) -> bytes:
    """One browser frame (PT 16, S16BE) of ``samples`` (normally 320)."""
    body = struct.pack(f">{len(samples)}h", *samples)
    return encode_packet(Packet(S16BE_MONO, seq & 0xFFFF, sim, channel, AUDIO, ATOMIC, body, timestamp_ms))


def parse_talk_frame(raw: bytes) -> tuple[int, list[int]]:
    """(seq, PCM samples) of one browser frame. Raises JT1078Error for a frame that is not an atomic
    audio packet of a supported type and size."""
    packet = decode_packet(raw)
    if packet.data_type != AUDIO or packet.subpackage != ATOMIC:
        raise JT1078Error("a talk frame is one atomic audio packet (data type 3, sub-package 0)")
    body = packet.payload
    if packet.payload_type == S16BE_MONO:
        if len(body) % 2 or not 0 < len(body) <= 2 * MAX_SAMPLES:
            raise JT1078Error(f"S16BE talk frame of {len(body)} bytes (expected {PCM_FRAME_BYTES})")
        return packet.seq, list(struct.unpack(f">{len(body) // 2}h", body))
    if packet.payload_type in (G711A, G711U):
        if not 0 < len(body) <= MAX_SAMPLES:
            raise JT1078Error(f"G.711 talk frame of {len(body)} bytes (expected {FRAME_SAMPLES})")
        return packet.seq, alaw_decode(body) if packet.payload_type == G711A else ulaw_decode(body)
    raise JT1078Error(f"talk frames are PT 16 (S16BE mono), 6 or 7, not {packet.payload_type}")


def seq_gap(previous: int | None, seq: int) -> int:
    """Frames missing between ``previous`` and ``seq`` (serials wrap after 65535: 65535 -> 0 is no gap);
    -1 for a repeated or late frame."""
    if previous is None:
        return 0
    step = (seq - previous) & 0xFFFF
    return -1 if step == 0 or step >= 0x8000 else step - 1
