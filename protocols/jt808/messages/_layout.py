"""Declarative message bodies (growing.md §4): a body is a tuple of fields, and decode, encode, bounds
checks and error messages (naming the field and its byte offset) follow from it.

Field kinds: ``u8``/``u16``/``u32``/``u64`` (BYTE/WORD/DWORD/64BITS, big-endian), ``time`` (BCD[6]
in GMT+8 <-> aware UTC), ``opt_time`` (the same, all zeros <-> None: "no limit"), ``str8`` (a BYTE
length then GBK text, 0-255 bytes). Used by the JT/T 1078 messages (0x9101 ... 0x1206); the older
hand-written bodies stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import bcd_time_to_utc, decode_text, utc_to_bcd_time

_INT_SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}
_NO_TIME = bytes(6)


@dataclass(frozen=True)
class Field:
    name: str
    kind: str

    def __post_init__(self) -> None:
        if self.kind not in (*_INT_SIZES, "time", "opt_time", "str8"):
            raise ValueError(f"unknown field kind {self.kind!r}")


def fields(spec: str) -> tuple[Field, ...]:
    """``"channel:u8 start:time ip:str8"`` -> fields (a compact way to write a layout)."""
    return tuple(Field(*item.split(":")) for item in spec.split())


class Layout:
    """A body layout. ``decode`` -> dict of field values; ``encode(values)`` -> bytes."""

    def __init__(self, name: str, spec: str) -> None:
        self.name = name
        self.fields = fields(spec)
        self.min_size = sum(_INT_SIZES.get(f.kind, 6 if "time" in f.kind else 1) for f in self.fields)

    def decode(self, body: bytes, at: int = 0) -> tuple[dict[str, Any], int]:
        """(values, offset after the last field). Raises BodyError naming the field that overruns."""
        out: dict[str, Any] = {}
        for field in self.fields:
            kind = field.kind
            size = _INT_SIZES.get(kind)
            if size is not None:
                self._need(body, at, size, field)
                out[field.name] = int.from_bytes(body[at:at + size], "big")
                at += size
            elif kind == "str8":
                self._need(body, at, 1, field)
                length = body[at]
                self._need(body, at + 1, length, field)
                out[field.name] = decode_text(body[at + 1:at + 1 + length])
                at += 1 + length
            else:
                self._need(body, at, 6, field)
                raw = body[at:at + 6]
                try:
                    out[field.name] = None if kind == "opt_time" and raw == _NO_TIME else bcd_time_to_utc(raw)
                except BodyError as exc:
                    raise BodyError(f"{self.name} {field.name} at byte {at}: {exc}") from None
                at += 6
        return out, at

    def encode(self, values: dict[str, Any]) -> bytes:
        """Raises ValueError naming the field for a number out of range, a text over 255 bytes (GBK),
        or a naive / out-of-range time."""
        out = bytearray()
        for field in self.fields:
            value = values[field.name]
            kind = field.kind
            size = _INT_SIZES.get(kind)
            try:
                if size is not None:
                    out += int(value).to_bytes(size, "big")
                elif kind == "str8":
                    raw = str(value).encode("gbk")
                    if len(raw) > 0xFF:
                        raise ValueError(f"{len(raw)} bytes, at most 255")
                    out += bytes((len(raw),)) + raw
                elif value is None and kind == "opt_time":
                    out += _NO_TIME
                else:
                    if not isinstance(value, datetime):
                        raise ValueError(f"expected a datetime, got {type(value).__name__}")
                    out += utc_to_bcd_time(value)
            except (OverflowError, ValueError, UnicodeError) as exc:
                raise ValueError(f"{self.name} {field.name}: {exc}") from None
        return bytes(out)

    def _need(self, body: bytes, at: int, size: int, field: Field) -> None:
        if at + size > len(body):
            raise BodyError(f"{self.name} {field.name} at byte {at} needs {size} bytes, "
                            f"the body has {max(0, len(body) - at)} left")


class Declared:
    """Mixin for frozen dataclasses whose fields are exactly ``LAYOUT``'s, in order."""

    LAYOUT: ClassVar[Layout]

    @classmethod
    def decode(cls, body: bytes, version: str) -> Any:
        values, _ = cls.LAYOUT.decode(body)
        return cls(**values)

    def encode(self, version: str) -> bytes:
        return self.LAYOUT.encode(self.__dict__)
