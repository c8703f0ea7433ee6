"""The shape every real-time information block follows, and the per-protocol block tables.

A block class has ``INFO_TYPE``, ``decode(data, at) -> (block, next offset)`` and ``encode() -> bytes``
(without its type byte). ``FixedBlock`` declares its fields once (``FIELDS``) and gets both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Self

from protocols.gb32960.errors import BodyError
from protocols.gb32960.header import Protocol
from protocols.gb32960.values import Field, read_fields, read_uint, write_fields

# Protocol -> info type -> block class; filled by the block modules as they are imported.
BLOCKS: dict[Protocol, dict[int, Any]] = {p: {} for p in Protocol}


def register_block(*protocols: Protocol) -> Any:
    def add(cls: Any) -> Any:
        for protocol in protocols:
            BLOCKS[protocol][cls.INFO_TYPE] = cls
        return cls
    return add


class FixedBlock:
    """A block of fixed fields: the dataclass fields are ``FIELDS`` in wire order."""

    INFO_TYPE: ClassVar[int]
    FIELDS: ClassVar[tuple[Field, ...]]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        values, at = read_fields(cls.FIELDS, data, at, f"info type 0x{cls.INFO_TYPE:02X}")
        return cls(*values), at

    def encode(self) -> bytes:
        return write_fields(self.FIELDS, [getattr(self, f.name) for f in self.FIELDS])


@dataclass(frozen=True, slots=True)
class CustomBlock:
    """A user-defined block (0x80 ... 0xFE, §7.2.3.10): a 2-byte length, then bytes kept as they are."""

    info_type: int
    data: bytes

    @classmethod
    def decode_typed(cls, info_type: int, data: bytes, at: int) -> tuple[CustomBlock, int]:
        size, at = read_uint(data, at, 2, f"custom block 0x{info_type:02X} length")
        body, end = data[at : at + size], at + size
        if end > len(data):
            raise BodyError(f"custom block 0x{info_type:02X} announces {size} bytes, {len(data) - at} left")
        return cls(info_type, bytes(body)), end

    def encode(self) -> bytes:
        return len(self.data).to_bytes(2, "big") + self.data


@dataclass(frozen=True, slots=True)
class UnparsedTail:
    """A block whose layout this codec does not know (reserved types, and 2025 types no public source
    gives): its length is not on the wire, so it and everything after it are kept as bytes."""

    info_type: int
    data: bytes

    def encode(self) -> bytes:
        return self.data
