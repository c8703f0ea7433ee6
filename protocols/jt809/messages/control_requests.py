"""Vehicle supervision requests 0x9501-0x9503 (2011 layouts) and the answers 0x1502-0x1505 (JT/T 809-2011
§5.5.1; -2019 puts SOURCE_DATA_TYPE UINT16 and SOURCE_MSG_SN UINT32, naming the request, in front of every
answer, as the public captures REAL-1501-ENC and REAL-1502-ENC show):

- 0x9501 车辆单向监听请求: MONITOR_TEL BYTE[20] (the number the terminal calls back).
- 0x9502 车辆拍照请求: LENS_ID BYTE, SIZE_TYPE BYTE (JT/T 808 resolution code).
- 0x9503 下发车辆报文请求: MSG_SEQUENCE UINT32, MSG_PRIORITY BYTE, MSG_LENGTH UINT32, MSG_CONTENT (GBK).
- 0x1502 车辆拍照应答: PHOTO_RSP_FLAG BYTE (0 not supported, 1 taken, 2 taken and sent later, 3 not taken:
  offline, 4 not taken: lens unusable, 5 not taken: other, 9 wrong plate), GNSS_DATA BYTE[36] (the 2011
  position record; all zero when there is none), LENS_ID BYTE, PHOTO_LEN UINT32, SIZE_TYPE BYTE, TYPE BYTE
  (photo format), PHOTO.
- 0x1503 下发车辆报文应答: MSG_ID UINT32 (the request's MSG_SEQUENCE), RESULT BYTE (0 sent, 1 failed).
- 0x1504 上报车辆行驶记录应答: COMMAND_TYPE BYTE, TRAVELDATA_LENGTH UINT32, TRAVELDATA_INFO.
- 0x1505 车辆应急接入监管平台应答: RESULT BYTE (0 accepted, 1 failed).
The 2019 requests stay bytes (control._only_2011): no public vector shows their layout.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt809.errors import BodyError
from protocols.jt809.messages import control
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, exact, need

_SOURCE = struct.Struct(">HI")
GNSS_BYTES = 36


def _source(data: bytes, version: str, what: str) -> tuple[int | None, int | None, bytes]:
    """(source data type, source SN, the rest) of a 2019 answer; (None, None, data) in 2011."""
    if version != "2019":
        return None, None, data
    need(data, _SOURCE.size, f"{what} (2019) source data type and SN")
    source_type, source_sn = _SOURCE.unpack_from(data)
    return source_type, source_sn, data[_SOURCE.size :]


def _encode_source(version: str, source_type: int | None, source_sn: int | None) -> bytes:
    return _SOURCE.pack(source_type or 0, source_sn or 0) if version == "2019" else b""


@dataclass(frozen=True)
class ListenRequest:
    """0x9501 车辆单向监听请求 (2011)."""

    DATA_TYPE: ClassVar[int] = 0x9501
    monitor_tel: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> ListenRequest:
        exact(data, 20, "0x9501 (2011)")
        return cls(decode_fixed(data, "MONITOR_TEL"))

    def encode(self, version: str) -> bytes:
        return encode_fixed(self.monitor_tel, 20, "MONITOR_TEL")


@dataclass(frozen=True)
class PhotoRequest:
    """0x9502 车辆拍照请求 (2011)."""

    DATA_TYPE: ClassVar[int] = 0x9502
    lens_id: int
    size_type: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> PhotoRequest:
        exact(data, 2, "0x9502 (2011)")
        return cls(data[0], data[1])

    def encode(self, version: str) -> bytes:
        return bytes((self.lens_id, self.size_type))


@dataclass(frozen=True)
class TextRequest:
    """0x9503 下发车辆报文请求 (2011)."""

    DATA_TYPE: ClassVar[int] = 0x9503
    msg_sequence: int
    priority: int
    content: str

    _FIXED: ClassVar[struct.Struct] = struct.Struct(">IBI")

    @classmethod
    def decode(cls, data: bytes, version: str) -> TextRequest:
        need(data, cls._FIXED.size, "0x9503 (2011)")
        sequence, priority, length = cls._FIXED.unpack_from(data)
        text = data[cls._FIXED.size :]
        if len(text) != length:
            raise BodyError(f"0x9503 MSG_LENGTH {length} but {len(text)} bytes follow")
        try:
            return cls(sequence, priority, text.decode("gbk"))
        except UnicodeDecodeError:
            raise BodyError("0x9503 MSG_CONTENT is not GBK text") from None

    def encode(self, version: str) -> bytes:
        raw = self.content.encode("gbk")
        return self._FIXED.pack(self.msg_sequence, self.priority, len(raw)) + raw


@dataclass(frozen=True)
class PhotoAnswer:
    """0x1502 车辆拍照应答. ``gnss`` is the 36-byte position record as bytes (zeros: none)."""

    DATA_TYPE: ClassVar[int] = 0x1502
    flag: int
    lens_id: int
    size_type: int
    photo_type: int = 0
    photo: bytes = b""
    gnss: bytes = bytes(GNSS_BYTES)
    source_data_type: int | None = None
    source_sn: int | None = None

    _TAIL: ClassVar[struct.Struct] = struct.Struct(">BIBB")

    @classmethod
    def decode(cls, data: bytes, version: str) -> PhotoAnswer:
        source_type, source_sn, data = _source(data, version, "0x1502")
        fixed = 1 + GNSS_BYTES + cls._TAIL.size
        need(data, fixed, f"0x1502 ({version})")
        lens, length, size, kind = cls._TAIL.unpack_from(data, 1 + GNSS_BYTES)
        if len(data) - fixed != length:
            raise BodyError(f"0x1502 PHOTO_LEN {length} but {len(data) - fixed} bytes follow")
        return cls(data[0], lens, size, kind, bytes(data[fixed:]), bytes(data[1 : 1 + GNSS_BYTES]), source_type,
                   source_sn)

    def encode(self, version: str) -> bytes:
        if len(self.gnss) != GNSS_BYTES:
            raise ValueError(f"GNSS_DATA must be {GNSS_BYTES} bytes")
        return (_encode_source(version, self.source_data_type, self.source_sn) + bytes((self.flag,)) + self.gnss
                + self._TAIL.pack(self.lens_id, len(self.photo), self.size_type, self.photo_type) + self.photo)


@dataclass(frozen=True)
class TextAnswer:
    """0x1503 下发车辆报文应答: ``msg_id`` is the request's MSG_SEQUENCE."""

    DATA_TYPE: ClassVar[int] = 0x1503
    msg_id: int
    result: int
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> TextAnswer:
        source_type, source_sn, data = _source(data, version, "0x1503")
        exact(data, 5, f"0x1503 ({version})")
        return cls(int.from_bytes(data[:4], "big"), data[4], source_type, source_sn)

    def encode(self, version: str) -> bytes:
        return _encode_source(version, self.source_data_type, self.source_sn) + struct.pack(">IB", self.msg_id,
                                                                                             self.result)


