"""The message header: 2011/2013 (BCD[6] phone) and 2019 (version flag, protocol version, BCD[10] phone).

Body attributes (WORD): bits 0-9 body length, 10-12 encryption (bit 10 = RSA), 13 sub-package,
14 version flag (2019), 15 reserved. With bit 13 set, the header ends with package total and package
index (both WORD, index from 1).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from protocols.jt808.errors import EncryptedBodyError, LengthError
from protocols.jt808.fields import check_version, digits_to_bcd

MAX_BODY = 0x3FF  # 10-bit length field
ATTR_LENGTH = 0x03FF
ATTR_ENCRYPTION = 0x1C00
ATTR_SUBPACKAGE = 0x2000
ATTR_VERSION_2019 = 0x4000

_H2013 = struct.Struct(">HH6sH")  # msg id, attributes, phone, seq: 12 bytes
_H2019 = struct.Struct(">HHB10sH")  # msg id, attributes, protocol version, phone, seq: 17 bytes
_PACKAGE = struct.Struct(">HH")  # total, index
HEADER_2013 = _H2013.size
HEADER_2019 = _H2019.size


@dataclass(frozen=True)
class Header:
    """A decoded header. ``version`` is '2011' only for a 0x0100 whose body has the 2011 layout (the
    2011 and 2013 headers are identical); ``protocol_version`` is None before 2019; package fields
    are None unless the message is split into sub-packages.

    The defaults describe the common case (2013, unencrypted, not split), which lets ``decode_frame``
    store only the four fields that vary; they are ordinary dataclass fields otherwise.
    """

    msg_id: int
    phone: str
    seq: int
    version: str = "2013"
    protocol_version: int | None = None
    encrypted: bool = False
    body_length: int = 0
    package_total: int | None = None
    package_index: int | None = None


def parse_header(data: bytes, frame_length: int) -> tuple[Header, int]:
    """Parse the header of an unescaped frame (``data`` still has its 7e delimiters).

    Returns the header and the offset of the body. Raises LengthError when the frame is shorter than
    its header or the body-length field disagrees with the bytes present, EncryptedBodyError when an
    encryption bit is set. A 2019 flag on a 2013-shaped header (seen on real devices) is read as 2013
    when only that reading makes the length consistent.
    """
    msg_id, attr = struct.unpack_from(">HH", data, 1)
    body_length = attr & ATTR_LENGTH
    package = attr & ATTR_SUBPACKAGE
    package_bytes = 4 if package else 0
    if attr & ATTR_VERSION_2019:
        size_2019 = HEADER_2019 + package_bytes
        if frame_length - 3 - size_2019 != body_length and frame_length - 3 - HEADER_2013 - package_bytes == body_length:
            return _parse_2013(data, frame_length, attr, body_length, package)
        if frame_length < size_2019 + 3:
            raise LengthError(f"frame of {frame_length} bytes is shorter than a 2019 header")
        _, _, protocol_version, phone_raw, seq = _H2019.unpack_from(data, 1)
        total = index = None
        if package:
            total, index = _PACKAGE.unpack_from(data, 1 + HEADER_2019)
        header = Header(
            msg_id, phone_raw.hex(), seq, "2019", protocol_version, bool(attr & ATTR_ENCRYPTION),
            body_length, total, index,
        )
        _check(header, attr, frame_length - 3 - size_2019)
        return header, 1 + size_2019
    return _parse_2013(data, frame_length, attr, body_length, package)


def _parse_2013(data: bytes, frame_length: int, attr: int, body_length: int, package: int) -> tuple[Header, int]:
    size = HEADER_2013 + (4 if package else 0)
    if frame_length < size + 3:
        raise LengthError(f"frame of {frame_length} bytes is shorter than a 2013 header")
    msg_id, _, phone_raw, seq = _H2013.unpack_from(data, 1)
    total = index = None
    if package:
        total, index = _PACKAGE.unpack_from(data, 1 + HEADER_2013)
    header = Header(
        msg_id, phone_raw.hex(), seq, "2013", None, bool(attr & ATTR_ENCRYPTION), body_length, total, index
    )
    _check(header, attr, frame_length - 3 - size)
    return header, 1 + size


def _check(header: Header, attr: int, present: int) -> None:
    if attr & ATTR_ENCRYPTION:
        raise EncryptedBodyError(
            f"encrypted body (attribute bits 10-12 = {(attr >> 10) & 7}) is not supported", header=header
        )
    if present != header.body_length:
        raise LengthError(
            f"body-length field says {header.body_length} bytes, frame holds {present}", header=header
        )


def build_header(
    msg_id: int,
    body_length: int,
    *,
    phone: str,
    seq: int,
    version: str,
    protocol_version: int,
    package: tuple[int, int] | None = None,
) -> bytes:
    """Encode a header (unescaped). Raises ValueError/UnknownVersionError for bad arguments."""
    check_version(version)
    if not 0 <= msg_id <= 0xFFFF:
        raise ValueError(f"message id {msg_id} is not a WORD")
    if not 0 <= protocol_version <= 0xFF:
        raise ValueError(f"protocol version {protocol_version} is not a BYTE")
    if not 0 <= body_length <= MAX_BODY:
        raise LengthError(f"body of {body_length} bytes exceeds {MAX_BODY}; use encode_subpackages")
    attr = body_length | (ATTR_SUBPACKAGE if package else 0)
    if version == "2019":
        out = struct.pack(
            ">HHB", msg_id, attr | ATTR_VERSION_2019, protocol_version
        ) + digits_to_bcd(phone, 10) + struct.pack(">H", seq & 0xFFFF)
    else:
        out = struct.pack(">HH", msg_id, attr) + digits_to_bcd(phone, 6) + struct.pack(">H", seq & 0xFFFF)
    if package:
        out += _PACKAGE.pack(*package)
    return out
