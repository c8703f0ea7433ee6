"""JT/T 1078-2016's additions to JT/T 809 (its chapter on data exchange between platforms): time-limited
authorisation codes (0x1700), real-time audio/video (0x1800 / 0x9800) and remote playback (0x1A00 / 0x9A00).

Each family carries the vehicle families' header (VEHICLE_NO BYTE[21], VEHICLE_COLOR BYTE, DATA_TYPE UINT16,
DATA_LENGTH UINT32) and one layout whatever the link's 809 version (JT/T 1078 defines one). Typed data:

- 0x1701 UP_AUTHORIZE_MSG_STARTUP 时效口令上报: PLATFORM_ID BYTE[11], AUTHORIZE_CODE_1 BYTE[64] (for the
  home region's government platform), AUTHORIZE_CODE_2 BYTE[64] (for a cross-region one).
- 0x1702 UP_AUTHORIZE_MSG_STARTUP_REQ 时效口令请求 (JT/T 1078-2016 table 40, main link, a cross-region
  government platform to its superior): no data (DATA_LENGTH 0); the family header names the vehicle whose
  enterprise platform's codes of the day it asks for.
- 0x9702 DOWN_AUTHORIZE_MSG_STARTUP_REQ_ACK 时效口令请求应答 (table 41, sub link, the superior's answer):
  AUTHORIZE_CODE_1 BYTE[64], AUTHORIZE_CODE_2 BYTE[64], the codes of the vehicle's enterprise platform (the
  superior picks them by where the vehicle was in the last 5 min). The standard's table 37 names its family
  DOWN_BASE_DATA_MSG, a misprint for DOWN_AUTHORIZE_MSG (0x9700), as the public implementations read it.
- 0x9801 DOWN_REALVIDEO_MSG_STARTUP 实时音视频请求: CHANNEL_ID BYTE, AV_ITEM_TYPE BYTE (0 audio and video,
  1 audio, 2 video), AUTHORIZE_CODE BYTE[64], GNSS_DATA BYTE[36] (a 2011 position inside the region, only for
  a cross-region request; some platforms leave it out, so it is optional here).
- 0x1801 UP_REALVIDEO_MSG_STARTUP_ACK 实时音视频请求应答: RESULT BYTE (0 success, 1 failure, 2 not supported,
  3 session ended, 4 ...: JT/T 1078 table "应答结果"), SERVER_IP BYTE[32], SERVER_PORT UINT16: where the
  superior pulls the stream.
- 0x9802 DOWN_REALVIDEO_MSG_END 主动请求停止实时音视频传输: CHANNEL_ID BYTE, AV_ITEM_TYPE BYTE.
- 0x1802 UP_REALVIDEO_MSG_END_ACK: RESULT BYTE.
- 0x9A01 DOWN_PLAYBACK_MSG_STARTUP 远程录像回放请求: CHANNEL_ID BYTE, AV_ITEM_TYPE BYTE, STREAM_TYPE BYTE,
  MEM_TYPE BYTE, PLAYBACK_STARTTIME UINT64, PLAYBACK_ENDTIME UINT64 (UTC seconds), AUTHORIZE_CODE BYTE[64],
  GNSS_DATA BYTE[36] (optional, as in 0x9801).
- 0x1A01 UP_PLAYBACK_MSG_STARTUP_ACK 远程录像回放请求应答: RESULT BYTE, SERVER_IP BYTE[32], SERVER_PORT UINT16.
- 0x9A02 DOWN_PLAYBACK_MSG_CONTROL 远程录像回放控制: CONTROL_TYPE BYTE (the 0x9202 control codes of JT/T 1078:
  0 play, 1 pause, 2 end, 3 fast forward, 4 key-frame rewind, 5 drag, 6 key-frame play), FAST_TIME BYTE,
  DRAG_PLAYBACK_POSITION UINT64 (UTC seconds).
- 0x1A02 UP_PLAYBACK_MSG_CONTROL_ACK: RESULT BYTE.
Text fields are GBK, NUL-padded on the right when encoded; SERVER_IP is read whichever side the padding is on
(one public implementation pads it on the left). GNSS_DATA is kept as its 36 bytes (hex): a cross-region
check made on the pull (fleet/video_streams.py). Everything else of these families (0x1900 / 0x9900
resource lists, 0x1B00 / 0x9B00 downloads) stays bytes. Sources: protocols/jt809/README.md.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, exact, need
from protocols.jt809.messages.dynamic import VehicleFamily

AUTHORIZE_BYTES = 64
GNSS_BYTES = 36
SERVER_IP_BYTES = 32


def _utc(seconds: int, what: str) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise BodyError(f"{what} {seconds} is not UTC seconds") from None


def _seconds(at: datetime, what: str) -> int:
    if at.tzinfo is None:
        raise ValueError(f"{what} must be timezone-aware (UTC)")
    return int(at.timestamp())


def _gnss(rest: bytes, what: str) -> str | None:
    """The optional GNSS_DATA: absent, or exactly 36 bytes."""
    if not rest:
        return None
    exact(rest, GNSS_BYTES, f"{what} GNSS_DATA")
    return rest.hex().upper()


def _encode_gnss(gnss_hex: str | None) -> bytes:
    if gnss_hex is None:
        return b""
    raw = bytes.fromhex(gnss_hex)
    if len(raw) != GNSS_BYTES:
        raise ValueError(f"GNSS_DATA is {GNSS_BYTES} bytes, got {len(raw)}")
    return raw


@dataclass(frozen=True)
class AuthorizeReport:
    """0x1701 时效口令上报 (main link)."""

    DATA_TYPE: ClassVar[int] = 0x1701
    platform_id: str
    authorize_code_1: str
    authorize_code_2: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> AuthorizeReport:
        exact(data, 11 + 2 * AUTHORIZE_BYTES, "0x1701")
        return cls(decode_fixed(data[:11], "PLATFORM_ID"), decode_fixed(data[11:75], "AUTHORIZE_CODE_1"),
                   decode_fixed(data[75:], "AUTHORIZE_CODE_2"))

    def encode(self, version: str) -> bytes:
        return (encode_fixed(self.platform_id, 11, "PLATFORM_ID")
                + encode_fixed(self.authorize_code_1, AUTHORIZE_BYTES, "AUTHORIZE_CODE_1")
                + encode_fixed(self.authorize_code_2, AUTHORIZE_BYTES, "AUTHORIZE_CODE_2"))


@dataclass(frozen=True)
class AuthorizeRequest:
    """0x1702 时效口令请求 (main link): no data."""

    DATA_TYPE: ClassVar[int] = 0x1702

    @classmethod
    def decode(cls, data: bytes, version: str) -> AuthorizeRequest:
        exact(data, 0, "0x1702")
        return cls()

    def encode(self, version: str) -> bytes:
        return b""


@dataclass(frozen=True)
class AuthorizeRequestAnswer:
    """0x9702 时效口令请求应答 (sub link): the codes of the vehicle's enterprise platform; empty when the
    superior has none to give."""

    DATA_TYPE: ClassVar[int] = 0x9702
    authorize_code_1: str
    authorize_code_2: str

    @classmethod
    def decode(cls, data: bytes, version: str) -> AuthorizeRequestAnswer:
        exact(data, 2 * AUTHORIZE_BYTES, "0x9702")
        return cls(decode_fixed(data[:AUTHORIZE_BYTES], "AUTHORIZE_CODE_1"),
                   decode_fixed(data[AUTHORIZE_BYTES:], "AUTHORIZE_CODE_2"))

    def encode(self, version: str) -> bytes:
        return (encode_fixed(self.authorize_code_1, AUTHORIZE_BYTES, "AUTHORIZE_CODE_1")
                + encode_fixed(self.authorize_code_2, AUTHORIZE_BYTES, "AUTHORIZE_CODE_2"))


@dataclass(frozen=True)
class RealVideoRequest:
    """0x9801 实时音视频请求 (sub link): ``av_item_type`` 0 audio and video, 1 audio, 2 video."""

    DATA_TYPE: ClassVar[int] = 0x9801
    channel_id: int
    av_item_type: int
    authorize_code: str
    gnss_hex: str | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> RealVideoRequest:
        need(data, 2 + AUTHORIZE_BYTES, "0x9801")
        return cls(data[0], data[1], decode_fixed(data[2:66], "AUTHORIZE_CODE"), _gnss(data[66:], "0x9801"))

    def encode(self, version: str) -> bytes:
        return (bytes((self.channel_id, self.av_item_type))
                + encode_fixed(self.authorize_code, AUTHORIZE_BYTES, "AUTHORIZE_CODE") + _encode_gnss(self.gnss_hex))


@dataclass(frozen=True)
class _ServerAnswer:
    """RESULT BYTE, SERVER_IP BYTE[32], SERVER_PORT UINT16."""

    DATA_TYPE: ClassVar[int]
    result: int
    server_ip: str
    server_port: int

    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(f">B{SERVER_IP_BYTES}sH")

    @classmethod
    def decode(cls, data: bytes, version: str) -> Any:
        exact(data, cls._LAYOUT.size, f"0x{cls.DATA_TYPE:04X}")
        result, ip, port = cls._LAYOUT.unpack(data)
        return cls(result, decode_fixed(ip.lstrip(b"\x00"), "SERVER_IP"), port)

    def encode(self, version: str) -> bytes:
        return self._LAYOUT.pack(self.result, encode_fixed(self.server_ip, SERVER_IP_BYTES, "SERVER_IP"),
                                 self.server_port)


@dataclass(frozen=True)
class RealVideoAnswer(_ServerAnswer):
    """0x1801 实时音视频请求应答 (main link)."""

    DATA_TYPE: ClassVar[int] = 0x1801


@dataclass(frozen=True)
class PlaybackAnswer(_ServerAnswer):
    """0x1A01 远程录像回放请求应答 (main link)."""

    DATA_TYPE: ClassVar[int] = 0x1A01


@dataclass(frozen=True)
class RealVideoEnd:
    """0x9802 主动请求停止实时音视频传输 (sub link)."""

    DATA_TYPE: ClassVar[int] = 0x9802
    channel_id: int
    av_item_type: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> RealVideoEnd:
        exact(data, 2, "0x9802")
        return cls(data[0], data[1])

    def encode(self, version: str) -> bytes:
        return bytes((self.channel_id, self.av_item_type))


@dataclass(frozen=True)
class _Result:
    DATA_TYPE: ClassVar[int]
    result: int

    @classmethod
    def decode(cls, data: bytes, version: str) -> Any:
        exact(data, 1, f"0x{cls.DATA_TYPE:04X}")
        return cls(data[0])

    def encode(self, version: str) -> bytes:
        return bytes((self.result,))


@dataclass(frozen=True)
class RealVideoEndAnswer(_Result):
    """0x1802 主动请求停止实时音视频传输应答."""

    DATA_TYPE: ClassVar[int] = 0x1802


@dataclass(frozen=True)
class PlaybackControlAnswer(_Result):
    """0x1A02 远程录像回放控制应答."""

    DATA_TYPE: ClassVar[int] = 0x1A02


@dataclass(frozen=True)
class PlaybackRequest:
    """0x9A01 远程录像回放请求 (sub link): a channel's recording between ``start`` and ``end``."""

    DATA_TYPE: ClassVar[int] = 0x9A01
    channel_id: int
    av_item_type: int
    stream_type: int
    mem_type: int
    start: datetime
    end: datetime
    authorize_code: str
    gnss_hex: str | None = None

    _HEAD: ClassVar[struct.Struct] = struct.Struct(">BBBBQQ")

    @classmethod
    def decode(cls, data: bytes, version: str) -> PlaybackRequest:
        size = cls._HEAD.size + AUTHORIZE_BYTES
        need(data, size, "0x9A01")
        channel, av_type, stream, mem, start, end = cls._HEAD.unpack_from(data)
        return cls(channel, av_type, stream, mem, _utc(start, "PLAYBACK_STARTTIME"), _utc(end, "PLAYBACK_ENDTIME"),
                   decode_fixed(data[cls._HEAD.size : size], "AUTHORIZE_CODE"), _gnss(data[size:], "0x9A01"))

    def encode(self, version: str) -> bytes:
        return (self._HEAD.pack(self.channel_id, self.av_item_type, self.stream_type, self.mem_type,
                                _seconds(self.start, "PLAYBACK_STARTTIME"), _seconds(self.end, "PLAYBACK_ENDTIME"))
                + encode_fixed(self.authorize_code, AUTHORIZE_BYTES, "AUTHORIZE_CODE") + _encode_gnss(self.gnss_hex))


