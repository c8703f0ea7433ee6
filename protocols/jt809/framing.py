"""Byte-level framing of JT/T 809 (§4 of the 2011 and 2019 standards): 0x5b head flag, 0x5d tail flag,
escapes, CRC-16/CCITT.

Escaping (both ways), applied to header, body and CRC: 0x5b <-> 5a 01, 0x5a <-> 5a 02, 0x5d <-> 5e 01,
0x5e <-> 5e 02. A 0x5a / 0x5e not followed by 01 / 02 is kept literally: a public capture carries a
bare 0x5e in its body and still has a matching CRC (SmallChi's reader accepts it). Whether the frame is
then sound is the CRC's decision; ``decode_frame`` reports the bare escape when the CRC fails. The same
holds for an unescaped 0x5b / 0x5d inside a frame (the public real 2019 captures do not escape their
encrypted bodies at all):
on a stream it would have split the frame, but a frame given whole is judged by its CRC.
The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR) over the
unescaped header and body (the body as sent, i.e. after encryption), as every public vector shows.
"""

from __future__ import annotations

import re
from binascii import crc_hqx

from protocols.jt809.errors import FramingError

HEAD = 0x5B
TAIL = 0x5D
_HEAD = b"\x5b"
_TAIL = b"\x5d"

_ESCAPES = {b"\x5a": b"\x5a\x02", b"\x5b": b"\x5a\x01", b"\x5e": b"\x5e\x02", b"\x5d": b"\x5e\x01"}
_UNESCAPES = {v: k for k, v in _ESCAPES.items()}
_ESCAPE_RE = re.compile(rb"[\x5a\x5b\x5d\x5e]")
_UNESCAPE_RE = re.compile(rb"[\x5a\x5e][\x01\x02]")
# An escape byte not followed by 01/02 (or at the end), or a flag byte inside the frame.
_BARE_RE = re.compile(rb"[\x5a\x5e](?![\x01\x02])|[\x5b\x5d]")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; binascii.crc_hqx is exactly that polynomial, unreflected, with this init."""
    return crc_hqx(data, 0xFFFF)


def escape(content: bytes) -> bytes:
    """Escape the four special bytes in one pass (so no introduced 5a / 5e is escaped again)."""
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], content)


def unescape(data: bytes) -> bytes:
    """Undo escaping of the bytes between the flags; other bytes are kept as they are."""
    if b"\x5a" not in data and b"\x5e" not in data:
        return bytes(data)
    return _UNESCAPE_RE.sub(lambda m: _UNESCAPES[m.group()], data)


def strip_flags(frame: bytes) -> bytes:
    """The escaped bytes between 0x5b and 0x5d. Raises FramingError when a flag is missing."""
    if len(frame) < 2 or frame[0] != HEAD or frame[-1] != TAIL:
        raise FramingError("a JT/T 809 frame starts with 0x5b and ends with 0x5d")
    return frame[1:-1]


def frame_content(content: bytes) -> bytes:
    """Header+body (unescaped, MSG_LENGTH already set) -> complete frame: CRC appended, escaped, flagged."""
    return _HEAD + escape(content + crc16(content).to_bytes(2, "big")) + _TAIL


def bare_escape(data: bytes) -> str | None:
    """Describe the first byte of the escaped content that breaks the escape rules, or None."""
    bare = _BARE_RE.search(data)
    if bare is None:
        return None
    byte = data[bare.start()]
    if byte in (HEAD, TAIL):
        return f"flag byte 0x{byte:02x} at offset {bare.start() + 1} inside the frame (it must be escaped)"
    return (f"byte 0x{byte:02x} at offset {bare.start() + 1} is not a valid JT/T 809 escape "
            "(0x5a / 0x5e must be followed by 0x01 / 0x02)")
