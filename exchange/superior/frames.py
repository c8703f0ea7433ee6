"""Reading whole JT/T 809 frames from a TCP stream (§4.1: 0x5b ... 0x5d, escaped in between).

Inside a frame 0x5b and 0x5d are always escaped, so a frame is the bytes from the last 0x5b before a
0x5d up to it. Bytes outside any frame are returned as garbage so the caller counts them; a frame
longer than ``max_bytes`` is skipped as garbage without buffering it all.

The reader keeps what one socket read brought: an inferior platform forwarding thousands of positions a second
sends many frames per read, and ``buffered()`` hands them out without awaiting, so a caller that times the wait
for the next frame (a silent link is closed) starts a timer per read, not per frame.
"""

from __future__ import annotations

import asyncio

HEAD = b"\x5b"
TAIL = b"\x5d"
READ_BYTES = 64 * 1024


class FrameReader:
    def __init__(self, reader: asyncio.StreamReader, max_bytes: int = 64 * 1024) -> None:
        self._reader = reader
        self._max = max_bytes
        self._buffer = bytearray()
        self._eof = False

    def buffered(self) -> tuple[bytes | None, bytes] | None:
        """The next (frame or None, garbage before it) among the bytes already read, or None when the next frame
        needs more of them."""
        buffer = self._buffer
        end = buffer.find(TAIL)
        if end < 0:
            if len(buffer) > self._max:  # no tail within the limit: garbage up to the last head flag
                start = buffer.rfind(HEAD)
                cut = start if 0 < start and len(buffer) - start <= self._max else len(buffer)
                garbage = bytes(buffer[:cut])
                del buffer[:cut]
                return None, garbage
            return None
        chunk = bytes(buffer[: end + 1])
        del buffer[: end + 1]
        start = chunk.rfind(HEAD)
        if start < 0:
            return None, chunk
        frame = chunk[start:]
        if len(frame) > self._max:
            return None, chunk
        return frame, chunk[:start]

    async def next(self) -> tuple[bytes | None, bytes]:
        """(frame or None, garbage before it). Raises EOFError when the peer closed the stream and every byte it
        sent was handed out."""
        while True:
            item = self.buffered()
            if item is not None:
                return item
            if self._eof:
                if self._buffer:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    return None, rest
                raise EOFError
            data = await self._reader.read(READ_BYTES)
            if data:
                self._buffer += data
            else:
                self._eof = True
