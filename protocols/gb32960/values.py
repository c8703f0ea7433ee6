"""Wire numbers -> values with units, and back (GB/T 32960.3-2016 §7.2.3, "abnormal" and "invalid").

A field of 1, 2 or 4 bytes whose table says so reserves its two highest raw values: 0xFE / 0xFFFE /
0xFFFFFFFE mean "abnormal" and 0xFF / 0xFFFF / 0xFFFFFFFF "invalid". Those decode to ``Special``
members, never to numbers, so no one scales or averages them. Other values become ``raw * scale +
offset``, rounded to the scale's decimals (an int when the scale is 1).
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from itertools import repeat
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
    decimals: int = field(init=False, compare=False)
    top: int = field(init=False, compare=False)  # the highest raw value: invalid when ``special``
    # For a decimal scale (10^-k) and an offset that is a whole number of steps, value = (raw +
    # raw_offset) / divisor: one correctly rounded division, the same float as rounding to k decimals.
    divisor: int = field(init=False, compare=False)
    raw_offset: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        text = f"{self.scale:.10f}".rstrip("0")
        decimals = len(text.split(".")[1]) if self.scale != 1 and "." in text else 0
        steps = self.offset / self.scale
        exact = abs(self.scale * 10**decimals - 1) < 1e-12 and abs(steps - round(steps)) < 1e-9
        object.__setattr__(self, "decimals", decimals)
        object.__setattr__(self, "top", (1 << (8 * self.width)) - 1)
        object.__setattr__(self, "divisor", 10**decimals if exact else 0)
        object.__setattr__(self, "raw_offset", round(steps) if exact else 0)


def to_value(field: Field, raw: int) -> Reading:
    if field.special and raw >= field.top - 1:
        return Special.INVALID if raw == field.top else Special.ABNORMAL
    if field.scale == 1:
        return raw + int(field.offset)
    if field.divisor:
        return (raw + field.raw_offset) / field.divisor
    return round(raw * field.scale + field.offset, field.decimals)


def to_raw(field: Field, value: Reading) -> int:
    """The wire number of ``value``. Raises ValueError when it is out of the field's range."""
    top = field.top
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


Convert = Callable[[tuple[int, ...]], list[Reading]]
_LAYOUTS: dict[int, tuple[tuple[Field, ...], struct.Struct, Convert]] = {}


def _layout(fields: tuple[Field, ...]) -> tuple[struct.Struct, Convert]:
    """The wire layout of a field list and its converter, found by the list's identity: the blocks' field lists
    are module constants, and a cache keyed by the tuple itself hashed every field of it on every frame (a tenth
    of a 96-cell frame's decode). The list is kept with its layout, so its id cannot be reused; at most 256 kept."""
    known = _LAYOUTS.get(id(fields))
    if known is not None and known[0] is fields:
        return known[1], known[2]
    layout = struct.Struct(">" + "".join(_FORMATS[f.width] for f in fields))
    convert = _converter(fields)
    if len(_LAYOUTS) < 256:
        _LAYOUTS[id(fields)] = (fields, layout, convert)
    return layout, convert


def _converter(fields: tuple[Field, ...]) -> Convert:
    """One function giving ``[to_value(f, raw) for f, raw in zip(fields, raws)]``, each field's rule written out
    in it (a whole number, one division, or ``to_value`` itself for any other scale), so a block's fixed fields
    cost no call each: ~50 calls a 96-cell frame, a third of its decode. Built from the fields' numbers only
    (module constants, never input); tests/unit/protocols/test_gb32960_values.py checks it against ``to_value``."""
    scope: dict[str, Any] = {"ABNORMAL": Special.ABNORMAL, "INVALID": Special.INVALID, "to_value": to_value}
    names, values = [], []
    for i, f in enumerate(fields):
        raw = f"r{i}"
        names.append(raw)
        if f.scale == 1:
            value = raw if int(f.offset) == 0 else f"{raw} + {int(f.offset)}"
        elif f.divisor:
            value = f"({raw} + {f.raw_offset}) / {f.divisor}" if f.raw_offset else f"{raw} / {f.divisor}"
        else:
            scope[f"f{i}"] = f
            values.append(f"to_value(f{i}, {raw})")
            continue
        if f.special:
            value = f"((INVALID if {raw} == {f.top} else ABNORMAL) if {raw} >= {f.top - 1} else {value})"
        values.append(value)
    source = f"def convert(raws):\n    {', '.join(names)}, = raws\n    return [{', '.join(values)}]\n"
    exec(compile(source, f"<gb32960 fields {', '.join(f.name for f in fields)}>", "exec"), scope)
    return scope["convert"]


def read_fields(fields: tuple[Field, ...], data: bytes, at: int, what: str) -> tuple[list[Reading], int]:
    layout, convert = _layout(fields)
    need(data, at, layout.size, what)
    return convert(layout.unpack_from(data, at)), at + layout.size


def write_fields(fields: tuple[Field, ...], values: list[Any]) -> bytes:
    return struct.pack(">" + "".join(_FORMATS[f.width] for f in fields),
                       *(to_raw(f, v) for f, v in zip(fields, values, strict=True)))


def write_list(field: Field, values: tuple[Reading, ...] | list[Reading]) -> bytes:
    """``values`` of one field (cell voltages, probe temperatures), the bytes of ``write_fields`` for the same
    fields: each raw number by ``to_raw``'s rule, computed over the list in C (``map``), then checked against the
    field's range at once. A list with an abnormal / invalid value, or out of range, goes value by value (which
    raises naming the field)."""
    try:
        raws = list(map(round, map(operator.truediv, map(operator.sub, values, repeat(field.offset)),
                                   repeat(field.scale))))
    except TypeError:  # a Special among them
        return write_fields((field,) * len(values), list(values))
    limit = field.top - 2 if field.special else field.top
    if raws and (min(raws) < 0 or max(raws) > limit):
        return write_fields((field,) * len(values), list(values))
    return struct.pack(f">{len(raws)}{_FORMATS[field.width]}", *raws)


def read_list(field: Field, count: int, data: bytes, at: int, what: str) -> tuple[tuple[Reading, ...], int]:
    """``count`` values of one field (cell voltages, probe temperatures): the hot path of a big pack."""
    size = field.width * count
    need(data, at, size, what)
    raws = struct.unpack_from(f">{count}{_FORMATS[field.width]}", data, at)
    if not field.special or max(raws, default=0) < field.top - 1:
        # map over operator functions: the arithmetic of a 96-cell pack in C, not in a generator
        if field.scale == 1:
            whole = int(field.offset)
            return (raws if whole == 0 else tuple(map(operator.add, raws, repeat(whole)))), at + size
        if field.divisor and not field.raw_offset:
            return tuple(map(operator.truediv, raws, repeat(field.divisor))), at + size
    return tuple(to_value(field, r) for r in raws), at + size


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
