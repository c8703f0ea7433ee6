"""Codec errors: one small class per failure, all under GB32960Error (a ValueError).

Errors raised after the header was read carry it in ``.header`` so a gateway can still log the frame and
answer the terminal with the standard's error flag; before that ``.header`` is None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocols.gb32960.header import Header


class GB32960Error(ValueError):
    """Base of every codec error. ``header`` is set when the header could be read."""

    def __init__(self, message: str, *, header: Header | None = None) -> None:
        super().__init__(message)
        self.header = header


class FramingError(GB32960Error):
    """Bytes that do not start with ``##`` (2016, GB 17691) or ``$$`` (2025)."""


class LengthError(GB32960Error):
    """A frame shorter than its header, whose data length does not match its bytes, or over the limit."""


class ChecksumError(GB32960Error):
    """The BCC (XOR from the command byte to the end of the data unit) does not match the last byte."""


class BodyError(GB32960Error):
    """A data unit that does not fit its layout (truncated, trailing bytes, bad time, wrong count)."""
