"""Vehicle supervision (0x1500 / 0x9500) and static information (0x1600 / 0x9600): both carry the
plate / colour / data type / length header of the vehicle families in 2011 and 2019.

Typed data, where public vectors back the layout:
- 0x1501 listen-in answer: 2011 RESULT BYTE; 2019 SOURCE_DATA_TYPE UINT16, SOURCE_MSG_SN UINT32, RESULT.
- 0x9504 travel-recorder request (2011): COMMAND_TYPE BYTE, START_TIME and END_TIME BCD[6] (GMT+8),
  MAX_NUMBER UINT16.
- 0x9505 emergency access (2011): AUTHENTICATION_CODE BYTE[10], ACCESS_POINT_NAME[20], USERNAME[49],
  PASSWORD[22], SERVER_IP[32], TCP_PORT and UDP_PORT UINT16, END_TIME UINT64 (UTC seconds).
- 0x1601 static information answer: CAR_INFO (GBK text); 2019 first SOURCE_DATA_TYPE and SOURCE_MSG_SN.
Every other data type (0x1502 photo, 0x1503, 0x1504, 0x1505, 0x9501-0x9503, 0x9601, ...) stays bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from protocols.jt808.fields import bcd_time_to_utc, utc_to_bcd_time
from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, exact, need
from protocols.jt809.messages.dynamic import VehicleFamily

_SOURCE = struct.Struct(">HI")


@dataclass(frozen=True)
class ListenAnswer:
    """0x1501 车辆单向监听应答. ``source_data_type`` / ``source_sn`` exist in 2019 only."""

    DATA_TYPE: ClassVar[int] = 0x1501
    result: int
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> ListenAnswer:
        if version != "2019":
            exact(data, 1, "0x1501 (2011)")
            return cls(data[0])
        exact(data, 7, "0x1501 (2019)")
        source_type, source_sn = _SOURCE.unpack_from(data)
        return cls(data[6], source_type, source_sn)

    def encode(self, version: str) -> bytes:
        if version != "2019":
            return bytes((self.result,))
        return _SOURCE.pack(self.source_data_type or 0, self.source_sn or 0) + bytes((self.result,))


@dataclass(frozen=True)
class RecorderRequest:
    """0x9504 上报车辆行驶记录请求 (2011): ``command`` is the JT/T 19056 command word."""

    DATA_TYPE: ClassVar[int] = 0x9504
    command: int
    start: datetime
    end: datetime
    max_blocks: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> RecorderRequest:
        exact(data, 15, "0x9504 (2011)")
        return cls(data[0], bcd_time_to_utc(data[1:7]), bcd_time_to_utc(data[7:13]), int.from_bytes(data[13:], "big"))

    def encode(self, version: str) -> bytes:
        return (bytes((self.command,)) + utc_to_bcd_time(self.start) + utc_to_bcd_time(self.end)
                + struct.pack(">H", self.max_blocks))


@dataclass(frozen=True)
class EmergencyAccess:
    """0x9505 车辆应急接入监管平台请求 (2011): where the terminal must connect, until ``end_time``."""

    DATA_TYPE: ClassVar[int] = 0x9505
    auth_code: str  # the 10 bytes as hex
    apn: str
    username: str
    password: str
    server_ip: str
    tcp_port: int
    udp_port: int
    end_time: datetime

    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">10s20s49s22s32sHHQ")

    @classmethod
    def decode(cls, data: bytes, version: str) -> EmergencyAccess:
        exact(data, cls._LAYOUT.size, "0x9505 (2011)")
        code, apn, user, password, ip, tcp, udp, end = cls._LAYOUT.unpack(data)
        try:
            end_time = datetime.fromtimestamp(end, UTC)
        except (OverflowError, OSError, ValueError):
            raise BodyError(f"0x9505 END_TIME {end} is not UTC seconds") from None
        return cls(code.hex().upper(), decode_fixed(apn, "APN"), decode_fixed(user, "USERNAME"),
                   decode_fixed(password, "PASSWORD"), decode_fixed(ip, "SERVER_IP"), tcp, udp, end_time)

    def encode(self, version: str) -> bytes:
        if self.end_time.tzinfo is None:
            raise ValueError("END_TIME must be timezone-aware (UTC)")
        return self._LAYOUT.pack(bytes.fromhex(self.auth_code), encode_fixed(self.apn, 20, "APN"),
                                 encode_fixed(self.username, 49, "USERNAME"), encode_fixed(self.password, 22, "PASSWORD"),
                                 encode_fixed(self.server_ip, 32, "SERVER_IP"), self.tcp_port, self.udp_port,
                                 int(self.end_time.timestamp()))


@dataclass(frozen=True)
class StaticInfoAnswer:
    """0x1601 补报车辆静态信息应答: ``car_info`` as sent; 2019 names the request (None in 2011)."""

    DATA_TYPE: ClassVar[int] = 0x1601
    car_info: str
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> StaticInfoAnswer:
        if version != "2019":
            return cls(_gbk(data))
        need(data, _SOURCE.size, "0x1601 (2019)")
        source_type, source_sn = _SOURCE.unpack_from(data)
        return cls(_gbk(data[_SOURCE.size :]), source_type, source_sn)

    def encode(self, version: str) -> bytes:
        text = self.car_info.encode("gbk")
        if version != "2019":
            return text
        return _SOURCE.pack(self.source_data_type or 0, self.source_sn or 0) + text


def _gbk(raw: bytes) -> str:
    try:
        return raw.decode("gbk")
    except UnicodeDecodeError:
        raise BodyError("CAR_INFO is not GBK text") from None


_Decoders = dict[int, Callable[[bytes, str], Any]]
_CONTROL_UP: _Decoders = {ListenAnswer.DATA_TYPE: ListenAnswer.decode}
_CONTROL_DOWN: _Decoders = {c.DATA_TYPE: c.decode for c in (RecorderRequest, EmergencyAccess)}
_STATIC_UP: _Decoders = {StaticInfoAnswer.DATA_TYPE: StaticInfoAnswer.decode}


def _only_2011(decoders: _Decoders) -> _Decoders:
    """2019 reworked these requests (source data type and SN in front): without a public vector for
    the 2019 layout, a 2019 body keeps its bytes rather than being read in the 2011 layout."""
    def guard(decode: Callable[[bytes, str], Any]) -> Callable[[bytes, str], Any]:
        return lambda data, version: bytes(data) if version == "2019" else decode(data, version)
    return {key: guard(decode) for key, decode in decoders.items()}


@register_body
@dataclass(frozen=True)
class VehicleControl(VehicleFamily):
    """0x1500 main link vehicle supervision answers (0x1501 ... 0x1505)."""

    MSG_ID: ClassVar[int] = 0x1500
    DATA_DECODERS: ClassVar[_Decoders] = _CONTROL_UP
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class VehicleControlDown(VehicleFamily):
    """0x9500 sub link vehicle supervision requests (0x9501 ... 0x9505)."""

    MSG_ID: ClassVar[int] = 0x9500
    DATA_DECODERS: ClassVar[_Decoders] = _only_2011(_CONTROL_DOWN)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class StaticInfo(VehicleFamily):
    """0x1600 main link static information (0x1601 answer)."""

    MSG_ID: ClassVar[int] = 0x1600
    DATA_DECODERS: ClassVar[_Decoders] = _STATIC_UP
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class StaticInfoDown(VehicleFamily):
    """0x9600 sub link static information (0x9601 request, kept as bytes)."""

    MSG_ID: ClassVar[int] = 0x9600
    plate: str
    plate_colour: int
    data_type: int
    data: Any
