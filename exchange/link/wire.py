"""The frames of one superior platform's links: split a TCP stream into frames, encode with the platform's
centre id, version, serial numbers and keys, decode with its version and keys (protocols.jt809 does the rest).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocols.jt809 import CipherKeys, Message, decode_frame, encode_frame

HEAD = 0x5B
TAIL = 0x5D
MAX_FRAME_BYTES = 64 * 1024  # a longer run without a tail flag is garbage: dropped up to the next head flag


async def read_frame(reader: asyncio.StreamReader) -> bytes:
    """The next whole frame (0x5b ... 0x5d) from the stream; bytes before a head flag are skipped.
    Raises asyncio.IncompleteReadError at the end of the stream."""
    while True:
        await reader.readuntil(bytes((HEAD,)))
        rest = await reader.readuntil(bytes((TAIL,)))
        if len(rest) <= MAX_FRAME_BYTES and HEAD not in rest[:-1]:
            return bytes((HEAD,)) + rest
        # a head flag inside: the frame before it was cut; keep the last head's frame
        last = rest.rfind(bytes((HEAD,)), 0, len(rest) - 1)
        if last >= 0 and len(rest) - last <= MAX_FRAME_BYTES:
            return rest[last:]


class PlatformWire:
    """Encode and decode the frames of one link pair. One serial number counter for both links."""

    def __init__(self, centre_id: int, version: str, keys: CipherKeys | None = None, key: int = 0) -> None:
        self.centre_id = centre_id
        self.version = version
        self.keys = keys
        self.key = key
        self._sn = 0

    def encode(self, msg_id: int, body: Any) -> bytes:
        self._sn = (self._sn + 1) & 0xFFFFFFFF
        return encode_frame(msg_id, body, sn=self._sn, centre_id=self.centre_id, version=self.version,
                            keys=self.keys, key=self.key,
                            timestamp=int(time.time()) if self.version == "2019" else None)

    def decode(self, frame: bytes) -> Message:
        """Raises protocols.jt809.JT809Error for a frame that is not sound."""
        return decode_frame(frame, version=self.version, keys=self.keys)
