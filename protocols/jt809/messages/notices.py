"""Messages between platforms and warning tips (JT/T 809-2011 §5.2.4 / §5.2.5 / §5.4), the position
count notice 0x9101 (§5.2.3), and the 2011 alarm report, layouts as the 2011 standard gives them:

- 0x9302 下发平台间报文请求: OBJECT_TYPE BYTE, OBJECT_ID (2011: 12 bytes; 2019: 20 bytes, as in 0x9301),
  INFO_ID UINT32, INFO_LENGTH UINT32, INFO_CONTENT (GBK).
- 0x1302 下发平台间报文应答 (2011): INFO_ID UINT32, the message it acknowledges. The 2019 answer stays bytes.
- 0x9402 报警预警 (2011): WARN_SRC BYTE, WARN_TYPE UINT16, WARN_TIME UINT64 (UTC seconds),
  WARN_LENGTH UINT32, WARN_CONTENT. The 2019 tip stays bytes.
- 0x1402 上报报警信息 (2011): WARN_SRC BYTE, WARN_TYPE UINT16, WARN_TIME UINT64, INFO_ID UINT32,
  INFO_LENGTH UINT32, INFO_CONTENT. INFO_ID is how an urging (0x9401) and a handling result (0x1403)
  name the alarm. The 2019 report is ``alarms.AlarmReport``.
- 0x9101 接收定位信息数量通知 (DOWN_TOTAL_RECV_BACK_MSG, a message of its own, no data type):
  DYNAMIC_INFO_TOTAL UINT32 (positions received from START_TIME to END_TIME), START_TIME and END_TIME
  UINT64 UTC seconds. The same in 2011 and 2019; the inferior does not answer it.

The data types register themselves in their families' decoder tables (``platform.DATA_DECODERS``,
``alarms.DATA_DECODERS['2011']``), so the families need no change.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages import alarms, platform
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, exact, need


def _text(data: bytes, offset: int, what: str) -> str:
    need(data[offset:], 4, f"{what} length")
    length = int.from_bytes(data[offset : offset + 4], "big")
    if len(data) - offset - 4 != length:
        raise BodyError(f"{what} length {length} but {len(data) - offset - 4} bytes follow")
    try:
        return data[offset + 4 :].decode("gbk")
    except UnicodeDecodeError:
        raise BodyError(f"{what} content is not GBK text") from None


def _encode_text(text: str) -> bytes:
    raw = text.encode("gbk")
    return struct.pack(">I", len(raw)) + raw


@dataclass(frozen=True)
class PlatformMessage:
    """0x9302 a message from the superior platform to an inferior platform (or its operator)."""

    DATA_TYPE: ClassVar[int] = 0x9302
    object_type: int
    object_id: str
    info_id: int
    content: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> PlatformMessage:
        size = platform.OBJECT_ID_2019 if version == "2019" else platform.OBJECT_ID_2011
        need(data, 1 + size + 4, f"0x9302 ({version})")
        info_id = int.from_bytes(data[1 + size : 5 + size], "big")
        return cls(data[0], decode_fixed(data[1 : 1 + size], "OBJECT_ID"), info_id, _text(data, 5 + size, "0x9302 INFO"))

    def encode(self, version: str) -> bytes:
        size = platform.OBJECT_ID_2019 if version == "2019" else platform.OBJECT_ID_2011
        return (bytes((self.object_type,)) + encode_fixed(self.object_id, size, "OBJECT_ID")
                + struct.pack(">I", self.info_id) + _encode_text(self.content))


@dataclass(frozen=True)
class PlatformMessageAnswer:
    """0x1302 the inferior acknowledges message ``info_id`` (2011)."""

    DATA_TYPE: ClassVar[int] = 0x1302
    info_id: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> PlatformMessageAnswer | bytes:
        if version == "2019":
            return bytes(data)
        exact(data, 4, "0x1302 (2011)")
        return cls(int.from_bytes(data, "big"))

    def encode(self, version: str) -> bytes:
        if version == "2019":
            raise ValueError("0x1302 is typed in its 2011 layout only; send a 2019 body as bytes")
        return struct.pack(">I", self.info_id)


_WARN = struct.Struct(">BHQ")


@dataclass(frozen=True)
class WarningTip:
    """0x9402 报警预警 (2011): a warning or a driving tip about the vehicle of the family header."""

    DATA_TYPE: ClassVar[int] = 0x9402
    warn_src: int
    warn_type: int
    warn_time: datetime
    content: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> WarningTip:
        need(data, _WARN.size, "0x9402 (2011)")
        src, kind, seconds = _WARN.unpack_from(data)
        return cls(src, kind, alarms._time(seconds), _text(data, _WARN.size, "0x9402 WARN"))

    def encode(self, version: str) -> bytes:
        return _WARN.pack(self.warn_src, self.warn_type, alarms._seconds(self.warn_time)) + _encode_text(self.content)


_REPORT = struct.Struct(">BHQI")


@dataclass(frozen=True)
class AlarmReport2011:
    """0x1402 上报报警信息 (2011): the alarm of the vehicle in the family header, named by ``info_id``."""

    DATA_TYPE: ClassVar[int] = 0x1402
    warn_src: int
    warn_type: int
    warn_time: datetime
    info_id: int
    content: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> AlarmReport2011:
        need(data, _REPORT.size, "0x1402 (2011)")
        src, kind, seconds, info_id = _REPORT.unpack_from(data)
        return cls(src, kind, alarms._time(seconds), info_id, _text(data, _REPORT.size, "0x1402 INFO"))

    def encode(self, version: str) -> bytes:
        return (_REPORT.pack(self.warn_src, self.warn_type, alarms._seconds(self.warn_time), self.info_id)
                + _encode_text(self.content))


@register_body
@dataclass(frozen=True)
class PositionCount:
    """0x9101 the superior received ``total`` positions from ``start`` to ``end`` (UTC)."""

    MSG_ID: ClassVar[int] = 0x9101
    total: int
    start: datetime
    end: datetime

    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">IQQ")

    @classmethod
    def decode(cls, body: bytes, version: str) -> PositionCount:
        exact(body, cls._LAYOUT.size, "0x9101")
        total, start, end = cls._LAYOUT.unpack(body)
        return cls(total, alarms._time(start), alarms._time(end))

    def encode(self, version: str) -> bytes:
        return self._LAYOUT.pack(self.total, alarms._seconds(self.start), alarms._seconds(self.end))


platform.DATA_DECODERS.update({cls.DATA_TYPE: cls.decode for cls in (PlatformMessage, PlatformMessageAnswer)})
alarms.DATA_DECODERS["2011"].update({cls.DATA_TYPE: cls.decode for cls in (WarningTip, AlarmReport2011)})
