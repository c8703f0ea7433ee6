"""Alarm information exchange, 0x1400 (main link) and 0x9400 (sub link).

The family header differs by version: 2011 starts with VEHICLE_NO BYTE[21] and VEHICLE_COLOR BYTE
before DATA_TYPE UINT16 and DATA_LENGTH UINT32; 2019 has no plate or colour (the public 2019 frames
start with the data type). Times are UINT64 UTC seconds. Typed data, where public vectors back the
layout:
- 2011: 0x9401 urging (督办) request, 0x1401 its answer (SUPERVISION_ID BYTE[4], RESULT BYTE), 0x1403
  handling result (INFO_ID UINT32, RESULT BYTE);
- 2019: 0x1402 alarm report, 0x1401 urging answer (SUPERVISION_ID, SOURCE_DATA_TYPE, SOURCE_MSG_SN,
  RESULT).
Every other data type, in either version, is kept as bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import (
    PLATE_BYTES,
    PLATFORM_ID_BYTES,
    decode_fixed,
    decode_id,
    encode_fixed,
    encode_id,
    exact,
    need,
)

_HEADER_2011 = struct.Struct(f">{PLATE_BYTES}sBHI")
_HEADER_2019 = struct.Struct(">HI")


def _time(seconds: int) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise BodyError(f"time {seconds} is not UTC seconds") from None


def _seconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        raise ValueError("alarm times must be timezone-aware (UTC)")
    return int(moment.timestamp())


@dataclass(frozen=True)
class UrgingRequest:
    """0x9401 报警督办请求 (2011): ``supervision_id`` is the 4 bytes as hex."""

    DATA_TYPE: ClassVar[int] = 0x9401
    warn_src: int
    warn_type: int
    warn_time: datetime
    supervision_id: str
    end_time: datetime
    level: int
    supervisor: str
    supervisor_tel: str
    supervisor_email: str

    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">BHQ4sQB16s20s32s")

    @classmethod
    def decode(cls, data: bytes, version: str) -> UrgingRequest:
        exact(data, cls._LAYOUT.size, "0x9401 (2011)")
        src, kind, warn, sid, end, level, who, tel, mail = cls._LAYOUT.unpack(data)
        return cls(src, kind, _time(warn), sid.hex().upper(), _time(end), level, decode_fixed(who, "SUPERVISOR"),
                   decode_fixed(tel, "SUPERVISOR_TEL"), decode_fixed(mail, "SUPERVISOR_EMAIL"))

    def encode(self, version: str) -> bytes:
        return self._LAYOUT.pack(self.warn_src, self.warn_type, _seconds(self.warn_time),
                                 bytes.fromhex(self.supervision_id), _seconds(self.end_time), self.level,
                                 encode_fixed(self.supervisor, 16, "SUPERVISOR"),
                                 encode_fixed(self.supervisor_tel, 20, "SUPERVISOR_TEL"),
                                 encode_fixed(self.supervisor_email, 32, "SUPERVISOR_EMAIL"))


@dataclass(frozen=True)
class UrgingAnswer:
    """0x1401 报警督办应答: 2011 SUPERVISION_ID + RESULT; 2019 adds the request's data type and SN
    (None in 2011). ``supervision_id`` is the 4 bytes as hex."""

    DATA_TYPE: ClassVar[int] = 0x1401
    supervision_id: str
    result: int
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> UrgingAnswer:
        if version != "2019":
            exact(data, 5, "0x1401 (2011)")
            return cls(data[:4].hex().upper(), data[4])
        exact(data, 11, "0x1401 (2019)")
        source_type, source_sn, result = struct.unpack_from(">HIB", data, 4)
        return cls(data[:4].hex().upper(), result, source_type, source_sn)

    def encode(self, version: str) -> bytes:
        sid = bytes.fromhex(self.supervision_id)
        if version != "2019":
            return sid + bytes((self.result,))
        return sid + struct.pack(">HIB", self.source_data_type or 0, self.source_sn or 0, self.result)


@dataclass(frozen=True)
class HandlingResult:
    """0x1403 主动上报报警处理结果信息 (2011): the alarm's INFO_ID and the handling RESULT."""

    DATA_TYPE: ClassVar[int] = 0x1403
    info_id: int
    result: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> HandlingResult:
        exact(data, 5, "0x1403 (2011)")
        return cls(int.from_bytes(data[:4], "big"), data[4])

    def encode(self, version: str) -> bytes:
        return struct.pack(">IB", self.info_id, self.result)


