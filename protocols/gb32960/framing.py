"""Byte-level framing shared by GB/T 32960.3 (2016 ``##``, 2025 ``$$``) and GB 17691-2018 annex Q /
HJ 1239-2021 (``##``): start bytes, a 22-byte header whose last two bytes are the data unit's length,
the data unit, and one BCC byte (XOR of every byte from the command byte to the end of the data unit,
GB/T 32960.3-2016 §6.2). There is no escaping: a frame's size is known once its header is read.
"""

from __future__ import annotations

from protocols.gb32960.errors import FramingError, GB32960Error, LengthError

START_2016 = b"##"
START_2025 = b"$$"
STARTS = (START_2016, START_2025)
HEADER_BYTES = 24  # start 2 + command unit / VIN / flags 20 + data length 2
BCC_BYTES = 1
# The standard's data length is a WORD; real frames with a 108-cell pack are about 360 bytes. A
# gateway bounds each connection's memory with this (it may lower it).
MAX_FRAME_BYTES = 8192


def bcc(data: bytes | bytearray | memoryview) -> int:
    """XOR of all bytes (the BCC over command byte ... end of data unit). The bytes are read as one integer and
    folded in halves, so a 300-byte frame costs a few big-integer operations instead of 300 XORs in Python."""
    value, width = int.from_bytes(data, "little"), len(data)
    while width > 1:
        half = (width + 1) // 2
        value = (value >> (8 * half)) ^ (value & ((1 << (8 * half)) - 1))
        width = half
    return value


def frame_size(header: bytes | bytearray) -> int:
    """Total frame bytes announced by a complete header."""
    return HEADER_BYTES + int.from_bytes(header[22:24], "big") + BCC_BYTES


class FrameReader:
    """Streaming de-framer for one TCP connection: feed it chunks, get whole frames back.

    ``feed`` returns, in stream order, each complete frame (start bytes to BCC, ready for
    ``decode_frame``) and, for bytes that cannot be a frame, a GB32960Error instance (never raised):
    FramingError for bytes before a start (``##`` / ``$$``), LengthError for a header announcing a
    frame longer than ``max_frame_bytes`` (then it resynchronises on the next start). Memory is
    bounded: at most ``max_frame_bytes`` are buffered; garbage is counted, not kept.
    """

    __slots__ = ("_buf", "_garbage", "max_frame_bytes")

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        if max_frame_bytes < HEADER_BYTES + BCC_BYTES:
            raise ValueError(f"max_frame_bytes must be at least {HEADER_BYTES + BCC_BYTES}")
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()
        self._garbage = 0

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes | GB32960Error]:
        out: list[bytes | GB32960Error] = []
        self._buf += data
        while self._buf:
            start = self._find_start()
            if start < 0:
                # keep a last '#' / '$': it may be the first half of a start split across chunks
                keep = 1 if self._buf[-1:] in (b"#", b"$") else 0
                self._garbage += len(self._buf) - keep
                del self._buf[: len(self._buf) - keep]
                break
            if start:
                self._garbage += start
                del self._buf[:start]
            if self._garbage:
                out.append(FramingError(f"{self._garbage} bytes before a frame start (## or $$) skipped"))
                self._garbage = 0
            if len(self._buf) < HEADER_BYTES:
                break
            size = frame_size(self._buf)
            if size > self.max_frame_bytes:
                out.append(LengthError(f"frame of {size} bytes exceeds {self.max_frame_bytes}"))
                del self._buf[:2]  # resynchronise after these start bytes
                continue
            if len(self._buf) < size:
                break
            out.append(bytes(self._buf[:size]))
            del self._buf[:size]
        return out

    def _find_start(self) -> int:
        found = [i for i in (self._buf.find(s) for s in STARTS) if i >= 0]
        return min(found) if found else -1
