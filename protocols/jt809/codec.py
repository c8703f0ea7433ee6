"""Frame decode and encode: framing, header, decryption, then the body by its message id.

``decode_frame`` refuses, with a JT809Error subclass and never another exception, a missing flag, a bad
escape (an escape byte not followed by 01/02 in a frame whose CRC fails), a truncated frame, a MSG_LENGTH that is not the frame's length, a wrong CRC, an encrypted body
without keys, and a body that does not fit its layout (``.header`` and ``.body`` are then set).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from protocols.jt809.cipher import CipherKeys, crypt
from protocols.jt809.errors import (
    BodyError,
    ChecksumError,
    EncryptedBodyError,
    FramingError,
    JT809Error,
    LengthError,
)
from protocols.jt809.framing import bare_escape, crc16, frame_content, strip_flags, unescape
from protocols.jt809.header import (
    CRC_BYTES,
    FLAG_BYTES,
    Header,
    check_version,
    header_size,
    pack_header,
    parse_header,
)


class BodyCodec(Protocol):
    MSG_ID: ClassVar[int]

    @classmethod
    def decode(cls, body: bytes, version: str) -> Any: ...

    def encode(self, version: str) -> bytes: ...


_DECODERS: dict[int, Callable[[bytes, str], Any]] = {}
T = TypeVar("T", bound=type[BodyCodec])


def register_body(cls: T) -> T:
    """Register a body class under ``cls.MSG_ID`` (a decorator). Raises ValueError if the id is taken."""
    if cls.MSG_ID in _DECODERS:
        raise ValueError(f"a JT/T 809 body for 0x{cls.MSG_ID:04X} is already registered")
    _DECODERS[cls.MSG_ID] = cls.decode
    return cls


def registered_ids() -> list[int]:
    return sorted(_DECODERS)


@dataclass(frozen=True)
class Message:
    """``body`` is the typed body, or the plain bytes for a message id without a registered body;
    ``plain`` is the body's bytes after decryption (as logged); ``raw`` the frame as received."""

    header: Header
    body: Any
    raw: bytes
    plain: bytes = b""


def decode_body(msg_id: int, body: bytes, version: str) -> Any:
    """A plain (decrypted) body alone -> typed body, or the bytes when the id has no registered body.
    Raises BodyError when it does not fit the layout."""
    decoder = _DECODERS.get(msg_id)
    if decoder is None:
        return bytes(body)
    try:
        return decoder(bytes(body), check_version(version))
    except JT809Error:
        raise
    except (ValueError, IndexError, UnicodeError) as exc:  # struct.error is a ValueError
        raise BodyError(f"0x{msg_id:04X} body does not fit its {version} layout: {exc}") from None


# 2019 header times a peer may plausibly send (UTC seconds, 2000-01-01 up to 2100-01-01).
_PLAUSIBLE_TIME = range(946_684_800, 4_102_444_800)


def guess_version(frame: bytes) -> str:
    """'2019' when the 8 bytes after a 2011 header read as a plausible UTC time, else '2011'.

    The header does not say which layout it has (MSG_LENGTH counts the whole frame either way), so a
    link configures it per peer; this guess is for tools reading a capture. In a 2011 frame the same
    bytes are the body's start (a plate in GBK, a user id and password, ...), which is rarely a time.
    """
    try:
        content = unescape(strip_flags(frame))
    except JT809Error:
        return "2011"
    if len(content) < header_size("2019") + CRC_BYTES:
        return "2011"
    seconds = int.from_bytes(content[header_size("2011") : header_size("2019")], "big")
    return "2019" if seconds in _PLAUSIBLE_TIME else "2011"


def decode_frame(frame: bytes, *, version: str = "2011", keys: CipherKeys | None = None) -> Message:
    """A whole frame (0x5b ... 0x5d, still escaped) -> Message. ``version`` is the peer's configured
    header layout; ``keys`` decrypt a body whose encrypt flag is set."""
    size = header_size(version)
    escaped = strip_flags(frame)
    content = unescape(escaped)
    if len(content) < size + CRC_BYTES:
        raise LengthError(f"frame of {len(content) + FLAG_BYTES} bytes is shorter than a {version} header "
                          f"and CRC ({size + CRC_BYTES + FLAG_BYTES})")
    header = parse_header(content, version)
    if header.length != len(content) + FLAG_BYTES:
        raise LengthError(f"MSG_LENGTH {header.length} but the frame has {len(content) + FLAG_BYTES} bytes "
                          "(truncated, or not a JT/T 809 " + version + " frame)", header=header)
    expected = int.from_bytes(content[-CRC_BYTES:], "big")
    actual = crc16(content[:-CRC_BYTES])
    if expected != actual:
        bare = bare_escape(escaped)
        if bare is not None:
            raise FramingError(f"{bare}; CRC does not match", header=header)
        raise ChecksumError(f"CRC 0x{expected:04X} in the frame, 0x{actual:04X} computed", header=header)
    body = content[size:-CRC_BYTES]
    if header.encrypted:
        if keys is None:
            error = EncryptedBodyError("body is encrypted and no M1/IA1/IC1 are configured", header=header)
            error.body = body
            raise error
        body = crypt(body, header.key, keys)
    try:
        return Message(header, decode_body(header.msg_id, body, version), bytes(frame), bytes(body))
    except JT809Error as exc:
        exc.header = header
        exc.body = body
        raise


def encode_frame(msg_id: int, body: Any, *, sn: int, centre_id: int, version: str = "2011",
                 protocol_version: tuple[int, int, int] = (1, 0, 0), keys: CipherKeys | None = None,
                 key: int = 0, timestamp: int | None = None) -> bytes:
    """Build a complete frame. ``body`` is bytes or a body object (``encode(version)``). With ``keys``
    the body is encrypted with ``key`` and the encrypt flag set. ``timestamp`` (UTC seconds) is the
    2019 header time (0 when None); ignored in 2011."""
    size = header_size(version)
    plain = bytes(body) if isinstance(body, bytes | bytearray) else body.encode(version)
    sent = crypt(plain, key, keys) if keys is not None else plain
    header = Header(size + len(sent) + CRC_BYTES + FLAG_BYTES, sn, msg_id, centre_id, protocol_version,
                    keys is not None, key, timestamp if version == "2019" else None, version)
    return frame_content(pack_header(header) + sent)
