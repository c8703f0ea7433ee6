"""Terminal parameters (0x8103 set, 0x0104 query reply): id DWORD, length BYTE, value.

Values of the standard parameters are typed by the table below (JT/T 808-2013/2019 table 12): a
number for DWORD/WORD/BYTE, text for STRING. Anything else, or a value whose length does not match
its type, stays ``bytes`` so it can be re-sent unchanged.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text

_DWORD = (
    list(range(0x0001, 0x0008)) + [0x0018, 0x0019, 0x001B, 0x001C, 0x0020, 0x0021, 0x0022]
    + [0x0027, 0x0028, 0x0029, 0x002C, 0x002D, 0x002E, 0x002F, 0x0030, 0x0045, 0x0046, 0x0047]
    + list(range(0x0050, 0x005B)) + [0x0064, 0x0065] + list(range(0x0070, 0x0075))
    + [0x0080, 0x0093, 0x0095, 0x0100, 0x0102]
)
_WORD = [0x0031, 0x005B, 0x005C, 0x005D, 0x005E, 0x0081, 0x0082, 0x0101, 0x0103]
_BYTE = [0x0084, 0x0090, 0x0091, 0x0092, 0x0094]
_STRING = (
    list(range(0x0010, 0x0018)) + [0x001A, 0x001D] + list(range(0x0023, 0x0027))
    + list(range(0x0040, 0x0045)) + [0x0048, 0x0049, 0x0083]
)
NUMBER_SIZE: dict[int, int] = {**dict.fromkeys(_DWORD, 4), **dict.fromkeys(_WORD, 2), **dict.fromkeys(_BYTE, 1)}
STRING_IDS = frozenset(_STRING)

_ITEM_HEAD = struct.Struct(">IB")


@dataclass(frozen=True)
class TerminalParam:
    """``value``: int for numeric standard parameters, str for text ones, bytes otherwise."""

    id: int
    value: int | str | bytes

    def encode(self) -> bytes:
        value = self.value
        if isinstance(value, bytes):
            data = value
        elif isinstance(value, str):
            data = encode_text(value)
        else:
            size = NUMBER_SIZE.get(self.id)
            if size is None:
                raise ValueError(f"parameter 0x{self.id:04X} has no numeric type; pass bytes")
            data = value.to_bytes(size, "big")
        if len(data) > 0xFF:
            raise ValueError(f"parameter 0x{self.id:04X} value exceeds 255 bytes")
        return _ITEM_HEAD.pack(self.id, len(data)) + data


def decode_value(param_id: int, raw: bytes) -> int | str | bytes:
    if NUMBER_SIZE.get(param_id) == len(raw):
        return int.from_bytes(raw, "big")
    if param_id in STRING_IDS:
        return decode_text(raw)
    return raw


def decode_params(body: bytes, pos: int, count: int, name: str) -> tuple[TerminalParam, ...]:
    """``count`` parameters from ``body[pos:]``. Raises BodyError when one overruns the body."""
    params = []
    for index in range(count):
        if pos + _ITEM_HEAD.size > len(body):
            raise BodyError(f"{name} announces {count} parameters, body ends after {index}")
        param_id, length = _ITEM_HEAD.unpack_from(body, pos)
        pos += _ITEM_HEAD.size
        if pos + length > len(body):
            raise BodyError(f"{name} parameter 0x{param_id:04X} of {length} bytes overruns the body")
        params.append(TerminalParam(param_id, decode_value(param_id, body[pos : pos + length])))
        pos += length
    return tuple(params)


def encode_params(params: tuple[TerminalParam, ...]) -> bytes:
    if len(params) > 0xFF:
        raise ValueError("at most 255 parameters per message")
    return bytes((len(params),)) + b"".join(p.encode() for p in params)
