"""One attachment file being received: which byte ranges arrived, and where they wait until the file is whole.

The bytes wait in an anonymous temporary file written at their offsets (``os.pwrite``), not in a buffer of
the declared size: what a file costs grows with the bytes received, so a 0x1211 announcing 16 MiB followed
by one byte at offset 16 MiB - 1 holds one byte (the file is sparse), not 16 MiB of memory. A file whose
received ranges stay split in more than ``MAX_RANGES`` pieces is refused: every chunk merges its range into
the list, and a terminal sends its file in order, so only a hostile one scatters it.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import IO

from fleet.media_store import StoredObject

MAX_RANGES = 1024  # disjoint received ranges one file may have at once (a terminal's gaps are a few lost chunks)


def missing_ranges(received: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """(offset, length) gaps of ``size`` bytes not covered by the merged ``received`` [start, end) list."""
    gaps: list[tuple[int, int]] = []
    at = 0
    for start, end in received:
        if start > at:
            gaps.append((at, start - at))
        at = max(at, end)
    if at < size:
        gaps.append((at, size - at))
    return gaps


def add_range(received: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """``received`` with [start, end) merged in (sorted, non-overlapping, adjacent ones joined)."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted([*received, (start, end)]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


@dataclass
class FileUpload:
    name: str  # as the terminal names it (0x1211, chunks, 0x1212, 0x9212)
    size: int
    stored_name: str = ""  # the name it is stored and listed under (the alarm's uuid in place of the number)
    file_type: int | None = None  # set by 0x1211
    received: list[tuple[int, int]] = field(default_factory=list)
    refused: str | None = None  # why this file is refused (its 0x1212 gets 0x8001 result 1)
    stored: StoredObject | None = None
    recorded: bool = False  # its uplink record was acknowledged by Kafka
    _spool: IO[bytes] | None = None

    @property
    def missing(self) -> list[tuple[int, int]]:
        return missing_ranges(self.received, self.size)

    @property
    def buffered(self) -> bool:
        return self._spool is not None

    def write(self, offset: int, data: bytes) -> str | None:
        """Keep ``data`` at ``offset`` (the caller checked it ends within ``size``); returns why the file is
        refused (too fragmented), else None. Raises OSError when the temporary file cannot be written."""
        if not data:
            return None
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(prefix="fleet-attachment-")
        fd = self._spool.fileno()
        view = memoryview(data)
        while view:
            written = os.pwrite(fd, view, offset)
            view, offset = view[written:], offset + written
        self.received = add_range(self.received, offset - len(data), offset)
        if len(self.received) > MAX_RANGES:
            return f"received in more than {MAX_RANGES} separate ranges"
        return None

    def read_all(self) -> bytes:
        """The whole file (call once ``missing`` is empty). Blocks: run it in an executor."""
        if self._spool is None:
            return b""
        fd = self._spool.fileno()
        parts: list[bytes] = []
        at = 0
        while at < self.size:
            part = os.pread(fd, min(self.size - at, 1 << 20), at)
            if not part:
                raise OSError(f"temporary file of {self.name} ends at {at} of {self.size} bytes")
            parts.append(part)
            at += len(part)
        return b"".join(parts)

    def drop(self) -> None:
        """Forget the received bytes (a file left unfinished starts over, or it is stored, or refused)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        if self.stored is None:
            self.received = []