@dataclass(frozen=True)
class AlarmReport:
    """0x1402 上报报警信息 (2019): the alarm of a vehicle, from a source platform to a destination one."""

    DATA_TYPE: ClassVar[int] = 0x1402
    source_platform: str
    warn_type: int
    warn_time: datetime
    start_time: datetime
    end_time: datetime
    plate: str
    plate_colour: int
    destination_platform: str
    line_id: int
    content: str

    _FIXED: ClassVar[struct.Struct] = struct.Struct(f">{PLATFORM_ID_BYTES}sHQQQ{PLATE_BYTES}sB{PLATFORM_ID_BYTES}sII")

    @classmethod
    def decode(cls, data: bytes, version: str) -> AlarmReport:
        need(data, cls._FIXED.size, "0x1402 (2019)")
        src, kind, warn, start, end, plate, colour, dest, line, length = cls._FIXED.unpack_from(data)
        if len(data) - cls._FIXED.size != length:
            raise BodyError(f"0x1402 INFO_LENGTH {length} but {len(data) - cls._FIXED.size} bytes follow")
        return cls(decode_id(src), kind, _time(warn), _time(start), _time(end), decode_fixed(plate, "plate"), colour,
                   decode_id(dest), line, decode_fixed(data[cls._FIXED.size :], "INFO_CONTENT"))

    def encode(self, version: str) -> bytes:
        content = self.content.encode("gbk")
        return self._FIXED.pack(encode_id(self.source_platform), self.warn_type, _seconds(self.warn_time),
                                _seconds(self.start_time), _seconds(self.end_time),
                                encode_fixed(self.plate, PLATE_BYTES, "plate"), self.plate_colour,
                                encode_id(self.destination_platform), self.line_id, len(content)) + content


DATA_DECODERS: dict[str, dict[int, Callable[[bytes, str], Any]]] = {
    "2011": {cls.DATA_TYPE: cls.decode for cls in (UrgingRequest, UrgingAnswer, HandlingResult)},
    "2019": {cls.DATA_TYPE: cls.decode for cls in (AlarmReport, UrgingAnswer)},
}


class _AlarmExchange:
    """``plate`` / ``plate_colour`` exist in 2011 only (None in 2019)."""

    MSG_ID: ClassVar[int]
    data_type: int
    data: Any
    plate: str | None
    plate_colour: int | None

    @classmethod
    def decode(cls, body: bytes, version: str) -> _AlarmExchange:
        what = f"0x{cls.MSG_ID:04X} ({version})"
        plate = colour = None
        if version == "2019":
            need(body, _HEADER_2019.size, f"{what} data type and length")
            data_type, length = _HEADER_2019.unpack_from(body)
            data = body[_HEADER_2019.size :]
        else:
            need(body, _HEADER_2011.size, f"{what} sub-business header")
            raw_plate, colour, data_type, length = _HEADER_2011.unpack_from(body)
            plate = decode_fixed(raw_plate, "plate")
            data = body[_HEADER_2011.size :]
        if length != len(data):
            raise BodyError(f"{what} DATA_LENGTH {length} but {len(data)} bytes follow (data type 0x{data_type:04X})")
        decoder = DATA_DECODERS["2019" if version == "2019" else "2011"].get(data_type)
        typed = decoder(data, version) if decoder is not None else bytes(data)
        return cls(data_type, typed, plate, colour)  # type: ignore[call-arg]

    def encode(self, version: str) -> bytes:
        data = bytes(self.data) if isinstance(self.data, bytes | bytearray) else self.data.encode(version)
        if version == "2019":
            return _HEADER_2019.pack(self.data_type, len(data)) + data
        return _HEADER_2011.pack(encode_fixed(self.plate or "", PLATE_BYTES, "plate"), self.plate_colour or 0,
                                 self.data_type, len(data)) + data


@register_body
@dataclass(frozen=True)
class AlarmExchange(_AlarmExchange):
    """0x1400 main link alarm information (0x1401 urging answer, 0x1402 report, 0x1403 result)."""

    MSG_ID: ClassVar[int] = 0x1400
    data_type: int
    data: Any
    plate: str | None = None
    plate_colour: int | None = None


@register_body
@dataclass(frozen=True)
class AlarmExchangeDown(_AlarmExchange):
    """0x9400 sub link alarm information (0x9401 urging, 0x9402 warning tip, 0x9403 exchanged alarm)."""

    MSG_ID: ClassVar[int] = 0x9400
    data_type: int
    data: Any
    plate: str | None = None
    plate_colour: int | None = None
