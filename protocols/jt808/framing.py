"""Byte-level framing: 0x7e delimiters, 0x7d escaping, XOR checksum, and a streaming de-framer.

Escaping (both ways): 0x7e <-> 0x7d 0x02, 0x7d <-> 0x7d 0x01, applied to header, body and checksum.
A 0x7d not followed by 0x01/0x02 is kept literally: go-jt808 tolerates a bare 0x7d checksum from real
terminals, and the checksum still has to match.
"""

from __future__ import annotations

from protocols.jt808.errors import FramingError, JT808Error, LengthError

FLAG = 0x7E
ESC = 0x7D
_FLAG = b"\x7e"

# Largest legal frame: 2019 header with package fields (21) + body (1023) + checksum, every byte
# escaped, plus both delimiters.
MAX_FRAME_BYTES = 2 * (21 + 1023 + 1) + 2


JT1078_MAGIC = b"01cd"  # 0x30316364: first bytes of every JT/T 1078 audio/video RTP packet


def looks_like_jt1078(data: bytes) -> bool:
    """True for bytes that start (after any 7e) like a JT/T 1078 media packet, not a JT/T 808 frame."""
    return bytes(data[:5]).lstrip(_FLAG).startswith(JT1078_MAGIC)


def escape(content: bytes) -> bytes:
    """Escape 0x7d first so the 0x7d bytes introduced for 0x7e are not escaped again."""
    if b"\x7d" in content:
        content = content.replace(b"\x7d", b"\x7d\x01")
    if b"\x7e" in content:
        content = content.replace(b"\x7e", b"\x7d\x02")
    return content


def unescape(data: bytes) -> bytes:
    """Undo escaping. 7d 02 first: replacing it yields 7e, which cannot form a new 7d 01 pair."""
    return data.replace(b"\x7d\x02", b"\x7e").replace(b"\x7d\x01", b"\x7d")


def xor_checksum(data: bytes) -> int:
    """XOR of all bytes, by folding one big integer (about 20x faster than a byte loop).

    Prefix-XOR by shifts of 1, 2, 4, ... bytes leaves the XOR of every byte in the lowest byte.
    """
    x = int.from_bytes(data, "big")
    shift = 8
    limit = len(data) * 8
    while shift < limit:
        x ^= x >> shift
        shift <<= 1
    return x & 0xFF


def frame_content(content: bytes) -> bytes:
    """Header+body (unescaped) -> complete frame: checksum appended, escaped, delimited."""
    return _FLAG + escape(content + bytes((xor_checksum(content),))) + _FLAG


class FrameReader:
    """Streaming de-framer for one TCP connection: feed it chunks, get whole frames back.

    ``feed`` returns, in stream order, each complete frame as bytes (escaped, with both 7e
    delimiters, ready for ``decode_frame``) and, for bytes that cannot be a frame, a JT808Error
    instance (never raised): FramingError for bytes before the first 7e, LengthError for a frame
    longer than ``max_frame_bytes``. After an error it resynchronises on the next 7e.

    Every stretch between two 7e bytes is a frame candidate, so frames sharing one delimiter
    (``7e A 7e B 7e``) are both found; validating a candidate is ``decode_frame``'s job. Memory is
    bounded: at most ``max_frame_bytes`` are buffered.
    """

    __slots__ = ("_buf", "_garbage", "_in_sync", "_oversize", "max_frame_bytes")

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        if max_frame_bytes < 4:
            raise ValueError("max_frame_bytes must be at least 4")
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()  # bytes after the last 7e (excluded)
        self._in_sync = False  # seen a 7e since the start or the last error
        self._garbage = 0  # bytes discarded while out of sync
        self._oversize = False  # discarding the rest of an oversize frame (already reported)

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes | JT808Error]:
        out: list[bytes | JT808Error] = []
        limit = self.max_frame_bytes
        pos = 0
        end = len(data)
        while pos < end:
            i = data.find(FLAG, pos)
            if i < 0:
                self._hold(data, pos, end, out)
                break
            if not self._in_sync:
                self._resync(i - pos, out)
            elif self._buf:
                self._buf += data[pos:i]
                if len(self._buf) + 2 > limit:
                    out.append(LengthError(f"frame exceeds {limit} bytes"))
                else:
                    out.append(_FLAG + bytes(self._buf) + _FLAG)
                self._buf.clear()
            elif i > pos:
                if i - pos + 2 > limit:
                    out.append(LengthError(f"frame exceeds {limit} bytes"))
                else:
                    out.append(data[pos - 1 : i + 1] if pos else _FLAG + data[:i + 1])
            pos = i + 1
        return out

    def _hold(self, data: bytes, pos: int, end: int, out: list[bytes | JT808Error]) -> None:
        """Keep a tail without 7e, or count it as garbage when out of sync."""
        if not self._in_sync:
            self._garbage += end - pos
            if self._garbage > self.max_frame_bytes:
                self._report_garbage(out)
            return
        if len(self._buf) + (end - pos) + 2 > self.max_frame_bytes:
            out.append(LengthError(f"frame exceeds {self.max_frame_bytes} bytes"))
            self._buf.clear()
            self._in_sync = False
            self._oversize = True
            return
        self._buf += data[pos:end]

    def _resync(self, skipped: int, out: list[bytes | JT808Error]) -> None:
        self._garbage += skipped
        self._report_garbage(out)
        self._oversize = False
        self._in_sync = True

    def _report_garbage(self, out: list[bytes | JT808Error]) -> None:
        if self._garbage and not self._oversize:
            out.append(FramingError(f"{self._garbage} bytes outside a 7e-delimited frame discarded"))
        self._garbage = 0
