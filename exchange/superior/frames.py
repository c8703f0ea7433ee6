"""Reading whole JT/T 809 frames from a TCP stream (§4.1: 0x5b ... 0x5d, escaped in between).

Inside a frame 0x5b and 0x5d are always escaped, so a frame is the bytes from the last 0x5b before a
0x5d up to it. Bytes outside any frame are returned as garbage so the caller counts them; a frame
longer than ``max_bytes`` is skipped as garbage without buffering it all.
"""

from __future__ import annotations

import asyncio

HEAD = b"\x5b"
TAIL = b"\x5d"


class FrameReader:
    def __init__(self, reader: asyncio.StreamReader, max_bytes: int = 64 * 1024) -> None:
        self._reader = reader
        self._max = max_bytes

    async def next(self) -> tuple[bytes | None, bytes]:
        """(frame or None, garbage before it). Raises EOFError when the peer closed the stream."""
        try:
            chunk = await self._reader.readuntil(TAIL)
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                return None, exc.partial
            raise EOFError from None
        except asyncio.LimitOverrunError as exc:
            dropped = await self._reader.readexactly(exc.consumed)
            return None, dropped
        start = chunk.rfind(HEAD)
        if start < 0:
            return None, chunk
        frame = chunk[start:]
        if len(frame) > self._max:
            return None, chunk
        return frame, chunk[:start]
