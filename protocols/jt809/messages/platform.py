"""Platform information exchange, 0x1300 (main link) and 0x9300 (sub link): inspections (查岗).

The body is DATA_TYPE UINT16, DATA_LENGTH UINT32, DATA (no plate: these are about platforms). Typed
data: 0x9301 inspection request and 0x1301 its answer, whose layouts differ by version:
- 0x9301: OBJECT_TYPE BYTE, OBJECT_ID (2011: 12 bytes; 2019: 20 bytes), 2019 only ANSWER_TIME BYTE
  (minutes allowed), INFO_ID UINT32, INFO_LENGTH UINT32, INFO_CONTENT (GBK).
- 0x1301 2011: OBJECT_TYPE, OBJECT_ID[12], INFO_ID, INFO_LENGTH, INFO_CONTENT. 2019: OBJECT_TYPE,
  RESPONDER[16], RESPONDER_TEL[20], OBJECT_ID[20], SOURCE_DATA_TYPE UINT16, SOURCE_MSG_SN UINT32 (the
  request it answers; no INFO_ID), INFO_LENGTH, INFO_CONTENT.
Other data types (0x1302, 0x9302, ...) are kept as bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.errors import BodyError
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, need

_FAMILY = struct.Struct(">HI")
OBJECT_ID_2011 = 12
OBJECT_ID_2019 = 20
RESPONDER_BYTES = 16
TEL_BYTES = 20


def _object_id_bytes(version: str) -> int:
    return OBJECT_ID_2019 if version == "2019" else OBJECT_ID_2011


def _content(data: bytes, offset: int, what: str) -> str:
    need(data[offset:], 4, f"{what} INFO_LENGTH")
    length = int.from_bytes(data[offset : offset + 4], "big")
    if len(data) - offset - 4 != length:
        raise BodyError(f"{what} INFO_LENGTH {length} but {len(data) - offset - 4} bytes follow")
    try:
        return data[offset + 4 :].decode("gbk")
    except UnicodeDecodeError:
        raise BodyError(f"{what} INFO_CONTENT is not GBK text") from None


def _encode_content(text: str) -> bytes:
    raw = text.encode("gbk")
    return struct.pack(">I", len(raw)) + raw


@dataclass(frozen=True)
class InspectionRequest:
    """0x9301 平台查岗请求. ``answer_minutes`` exists in 2019 only (None in 2011)."""

    DATA_TYPE: ClassVar[int] = 0x9301
    object_type: int
    object_id: str
    info_id: int
    content: str
    answer_minutes: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> InspectionRequest:
        size = _object_id_bytes(version)
        fixed = 1 + size + (1 if version == "2019" else 0) + 4
        need(data, fixed, f"0x9301 ({version})")
        object_id = decode_fixed(data[1 : 1 + size], "OBJECT_ID")
        answer = data[1 + size] if version == "2019" else None
        info_id = int.from_bytes(data[fixed - 4 : fixed], "big")
        return cls(data[0], object_id, info_id, _content(data, fixed, "0x9301"), answer)

    def encode(self, version: str) -> bytes:
        out = bytes((self.object_type,)) + encode_fixed(self.object_id, _object_id_bytes(version), "OBJECT_ID")
        if version == "2019":
            out += bytes((self.answer_minutes or 0,))
        return out + struct.pack(">I", self.info_id) + _encode_content(self.content)


@dataclass(frozen=True)
class InspectionAnswer:
    """0x1301 平台查岗应答. 2011 names the request by ``info_id``; 2019 by ``source_data_type`` and
    ``source_sn`` and adds the responder and their phone (None / 0 where a version lacks them)."""

    DATA_TYPE: ClassVar[int] = 0x1301
    object_type: int
    object_id: str
    content: str
    info_id: int = 0
    responder: str | None = None
    responder_tel: str | None = None
    source_data_type: int | None = None
    source_sn: int | None = None

    @classmethod
    def decode(cls, data: bytes, version: str) -> InspectionAnswer:
        if version != "2019":
            need(data, 1 + OBJECT_ID_2011 + 4, "0x1301 (2011)")
            info_id = int.from_bytes(data[13:17], "big")
            return cls(data[0], decode_fixed(data[1:13], "OBJECT_ID"), _content(data, 17, "0x1301"), info_id)
        fixed = 1 + RESPONDER_BYTES + TEL_BYTES + OBJECT_ID_2019 + 6
        need(data, fixed, "0x1301 (2019)")
        at = 1 + RESPONDER_BYTES + TEL_BYTES
        source_type, source_sn = struct.unpack_from(">HI", data, at + OBJECT_ID_2019)
        return cls(data[0], decode_fixed(data[at : at + OBJECT_ID_2019], "OBJECT_ID"), _content(data, fixed, "0x1301"),
                   0, decode_fixed(data[1 : 1 + RESPONDER_BYTES], "RESPONDER"),
                   decode_fixed(data[1 + RESPONDER_BYTES : at], "RESPONDER_TEL"), source_type, source_sn)

    def encode(self, version: str) -> bytes:
        out = bytes((self.object_type,))
        if version != "2019":
            out += encode_fixed(self.object_id, OBJECT_ID_2011, "OBJECT_ID") + struct.pack(">I", self.info_id)
            return out + _encode_content(self.content)
        out += encode_fixed(self.responder or "", RESPONDER_BYTES, "RESPONDER")
        out += encode_fixed(self.responder_tel or "", TEL_BYTES, "RESPONDER_TEL")
        out += encode_fixed(self.object_id, OBJECT_ID_2019, "OBJECT_ID")
        out += struct.pack(">HI", self.source_data_type or 0, self.source_sn or 0)
        return out + _encode_content(self.content)


DATA_DECODERS: dict[int, Callable[[bytes, str], Any]] = {
    cls.DATA_TYPE: cls.decode for cls in (InspectionRequest, InspectionAnswer)
}


class _PlatformExchange:
    MSG_ID: ClassVar[int]
    data_type: int
    data: Any

    @classmethod
    def decode(cls, body: bytes, version: str) -> _PlatformExchange:
        what = f"0x{cls.MSG_ID:04X}"
        need(body, _FAMILY.size, f"{what} data type and length")
        data_type, length = _FAMILY.unpack_from(body)
        data = body[_FAMILY.size :]
        if length != len(data):
            raise BodyError(f"{what} DATA_LENGTH {length} but {len(data)} bytes follow (data type 0x{data_type:04X})")
        decoder = DATA_DECODERS.get(data_type)
        return cls(data_type, decoder(data, version) if decoder is not None else bytes(data))  # type: ignore[call-arg]

    def encode(self, version: str) -> bytes:
        data = self.data if isinstance(self.data, bytes | bytearray) else self.data.encode(version)
        return _FAMILY.pack(self.data_type, len(data)) + bytes(data)


@register_body
@dataclass(frozen=True)
class PlatformExchange(_PlatformExchange):
    """0x1300 main link platform information (0x1301 inspection answer, 0x1302 message answer)."""

    MSG_ID: ClassVar[int] = 0x1300
    data_type: int
    data: Any


@register_body
@dataclass(frozen=True)
class PlatformExchangeDown(_PlatformExchange):
    """0x9300 sub link platform information (0x9301 inspection request, 0x9302 message)."""

    MSG_ID: ClassVar[int] = 0x9300
    data_type: int
    data: Any
