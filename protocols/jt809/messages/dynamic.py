"""Vehicle dynamic information exchange, 0x1200 (main link) and 0x9200 (sub link).

Every body starts with the sub-business header (JT/T 809-2011 §5.3.3 / -2019 §5.3.3): VEHICLE_NO
BYTE[21] (GBK plate), VEHICLE_COLOR BYTE, DATA_TYPE UINT16 (the sub-business id), DATA_LENGTH UINT32,
then DATA. Typed data: vehicle registration (0x1201, 2019 layout), real-time positions (0x1202 / 0x9202) and back-filled positions (0x1203 /
0x9203: a count BYTE, then that many positions) in the 2011 and 2019 layouts; every other data type is
kept as bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import PLATE_BYTES, decode_fixed, encode_fixed, need
from protocols.jt809.messages.positions import GNSS_2011_BYTES, Gnss2011, Gnss2019

_SUB_HEADER = struct.Struct(f">{PLATE_BYTES}sBHI")
SUB_HEADER_BYTES = _SUB_HEADER.size  # 28
MAX_POSITIONS = 255  # the count is one byte

Position = Gnss2011 | Gnss2019


def _decode_position(body: bytes, offset: int, version: str) -> tuple[Position, int]:
    if version == "2019":
        return Gnss2019.decode_from(body, offset)
    need(body[offset:], GNSS_2011_BYTES, "2011 GNSS record")
    return Gnss2011.decode(body[offset : offset + GNSS_2011_BYTES]), offset + GNSS_2011_BYTES


def _check_layout(position: Position, version: str) -> None:
    if isinstance(position, Gnss2019) != (version == "2019"):
        raise ValueError(f"a {type(position).__name__} cannot be sent in a {version} body")


@dataclass(frozen=True)
class RealTimePosition:
    """0x1202 real-time position (the same layout as 0x9202, a position the superior exchanges)."""

    DATA_TYPE: ClassVar[int] = 0x1202
    position: Position

    @classmethod
    def decode(cls, data: bytes, version: str) -> RealTimePosition:
        position, end = _decode_position(data, 0, version)
        if end != len(data):
            raise BodyError(f"0x{cls.DATA_TYPE:04X} data is {len(data)} bytes, the position {end}")
        return cls(position)

    def encode(self, version: str) -> bytes:
        _check_layout(self.position, version)
        return self.position.encode()


@dataclass(frozen=True)
class BackfilledPositions:
    """0x1203 back-filled positions (1 to 255, oldest first; 0x9203 has the same layout)."""

    DATA_TYPE: ClassVar[int] = 0x1203
    positions: tuple[Position, ...]

    @classmethod
    def decode(cls, data: bytes, version: str) -> BackfilledPositions:
        need(data, 1, f"0x{cls.DATA_TYPE:04X} data")
        offset = 1
        positions = []
        for _ in range(data[0]):
            position, offset = _decode_position(data, offset, version)
            positions.append(position)
        if offset != len(data):
            raise BodyError(f"0x{cls.DATA_TYPE:04X} data is {len(data)} bytes, {data[0]} positions take {offset}")
        return cls(tuple(positions))

    def encode(self, version: str) -> bytes:
        if not 1 <= len(self.positions) <= MAX_POSITIONS:
            raise ValueError(f"a back-fill carries 1 to {MAX_POSITIONS} positions, got {len(self.positions)}")
        for position in self.positions:
            _check_layout(position, version)
        return bytes((len(self.positions),)) + b"".join(p.encode() for p in self.positions)


@dataclass(frozen=True)
class ExchangedPosition(RealTimePosition):
    """0x9202 a position the superior platform exchanges (the 0x1202 layout)."""

    DATA_TYPE: ClassVar[int] = 0x9202


@dataclass(frozen=True)
class ExchangedBackfill(BackfilledPositions):
    """0x9203 back-filled positions the superior platform exchanges (the 0x1203 layout)."""

    DATA_TYPE: ClassVar[int] = 0x9203


@dataclass(frozen=True)
class VehicleRegistration:
    """0x1201 上传车辆注册信息, 2019 layout: PLATFORM_ID[11], PRODUCER_ID[11], TERMINAL_MODEL_TYPE[30],
    IMEI[15], TERMINAL_ID[30], TERMINAL_SIMCODE[13]. A 2011 body (no public vector) stays bytes."""

    DATA_TYPE: ClassVar[int] = 0x1201
    platform_id: str
    producer_id: str
    terminal_model: str
    imei: str
    terminal_id: str
    sim: str

    _SIZES: ClassVar[tuple[int, ...]] = (11, 11, 30, 15, 30, 13)

    @classmethod
    def decode(cls, data: bytes, version: str) -> VehicleRegistration | bytes:
        if version != "2019":
            return bytes(data)
        if len(data) != sum(cls._SIZES):
            raise BodyError(f"0x1201 (2019) is {sum(cls._SIZES)} bytes, got {len(data)}")
        fields, at = [], 0
        for size in cls._SIZES:
            fields.append(decode_fixed(data[at : at + size], "0x1201 field"))
            at += size
        return cls(*fields)

    def encode(self, version: str) -> bytes:
        if version != "2019":
            raise ValueError("0x1201 is typed in its 2019 layout only; send a 2011 body as bytes")
        values = (self.platform_id, self.producer_id, self.terminal_model, self.imei, self.terminal_id, self.sim)
        return b"".join(encode_fixed(v, size, "0x1201 field") for v, size in zip(values, self._SIZES, strict=True))


DATA_DECODERS: dict[int, Callable[[bytes, str], Any]] = {
    cls.DATA_TYPE: cls.decode
    for cls in (VehicleRegistration, RealTimePosition, BackfilledPositions, ExchangedPosition, ExchangedBackfill)
}


class VehicleFamily:
    """The sub-business header and its data: a typed data object (with ``DATA_TYPE``) or bytes. The
    families with this header (0x1200, 0x1500, 0x1600 and their 0x9xxx twins) subclass it with their
    own ``DATA_DECODERS``."""

    MSG_ID: ClassVar[int]
    DATA_DECODERS: ClassVar[dict[int, Callable[[bytes, str], Any]]] = {}
    plate: str
    plate_colour: int
    data_type: int
    data: Any

    @classmethod
    def decode(cls, body: bytes, version: str) -> VehicleFamily:
        what = f"0x{cls.MSG_ID:04X}"
        need(body, SUB_HEADER_BYTES, f"{what} sub-business header")
        raw_plate, colour, data_type, length = _SUB_HEADER.unpack_from(body)
        data = body[SUB_HEADER_BYTES:]
        if length != len(data):
            raise BodyError(f"{what} DATA_LENGTH {length} but {len(data)} bytes follow (data type 0x{data_type:04X})")
        decoder = cls.DATA_DECODERS.get(data_type)
        typed = decoder(data, version) if decoder is not None else bytes(data)
        return cls(decode_fixed(raw_plate, "plate"), colour, data_type, typed)  # type: ignore[call-arg]

    def encode(self, version: str) -> bytes:
        data = self.data if isinstance(self.data, bytes | bytearray) else self.data.encode(version)
        return _SUB_HEADER.pack(encode_fixed(self.plate, PLATE_BYTES, "plate"), self.plate_colour, self.data_type,
                                len(data)) + bytes(data)


@register_body
@dataclass(frozen=True)
class VehicleDynamic(VehicleFamily):
    """0x1200 main link vehicle dynamic information (0x1201 ... 0x120D)."""

    MSG_ID: ClassVar[int] = 0x1200
    DATA_DECODERS: ClassVar[dict[int, Callable[[bytes, str], Any]]] = DATA_DECODERS
    plate: str
    plate_colour: int
    data_type: int
    data: Any

    @classmethod
    def position(cls, plate: str, plate_colour: int, position: Position) -> VehicleDynamic:
        return cls(plate, plate_colour, RealTimePosition.DATA_TYPE, RealTimePosition(position))

    @classmethod
    def backfill(cls, plate: str, plate_colour: int, positions: tuple[Position, ...]) -> VehicleDynamic:
        return cls(plate, plate_colour, BackfilledPositions.DATA_TYPE, BackfilledPositions(positions))


@register_body
@dataclass(frozen=True)
class VehicleDynamicDown(VehicleFamily):
    """0x9200 sub link vehicle dynamic information (0x9202 ... 0x920B)."""

    MSG_ID: ClassVar[int] = 0x9200
    DATA_DECODERS: ClassVar[dict[int, Callable[[bytes, str], Any]]] = DATA_DECODERS
    plate: str
    plate_colour: int
    data_type: int
    data: Any
