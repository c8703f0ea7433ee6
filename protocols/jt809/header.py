"""The message header (JT/T 809-2011 §4.2 and -2019 §4.3), all big-endian.

2011 (22 bytes): MSG_LENGTH UINT32 (whole frame, both flags included), MSG_SN UINT32, MSG_ID UINT16,
MSG_GNSSCENTERID UINT32, VERSION_FLAG BYTE[3] (major, minor, patch), ENCRYPT_FLAG BYTE (0 plain,
1 encrypted), ENCRYPT_KEY UINT32. 2019 (30 bytes) adds TIME UINT64, UTC seconds. Nothing on the wire
says which layout a frame has: the version is configured per peer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime

from protocols.jt809.errors import EncryptedBodyError, UnknownVersionError

VERSIONS = ("2011", "2019")

_H2011 = struct.Struct(">IIHI3sBI")
_TIME = struct.Struct(">Q")
HEADER_2011 = _H2011.size  # 22
HEADER_2019 = HEADER_2011 + _TIME.size  # 30
CRC_BYTES = 2
FLAG_BYTES = 2


def check_version(version: str) -> str:
    """Return ``version`` or raise UnknownVersionError if it is not 2011/2019."""
    if version not in VERSIONS:
        raise UnknownVersionError(f"unknown JT/T 809 version {version!r}; expected one of {VERSIONS}")
    return version


def header_size(version: str) -> int:
    return HEADER_2019 if check_version(version) == "2019" else HEADER_2011


@dataclass(frozen=True)
class Header:
    """A decoded header. ``timestamp`` (UTC seconds) exists in 2019 only, None in 2011.
    ``protocol_version`` is the VERSION_FLAG as (major, minor, patch)."""

    length: int
    sn: int
    msg_id: int
    centre_id: int
    protocol_version: tuple[int, int, int] = (1, 0, 0)
    encrypted: bool = False
    key: int = 0
    timestamp: int | None = None
    version: str = "2011"

    @property
    def time(self) -> datetime | None:
        """The 2019 header time as an aware UTC datetime (None in 2011 or when out of range)."""
        if self.timestamp is None:
            return None
        try:
            return datetime.fromtimestamp(self.timestamp, UTC)
        except (OverflowError, OSError, ValueError):
            return None


def parse_header(content: bytes, version: str) -> Header:
    """Parse the header at the start of the unescaped content (flags removed, CRC still there).
    The caller has checked the length. Raises EncryptedBodyError for an encrypt flag other than 0/1."""
    length, sn, msg_id, centre, pv, flag, key = _H2011.unpack_from(content)
    if flag > 1:
        raise EncryptedBodyError(f"ENCRYPT_FLAG must be 0 or 1, got {flag}")
    timestamp = _TIME.unpack_from(content, HEADER_2011)[0] if version == "2019" else None
    return Header(length, sn, msg_id, centre, (pv[0], pv[1], pv[2]), bool(flag), key, timestamp, version)


def pack_header(header: Header) -> bytes:
    """Encode ``header`` in its ``version``'s layout. Raises ValueError for a field out of range."""
    check_version(header.version)
    try:
        out = _H2011.pack(header.length, header.sn, header.msg_id, header.centre_id,
                          bytes(header.protocol_version), int(header.encrypted), header.key)
        if header.version == "2019":
            out += _TIME.pack(header.timestamp or 0)
    except (struct.error, ValueError) as exc:
        raise ValueError(f"header field out of range: {exc}") from None
    return out
