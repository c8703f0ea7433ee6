"""The attachment data stream (Jiangsu 2017 table 4-27): after 0x1211 a terminal sends a file's bytes
on the attachment connection as raw chunks, not as 0x7e frames:

| field | wire |
|---|---|
| magic | DWORD 0x30316364 ("01cd") |
| file name | BYTE[50], NUL padded (some terminals pad on the left) |
| data offset | DWORD |
| data length | DWORD |
| data | BYTE[length] |

A reader tells a chunk from a JT/T 808 frame by its first byte (0x30 vs 0x7e).
"""

from __future__ import annotations

import struct

from protocols.jt808.errors import BodyError, FramingError
from protocols.jt808.fields import decode_fixed_text

MAGIC = 0x30316364
NAME_SIZE = 50
MAX_CHUNK_BYTES = 1 << 20  # far above what terminals send (64 KiB); bounds a reader's buffer
_HEADER = struct.Struct(">I50sII")
HEADER_SIZE = _HEADER.size  # 62


class FrameError(FramingError):
    """A chunk header that cannot be one: wrong magic or a length above MAX_CHUNK_BYTES."""


def encode_chunk(name: str, offset: int, data: bytes) -> bytes:
    """Raises BodyError for a name over 50 bytes (GBK) or data over MAX_CHUNK_BYTES."""
    raw_name = name.encode("gbk")
    if not raw_name or len(raw_name) > NAME_SIZE:
        raise BodyError(f"attachment chunk file name must be 1-{NAME_SIZE} bytes, got {len(raw_name)}")
    if len(data) > MAX_CHUNK_BYTES:
        raise BodyError(f"attachment chunk of {len(data)} bytes exceeds {MAX_CHUNK_BYTES}")
    return _HEADER.pack(MAGIC, raw_name.ljust(NAME_SIZE, b"\x00"), offset, len(data)) + data


def parse_chunk(buf: bytes) -> tuple[str, int, bytes, int] | None:
    """(name, offset, data, bytes consumed) of the chunk at the start of ``buf``; None when ``buf`` does
    not hold the whole chunk yet. Raises FrameError on a bad magic or an oversize length."""
    if len(buf) < 4:
        return None
    if int.from_bytes(buf[:4], "big") != MAGIC:
        raise FrameError(f"attachment chunk magic {bytes(buf[:4]).hex()} is not {MAGIC:08x}")
    if len(buf) < HEADER_SIZE:
        return None
    _, raw_name, offset, length = _HEADER.unpack_from(buf)
    if length > MAX_CHUNK_BYTES:
        raise FrameError(f"attachment chunk length {length} exceeds {MAX_CHUNK_BYTES}")
    end = HEADER_SIZE + length
    if len(buf) < end:
        return None
    return decode_fixed_text(raw_name), offset, bytes(buf[HEADER_SIZE:end]), end
