"""Codec errors: one small class per failure, all under JT809Error (a ValueError).

Errors raised after the header was read carry it in ``.header`` so a link can still log the frame and
answer its peer; before that ``.header`` is None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocols.jt809.header import Header


class JT809Error(ValueError):
    """Base of every codec error. ``header`` is set when the header could be read; ``body`` (the
    plain body bytes) when the frame was sound and only its body did not fit its layout."""

    def __init__(self, message: str, *, header: Header | None = None) -> None:
        super().__init__(message)
        self.header = header
        self.body: bytes | None = None


class FramingError(JT809Error):
    """Missing 0x5b / 0x5d flags, a flag byte inside the frame, or an escape byte (0x5a / 0x5e) not
    followed by 0x01 / 0x02."""


class ChecksumError(JT809Error):
    """The CRC-16/CCITT of header and body does not equal the CRC field."""


class LengthError(JT809Error):
    """Frame shorter than its header and CRC, or MSG_LENGTH not equal to the frame's length."""


class EncryptedBodyError(JT809Error):
    """The encrypt flag is set and no M1 / IA1 / IC1 were given, or the flag is neither 0 nor 1."""


class UnknownVersionError(JT809Error):
    """A protocol version other than '2011' or '2019' was asked for."""


class BodyError(JT809Error):
    """The body does not fit its message layout (truncated field, bad count or length, bad time)."""
