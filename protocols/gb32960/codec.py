"""Frames <-> messages for GB/T 32960.3 (2016, 2025) and GB 17691-2018 annex Q / HJ 1239-2021.

A data unit is decoded by the body class registered for its protocol family and command; a command
without one, and every encrypted data unit (RSA / AES: the keys are the link's, not the codec's), stays
bytes. An answer (response flag not 0xFE) whose data unit is exactly the 6-byte time is ``TimeOnly``:
the standard's answers carry the time of the command they answer (GB/T 32960.3-2016 §6.3.2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from protocols.gb32960.errors import BodyError, ChecksumError, GB32960Error, LengthError
from protocols.gb32960.framing import BCC_BYTES, HEADER_BYTES, bcc
from protocols.gb32960.header import Encryption, Header, Protocol, Response, pack_header, parse_header
from protocols.gb32960.values import TIME_BYTES, read_time, write_time

T = TypeVar("T")
_DECODERS: dict[tuple[str, int], Callable[[bytes, Protocol], Any]] = {}


def family(protocol: Protocol) -> str:
    return "gb17691" if protocol is Protocol.GB17691 else "gb32960"


def register_body(cls: T) -> T:
    """Class decorator: ``COMMAND``, ``FAMILIES`` (``("gb32960",)`` by default), ``decode(data,
    protocol)`` and ``encode(protocol)``."""
    for fam in getattr(cls, "FAMILIES", ("gb32960",)):
        key = (fam, cls.COMMAND)  # type: ignore[attr-defined]
        if key in _DECODERS:
            raise ValueError(f"a {fam} body for command 0x{key[1]:02X} is already registered")
        _DECODERS[key] = cls.decode  # type: ignore[attr-defined]
    return cls


def registered(protocol_family: str) -> list[int]:
    return sorted(cmd for fam, cmd in _DECODERS if fam == protocol_family)


@dataclass(frozen=True, slots=True)
class TimeOnly:
    """An answer's data unit holding only the time of the command it answers."""

    time: datetime

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.time)


@dataclass(frozen=True)
class Message:
    """``body`` is the typed data unit, or bytes (no registered body, or encrypted); ``raw`` the frame."""

    header: Header
    body: Any
    raw: bytes


def decode_body(command: int, data: bytes, protocol: Protocol = Protocol.GB32960_2016) -> Any:
    """A plain data unit alone -> typed body, or the bytes when the command has no registered body.
    Raises BodyError when it does not fit the layout."""
    decoder = _DECODERS.get((family(protocol), command))
    if decoder is None:
        return bytes(data)
    try:
        return decoder(bytes(data), protocol)
    except GB32960Error:
        raise
    except (ValueError, IndexError, UnicodeError) as exc:  # struct.error is a ValueError
        raise BodyError(f"command 0x{command:02X} data unit does not fit its layout: {exc}") from None


def decode_frame(frame: bytes, *, protocol: Protocol | None = None) -> Message:
    """A whole frame (start bytes ... BCC) -> Message. ``protocol`` tells a ``##`` frame's family
    (32960-2016 by default, or GB17691); ``$$`` is always 32960-2025. Raises GB32960Error subclasses
    only: LengthError, FramingError, ChecksumError, BodyError (the last two with ``.header``)."""
    header = parse_header(frame, protocol)
    expected = HEADER_BYTES + header.length + BCC_BYTES
    if len(frame) != expected:
        raise LengthError(f"data length {header.length} announces a {expected}-byte frame, got {len(frame)} "
                          "(truncated or trailing bytes)", header=header)
    computed = bcc(frame[2:-1])
    if computed != frame[-1]:
        raise ChecksumError(f"BCC 0x{frame[-1]:02X} in the frame, 0x{computed:02X} computed", header=header)
    data = bytes(frame[HEADER_BYTES:-1])
    if header.encrypted:
        return Message(header, data, bytes(frame))
    try:
        if not header.is_command and len(data) == TIME_BYTES:
            body: Any = TimeOnly(read_time(data, 0)[0])
        else:
            body = decode_body(header.command, data, header.protocol)
    except GB32960Error as exc:
        exc.header = header
        raise
    return Message(header, body, bytes(frame))


def encode_frame(command: int, body: Any, *, vin: str, protocol: Protocol = Protocol.GB32960_2016,
                 response: int = Response.COMMAND, encryption: int = Encryption.NONE,
                 software_version: int = 0) -> bytes:
    """A complete frame. ``body`` is bytes (sent as is, e.g. already encrypted) or a body object."""
    data = bytes(body) if isinstance(body, bytes | bytearray) else body.encode(protocol)
    if len(data) > 0xFFFF:
        raise ValueError(f"data unit of {len(data)} bytes does not fit the 2-byte length")
    is_17691 = protocol is Protocol.GB17691
    header = Header(protocol, command, vin, encryption, len(data),
                    response=None if is_17691 else response, software_version=software_version if is_17691 else None)
    content = pack_header(header) + data
    return content + bytes((bcc(content[2:]),))
