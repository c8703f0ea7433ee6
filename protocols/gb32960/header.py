"""The frame header: GB/T 32960.3-2016 §6.2 table 2 (and the 2025 edition, which only changes the start
bytes to ``$$``), and GB 17691-2018 annex Q (HJ 1239-2021 keeps it).

32960 (24 bytes): start 2, command 1, response flag 1, VIN 17 (ASCII), encryption 1, data length 2.
17691 (24 bytes): start 2, command 1, VIN 17, terminal software version 1, encryption 1, data length 2.
Both start with ``##``, so which one a frame is cannot be read from it: a gateway's port decides
(``protocol=``); a ``$$`` frame is always 32960-2025.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from protocols.gb32960.errors import FramingError, LengthError
from protocols.gb32960.framing import HEADER_BYTES, START_2016, START_2025

VIN_BYTES = 17


class Protocol(Enum):
    GB32960_2016 = "gb32960-2016"
    GB32960_2025 = "gb32960-2025"
    GB17691 = "gb17691"  # GB 17691-2018 annex Q; HJ 1239-2021 frames decode with it

    @property
    def start(self) -> bytes:
        return START_2025 if self is Protocol.GB32960_2025 else START_2016


class Response(IntEnum):
    """Response flag (GB/T 32960.3-2016 table 4): 0xFE on a command, the others on its answer."""

    SUCCESS = 0x01
    ERROR = 0x02
    VIN_DUPLICATE = 0x03
    COMMAND = 0xFE


class Encryption(IntEnum):
    """Data unit encryption (table 2): the BCC covers the data unit as sent."""

    NONE = 0x01
    RSA = 0x02
    AES128 = 0x03
    ABNORMAL = 0xFE
    INVALID = 0xFF


@dataclass(frozen=True, slots=True)
class Header:
    """``response`` is None in GB 17691 frames, ``software_version`` None in 32960 frames.
    ``response`` / ``encryption`` are plain ints when a peer sends a value the tables lack."""

    protocol: Protocol
    command: int
    vin: str
    encryption: int
    length: int
    response: int | None = None
    software_version: int | None = None

    @property
    def encrypted(self) -> bool:
        return self.encryption != Encryption.NONE

    @property
    def is_command(self) -> bool:
        """True for a command (flag 0xFE, or any GB 17691 frame), False for an answer."""
        return self.response is None or self.response == Response.COMMAND


def _vin(raw: bytes) -> str:
    # Latin-1 keeps any byte so a header re-encodes exactly; short VINs are NUL-padded on the right.
    return raw.rstrip(b"\x00").decode("latin-1")


def parse_header(frame: bytes, protocol: Protocol | None = None) -> Header:
    """The header of ``frame``. ``protocol`` chooses 32960-2016 or 17691 for a ``##`` frame
    (default 32960-2016); a ``$$`` frame is 32960-2025 whatever is asked."""
    if len(frame) < HEADER_BYTES:
        raise LengthError(f"frame of {len(frame)} bytes is shorter than the {HEADER_BYTES}-byte header")
    start = bytes(frame[:2])
    if start == START_2025:
        protocol = Protocol.GB32960_2025
    elif start != START_2016:
        raise FramingError(f"a frame starts with ## or $$, not {start.hex()}")
    elif protocol is None or protocol is Protocol.GB32960_2025:
        protocol = Protocol.GB32960_2016
    length = int.from_bytes(frame[22:24], "big")
    if protocol is Protocol.GB17691:
        return Header(protocol, frame[2], _vin(frame[3:20]), frame[21], length, software_version=frame[20])
    return Header(protocol, frame[2], _vin(frame[4:21]), frame[21], length, response=frame[3])


def pack_header(header: Header) -> bytes:
    vin = header.vin.encode("latin-1")
    if len(vin) > VIN_BYTES:
        raise ValueError(f"VIN {header.vin!r} is longer than {VIN_BYTES} bytes")
    vin = vin.ljust(VIN_BYTES, b"\x00")
    if header.protocol is Protocol.GB17691:
        middle = bytes((header.command,)) + vin + bytes((header.software_version or 0,))
    else:
        middle = bytes((header.command, Response.COMMAND if header.response is None else header.response)) + vin
    return header.protocol.start + middle + bytes((header.encryption,)) + header.length.to_bytes(2, "big")