@dataclass(frozen=True)
class RecorderAnswer:
    """0x1504 上报车辆行驶记录应答: the travel recorder's data block for ``command``."""

    DATA_TYPE: ClassVar[int] = 0x1504
    command: int
    data: bytes
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> RecorderAnswer:
        source_type, source_sn, data = _source(data, version, "0x1504")
        need(data, 5, f"0x1504 ({version})")
        length = int.from_bytes(data[1:5], "big")
        if len(data) - 5 != length:
            raise BodyError(f"0x1504 TRAVELDATA_LENGTH {length} but {len(data) - 5} bytes follow")
        return cls(data[0], bytes(data[5:]), source_type, source_sn)

    def encode(self, version: str) -> bytes:
        return (_encode_source(version, self.source_data_type, self.source_sn)
                + struct.pack(">BI", self.command, len(self.data)) + self.data)


@dataclass(frozen=True)
class EmergencyAnswer:
    """0x1505 车辆应急接入监管平台应答."""

    DATA_TYPE: ClassVar[int] = 0x1505
    result: int
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> EmergencyAnswer:
        source_type, source_sn, data = _source(data, version, "0x1505")
        exact(data, 1, f"0x1505 ({version})")
        return cls(data[0], source_type, source_sn)

    def encode(self, version: str) -> bytes:
        return _encode_source(version, self.source_data_type, self.source_sn) + bytes((self.result,))


control.VehicleControl.DATA_DECODERS.update(
    {c.DATA_TYPE: c.decode for c in (PhotoAnswer, TextAnswer, RecorderAnswer, EmergencyAnswer)})
control.VehicleControlDown.DATA_DECODERS.update(
    control._only_2011({c.DATA_TYPE: c.decode for c in (ListenRequest, PhotoRequest, TextRequest)}))
