"""Wire numbers -> values with units, and back (GB/T 32960.3-2016 §7.2.3, "abnormal" and "invalid").

A field of 1, 2 or 4 bytes whose table says so reserves its two highest raw values: 0xFE / 0xFFFE /
0xFFFFFFFE mean "abnormal" and 0xFF / 0xFFFF / 0xFFFFFFFF "invalid". Those decode to ``Special``
members, never to numbers, so no one scales or averages them. Other values become ``raw * scale +
offset``, rounded to the scale's decimals (an int when the scale is 1).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from protocols.china_time import CHINA_TZ
from protocols.gb32960.errors import BodyError

_FORMATS = {1: "B", 2: "H", 4: "I"}


class Special(Enum):
    ABNORMAL = "abnormal"
    INVALID = "invalid"


Reading = int | float | Special


@dataclass(frozen=True, slots=True)
class Field:
    """One fixed-size number: ``name`` (with its unit), ``width`` in bytes, ``scale``, ``offset``,
    ``special`` when the two highest raw values mean abnormal / invalid."""

    name: str
    width: int
    scale: float = 1
    offset: float = 0
    special: bool = True

    @property
    def decimals(self) -> int:
        text = f"{self.scale:.10f}".rstrip("0")
        return len(text.split(".")[1]) if self.scale != 1 and "." in text else 0


def to_value(field: Field, raw: int) -> Reading:
    top = (1 << (8 * field.width)) - 1
    if field.special and raw == top:
        return Special.INVALID
    if field.special and raw == top - 1:
        return Special.ABNORMAL
    if field.scale == 1:
        return raw + int(field.offset)
    return round(raw * field.scale + field.offset, field.decimals)


def to_raw(field: Field, value: Reading) -> int:
    """The wire number of ``value``. Raises ValueError when it is out of the field's range."""
    top = (1 << (8 * field.width)) - 1
    if isinstance(value, Special):
        if not field.special:
            raise ValueError(f"{field.name} has no {value.value} state")
        return top if value is Special.INVALID else top - 1
    raw = round((value - field.offset) / field.scale)
    limit = top - 2 if field.special else top
    if not 0 <= raw <= limit:
        raise ValueError(f"{field.name} {value} is out of range")
    return raw


def need(data: bytes, at: int, size: int, what: str) -> None:
    if at + size > len(data):
        raise BodyError(f"{what} needs {size} bytes at offset {at}, {max(0, len(data) - at)} left")


def read_fields(fields: tuple[Field, ...], data: bytes, at: int, what: str) -> tuple[list[Reading], int]:
    size = sum(f.width for f in fields)
    need(data, at, size, what)
    raws = struct.unpack_from(">" + "".join(_FORMATS[f.width] for f in fields), data, at)
    return [to_value(f, r) for f, r in zip(fields, raws, strict=True)], at + size


def write_fields(fields: tuple[Field, ...], values: list[Any]) -> bytes:
    fmt = ">" + "".join(_FORMATS[f.width] for f in fields)
    return struct.pack(fmt, *(to_raw(f, v) for f, v in zip(fields, values, strict=True)))


def read_list(field: Field, count: int, data: bytes, at: int, what: str) -> tuple[tuple[Reading, ...], int]:
    values, at = read_fields((field,) * count, data, at, what)
    return tuple(values), at


def read_uint(data: bytes, at: int, width: int, what: str) -> tuple[int, int]:
    need(data, at, width, what)
    return int.from_bytes(data[at : at + width], "big"), at + width


TIME_BYTES = 6


def read_time(data: bytes, at: int, what: str = "time") -> tuple[datetime, int]:
    """6 bytes year-2000, month, day, hour, minute, second in GMT+8 (§6.4) -> aware UTC."""
    need(data, at, TIME_BYTES, what)
    y, mo, d, h, mi, s = data[at : at + TIME_BYTES]
    try:
        local = datetime(2000 + y, mo, d, h, mi, s, tzinfo=CHINA_TZ)
    except ValueError:
        raise BodyError(f"{what} {data[at:at + TIME_BYTES].hex()} is not a date and time") from None
    return local.astimezone(UTC), at + TIME_BYTES


def write_time(moment: datetime) -> bytes:
    local = moment.astimezone(CHINA_TZ)
    if not 2000 <= local.year <= 2255:
        raise ValueError(f"time {moment} cannot be sent (years 2000-2255)")
    return bytes((local.year - 2000, local.month, local.day, local.hour, local.minute, local.second))


def read_text(data: bytes, at: int, size: int, what: str) -> tuple[str, int]:
    """Fixed-width ASCII, NUL-padded on the right (Latin-1 keeps any byte so it re-encodes)."""
    need(data, at, size, what)
    return data[at : at + size].rstrip(b"\x00").decode("latin-1"), at + size


def write_text(text: str, size: int, what: str) -> bytes:
    raw = text.encode("latin-1")
    if len(raw) > size:
        raise ValueError(f"{what} {text!r} is longer than {size} bytes")
    return raw.ljust(size, b"\x00")
