"""Real-time (0x02) and back-filled (0x03) data: a collection time, then information blocks until the
end of the data unit (GB/T 32960.3-2016 §7.2.1; GB 17691 annex Q.6.2 adds a 2-byte serial after the time).

Blocks decode by the protocol's table (``_blocks.BLOCKS``); a user-defined type (0x80 ... 0xFE) is kept
as bytes with its 2-byte length; any other unknown type ends the typed part (its length is not on the
wire) and the rest is kept as ``UnparsedTail``.

One public library (SmallChi's JTNE) writes 32960 real-time data without the collection time. When the
standard layout does not parse and the data unit parses completely without a time, it is read that way
with ``collected_at = None`` (and encoded back the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Self

from protocols.gb32960.codec import register_body
from protocols.gb32960.errors import BodyError
from protocols.gb32960.header import Protocol
from protocols.gb32960.messages import blocks_2016, blocks_2025, emission  # noqa: F401  (fill the tables)
from protocols.gb32960.messages._blocks import BLOCKS, CustomBlock, UnparsedTail
from protocols.gb32960.values import read_time, read_uint, write_time

CUSTOM_TYPES = range(0x80, 0xFF)


def decode_blocks(data: bytes, at: int, protocol: Protocol) -> tuple[Any, ...]:
    table = BLOCKS[protocol]
    blocks: list[Any] = []
    while at < len(data):
        info_type = data[at]
        cls = table.get(info_type)
        if cls is not None:
            block, at = cls.decode(data, at + 1)
        elif info_type in CUSTOM_TYPES:
            block, at = CustomBlock.decode_typed(info_type, data, at + 1)
        else:
            blocks.append(UnparsedTail(info_type, bytes(data[at:])))
            break
        blocks.append(block)
    return tuple(blocks)


def _has_tail(blocks: tuple[Any, ...]) -> bool:
    return any(isinstance(b, UnparsedTail) for b in blocks)


def encode_blocks(blocks: tuple[Any, ...]) -> bytes:
    out = b""
    for block in blocks:
        if isinstance(block, UnparsedTail):
            out += block.data
            continue
        info_type = block.info_type if isinstance(block, CustomBlock) else block.INFO_TYPE
        out += bytes((info_type,)) + block.encode()
    return out


@register_body
@dataclass(frozen=True)
class RealtimeReport:
    """0x02: ``collected_at`` (aware UTC; None only for the time-less library form) and the blocks."""

    COMMAND: ClassVar[int] = 0x02
    collected_at: datetime | None
    blocks: tuple[Any, ...]

    def block(self, block_type: type) -> Any:
        """The first block of that class, or None."""
        return next((b for b in self.blocks if isinstance(b, block_type)), None)

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Self:
        standard: Self | None = None
        error: BodyError | None = None
        try:
            collected_at, at = read_time(data, 0, "collection time")
            standard = cls(collected_at, decode_blocks(data, at, protocol))
        except BodyError as exc:
            error = exc
        if standard is not None and not _has_tail(standard.blocks):
            return standard
        try:  # the time-less library form, accepted only when it explains every byte
            timeless = decode_blocks(data, 0, protocol)
        except BodyError:
            timeless = None
        if timeless and not _has_tail(timeless):
            return cls(None, timeless)
        if standard is not None:
            return standard
        assert error is not None
        raise error

    def encode(self, protocol: Protocol) -> bytes:
        time = write_time(self.collected_at) if self.collected_at is not None else b""
        return time + encode_blocks(self.blocks)


@register_body
@dataclass(frozen=True)
class ReissuedReport(RealtimeReport):
    """0x03: back-filled data, the same layout as 0x02."""

    COMMAND: ClassVar[int] = 0x03


@register_body
@dataclass(frozen=True)
class EmissionReport:
    """0x02 (GB 17691 annex Q / HJ 1239): collection time, information serial, then OBD and data-stream blocks."""

    COMMAND: ClassVar[int] = 0x02
    FAMILIES: ClassVar[tuple[str, ...]] = ("gb17691",)
    collected_at: datetime
    serial: int
    blocks: tuple[Any, ...]

    def block(self, block_type: type) -> Any:
        return next((b for b in self.blocks if isinstance(b, block_type)), None)

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Self:
        collected_at, at = read_time(data, 0, "collection time")
        serial, at = read_uint(data, at, 2, "information serial")
        return cls(collected_at, serial, decode_blocks(data, at, protocol))

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.collected_at) + self.serial.to_bytes(2, "big") + encode_blocks(self.blocks)


@register_body
@dataclass(frozen=True)
class EmissionReissued(EmissionReport):
    COMMAND: ClassVar[int] = 0x03
    FAMILIES: ClassVar[tuple[str, ...]] = ("gb17691",)
