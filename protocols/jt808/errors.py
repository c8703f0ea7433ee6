"""Codec errors: one small class per failure, all under JT808Error (a ValueError).

Errors raised after the header was read carry it in ``.header`` so a gateway can still answer the
terminal (0x8001 result 2) and log the frame; before that ``.header`` is None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocols.jt808.header import Header


class JT808Error(ValueError):
    """Base of every codec error. ``header`` is set when the header could be read; ``body`` (the
    unescaped body bytes) when the frame was sound and only its body did not fit its layout."""

    def __init__(self, message: str, *, header: Header | None = None) -> None:
        super().__init__(message)
        self.header = header
        self.body: bytes | None = None


class FramingError(JT808Error):
    """Missing 0x7e delimiters, or bytes outside a frame (garbage before a 0x7e)."""


class ChecksumError(JT808Error):
    """The XOR of header and body does not equal the checksum byte."""


class LengthError(JT808Error):
    """Frame shorter than its header, body-length field not matching the bytes present, or oversize."""


class EncryptedBodyError(JT808Error):
    """The RSA/encryption flag (attribute bits 10-12) is set; encrypted bodies are not supported."""


class UnknownVersionError(JT808Error):
    """A protocol version other than '2011', '2013' or '2019' was asked for."""


class BodyError(JT808Error):
    """The body does not fit its message layout (truncated field, bad count, invalid BCD time)."""