@dataclass(frozen=True)
class PlaybackControl:
    """0x9A02 远程录像回放控制 (sub link)."""

    DATA_TYPE: ClassVar[int] = 0x9A02
    control_type: int
    fast_time: int
    drag_position: datetime | None  # None: zero on the wire (not a drag)

    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">BBQ")

    @classmethod
    def decode(cls, data: bytes, version: str) -> PlaybackControl:
        exact(data, cls._LAYOUT.size, "0x9A02")
        control, fast, drag = cls._LAYOUT.unpack(data)
        return cls(control, fast, _utc(drag, "DRAG_PLAYBACK_POSITION") if drag else None)

    def encode(self, version: str) -> bytes:
        drag = 0 if self.drag_position is None else _seconds(self.drag_position, "DRAG_PLAYBACK_POSITION")
        return self._LAYOUT.pack(self.control_type, self.fast_time, drag)


_Decoders = dict[int, Callable[[bytes, str], Any]]


def _decoders(*classes: Any) -> _Decoders:
    return {cls.DATA_TYPE: cls.decode for cls in classes}


@register_body
@dataclass(frozen=True)
class Authorize(VehicleFamily):
    """0x1700 main link time-limited authorisation codes (0x1701 report, 0x1702 request)."""

    MSG_ID: ClassVar[int] = 0x1700
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(AuthorizeReport, AuthorizeRequest)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class AuthorizeDown(VehicleFamily):
    """0x9700 sub link time-limited authorisation codes (0x9702 answer to a 0x1702)."""

    MSG_ID: ClassVar[int] = 0x9700
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(AuthorizeRequestAnswer)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class RealVideo(VehicleFamily):
    """0x1800 main link real-time audio/video answers (0x1801, 0x1802)."""

    MSG_ID: ClassVar[int] = 0x1800
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(RealVideoAnswer, RealVideoEndAnswer)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class RealVideoDown(VehicleFamily):
    """0x9800 sub link real-time audio/video requests (0x9801, 0x9802)."""

    MSG_ID: ClassVar[int] = 0x9800
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(RealVideoRequest, RealVideoEnd)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class Playback(VehicleFamily):
    """0x1A00 main link remote playback answers (0x1A01, 0x1A02)."""

    MSG_ID: ClassVar[int] = 0x1A00
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(PlaybackAnswer, PlaybackControlAnswer)
    plate: str
    plate_colour: int
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class PlaybackDown(VehicleFamily):
    """0x9A00 sub link remote playback requests (0x9A01, 0x9A02)."""

    MSG_ID: ClassVar[int] = 0x9A00
    DATA_DECODERS: ClassVar[_Decoders] = _decoders(PlaybackRequest, PlaybackControl)
    plate: str
    plate_colour: int
    data_type: int
    data: Any
