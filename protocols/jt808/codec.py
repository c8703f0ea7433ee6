"""Frames <-> messages: decode_frame, decode_body, encode_frame, encode_subpackages, merge_subpackages.

``decode_frame`` is the gateway's hot path (one call per uplink), so its common case (a 2011/2013
header without package fields) is written out inline: no copy unless the frame holds a 0x7d, the
checksum folded as one integer, and no dataclass ``__init__`` (frozen ones cost ~3x a dict).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, replace

from protocols.jt808 import messages as _messages  # noqa: F401  (registers every body)
from protocols.jt808.errors import BodyError, ChecksumError, FramingError, JT808Error, LengthError
from protocols.jt808.fields import check_version
from protocols.jt808.framing import frame_content, unescape, xor_checksum
from protocols.jt808.header import MAX_BODY, Header, build_header, parse_header
from protocols.jt808.messages.raw import RawBody
from protocols.jt808.messages.t0100_registration import Registration
from protocols.jt808.registry import _BODIES, DECODERS, MessageBody

_H2013 = struct.Struct(">HH6sH")
_MIN_FRAME = 15  # 7e + 12-byte header + checksum + 7e
_NOT_PLAIN = 0x7C00  # encryption, sub-package or 2019 bits: leave the fast path
_LOW_64_BYTES = (1 << 512) - 1
_LOW_32_BYTES = (1 << 256) - 1
_LOW_16_BYTES = (1 << 128) - 1
_from_bytes = int.from_bytes
_new = object.__new__


@dataclass(frozen=True)
class Message:
    """A decoded frame. ``raw`` is the frame exactly as given (escaped, with its 7e delimiters).
    The body of one sub-package is a RawBody; ``merge_subpackages`` decodes the whole message."""

    header: Header
    body: MessageBody
    raw: bytes


def decode_frame(frame: bytes) -> Message:
    """Decode one frame (with its 7e delimiters, still escaped).

    Raises FramingError (delimiters missing), LengthError (shorter than a header, body-length field
    wrong), ChecksumError, EncryptedBodyError, or BodyError (body does not fit its layout); all are
    JT808Error and nothing else escapes. Unknown message ids decode to RawBody.
    """
    if type(frame) is not bytes:
        frame = bytes(frame)
    n = len(frame)
    if n < _MIN_FRAME or frame[0] != 0x7E or frame[-1] != 0x7E:
        raise _shape_error(frame)
    data = frame
    if 0x7D in frame:
        data = unescape(frame)
        n = len(data)
        if n < _MIN_FRAME:
            raise LengthError(f"frame of {n} unescaped bytes is shorter than a header")
    # XOR of every byte (the two 7e cancel out) is 0 when the checksum is right, computed on the
    # frame as one integer: byte-aligned shifts and folds keep the XOR in the lowest byte.
    if n <= 64:  # most position reports: prefix-XOR by 32, 16, ... 1 bytes
        x = _from_bytes(data)
        x ^= x >> 256
        x ^= x >> 128
        x ^= x >> 64
        x ^= x >> 32
        x ^= x >> 16
        x ^= x >> 8
    elif n <= 128:
        x = _from_bytes(data)
        x = (x >> 512) ^ (x & _LOW_64_BYTES)
        x = (x >> 256) ^ (x & _LOW_32_BYTES)
        x = (x >> 128) ^ (x & _LOW_16_BYTES)
        x = (x >> 64) ^ (x & 0xFFFFFFFFFFFFFFFF)
        x ^= x >> 32
        x ^= x >> 16
        x ^= x >> 8
    else:
        x = xor_checksum(data)
    if x & 0xFF:
        stored = data[-2]
        raise ChecksumError(f"checksum 0x{stored:02X} does not match computed 0x{(x ^ stored) & 0xFF:02X}")
    msg_id, attr, phone_raw, seq = _H2013.unpack_from(data, 1)
    if attr & _NOT_PLAIN:
        header, start = parse_header(data, n)
        version = header.version
        decode = None if header.package_total is not None else DECODERS.get(msg_id)
        body_bytes = data[start:-2]
    else:
        body_length = attr & 0x3FF
        # Filling __dict__ directly is ~3x cheaper than the frozen __init__; version,
        # protocol_version, encrypted and the package fields keep their class defaults.
        header = _new(Header)
        fields = header.__dict__
        fields["msg_id"] = msg_id
        fields["phone"] = phone_raw.hex()
        fields["seq"] = seq
        fields["body_length"] = body_length
        if n - _MIN_FRAME != body_length:
            raise LengthError(f"body-length field says {body_length} bytes, frame holds {n - _MIN_FRAME}", header=header)
        version = "2013"
        decode = DECODERS.get(msg_id)
        body_bytes = data[13:-2]
    if decode is None:
        body: MessageBody = RawBody(body_bytes.hex())
    else:
        try:
            body = decode(body_bytes, version)
        except JT808Error as exc:
            exc.header = exc.header or header
            exc.body = bytes(body_bytes)
            raise
        except Exception as exc:  # a body decoder bug must surface as a codec error, not a crash
            error = BodyError(f"0x{msg_id:04X} body: {exc!r}", header=header)
            error.body = bytes(body_bytes)
            raise error from exc
        if msg_id == 0x0100 and isinstance(body, Registration) and body.layout == "2011" and version != "2019":
            header = replace(header, version="2011")  # the only place a 2011 terminal shows itself
    message: Message = _new(Message)
    fields = message.__dict__
    fields["header"] = header
    fields["body"] = body
    fields["raw"] = frame
    return message


def _shape_error(frame: bytes) -> JT808Error:
    if len(frame) < 2 or frame[0] != 0x7E or frame[-1] != 0x7E:
        return FramingError(f"frame must start and end with 7e: {frame[:8].hex()}...{frame[-8:].hex()}")
    return LengthError(f"frame of {len(frame)} bytes is shorter than a header")


def decode_body(msg_id: int, body: bytes, version: str = "2013") -> MessageBody:
    """Decode a body alone (no header, no checksum). Unknown ids give RawBody.

    Raises UnknownVersionError for a version other than 2011/2013/2019, BodyError if the body does
    not fit its layout. For 0x0100, '2013' detects the 2011 layout by length and '2011' forces it.
    """
    check_version(version)
    body_cls = _BODIES.get(msg_id)
    if body_cls is None:
        return RawBody(bytes(body).hex())
    try:
        decoded: MessageBody = body_cls.decode(bytes(body), version)
    except JT808Error:
        raise
    except Exception as exc:
        raise BodyError(f"0x{msg_id:04X} body: {exc!r}") from exc
    return decoded


def _payload(body: bytes | MessageBody, version: str) -> bytes:
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    try:
        return body.encode(version)
    except struct.error as exc:  # a field outside its WORD/DWORD range
        raise ValueError(f"{type(body).__name__}: {exc}") from exc


def encode_frame(
    msg_id: int,
    body: bytes | MessageBody,
    *,
    phone: str,
    seq: int,
    version: str = "2013",
    protocol_version: int = 1,
) -> bytes:
    """Encode one frame (escaped, delimited). ``body`` is bytes or a body object (encoded for
    ``version``). Raises LengthError for a body over 1023 bytes (use encode_subpackages),
    UnknownVersionError for a bad version, ValueError for a phone that is not digits or too long."""
    payload = _payload(body, check_version(version))
    header = build_header(
        msg_id, len(payload), phone=phone, seq=seq, version=version, protocol_version=protocol_version
    )
    return frame_content(header + payload)


def encode_subpackages(
    msg_id: int,
    body: bytes | MessageBody,
    *,
    phone: str,
    seq: int,
    version: str = "2013",
    protocol_version: int = 1,
    max_body: int = MAX_BODY,
) -> list[bytes]:
    """Split a body into sub-packages of at most ``max_body`` bytes. Package i (from 1) gets serial
    ``seq + i - 1`` (wrapping at 65536) and the header fields total/index. A body that fits in one
    package gives one ordinary frame without package fields."""
    if not 1 <= max_body <= MAX_BODY:
        raise ValueError(f"max_body must be 1..{MAX_BODY}")
    payload = _payload(body, check_version(version))
    if len(payload) <= max_body:
        return [encode_frame(msg_id, payload, phone=phone, seq=seq, version=version, protocol_version=protocol_version)]
    chunks = [payload[i : i + max_body] for i in range(0, len(payload), max_body)]
    total = len(chunks)
    if total > 0xFFFF:
        raise LengthError(f"{total} packages exceed the 65535 a header can count")
    return [
        frame_content(
            build_header(
                msg_id,
                len(chunk),
                phone=phone,
                seq=(seq + index) & 0xFFFF,
                version=version,
                protocol_version=protocol_version,
                package=(total, index + 1),
            )
            + chunk
        )
        for index, chunk in enumerate(chunks)
    ]


def missing_packages(parts: Iterable[Message]) -> list[int]:
    """Package indexes (from 1) not among ``parts``, e.g. for a 0x8003 request."""
    parts = list(parts)
    if not parts:
        return []
    total = parts[0].header.package_total or 1
    present = {p.header.package_index for p in parts}
    return [i for i in range(1, total + 1) if i not in present]


def merge_subpackages(parts: Iterable[Message]) -> Message:
    """Join decoded sub-packages (any order, duplicates ignored) into one decoded message.

    The header is the first package's with the package fields cleared and the merged body length;
    ``raw`` is the frames concatenated in index order. Raises BodyError if parts are missing or do
    not belong together, or if the merged body does not fit its layout.
    """
    parts = list(parts)
    if not parts:
        raise ValueError("no packages to merge")
    first = parts[0].header
    if first.package_total is None:
        raise BodyError("not a sub-packaged message")
    by_index: dict[int | None, Message] = {}
    for part in parts:
        h = part.header
        if (h.msg_id, h.phone, h.package_total) != (first.msg_id, first.phone, first.package_total):
            raise BodyError(f"package {h.package_index} belongs to another message")
        by_index.setdefault(h.package_index, part)
    missing = missing_packages(parts)
    if missing:
        raise BodyError(f"0x{first.msg_id:04X} is missing packages {missing}", header=first)
    ordered = [by_index[i] for i in range(1, first.package_total + 1)]
    body = b"".join(unescape(p.raw)[-2 - p.header.body_length : -2] for p in ordered)
    header = replace(ordered[0].header, body_length=len(body), package_total=None, package_index=None)
    try:
        decoded = decode_body(first.msg_id, body, header.version)
    except JT808Error as exc:
        exc.header = header
        raise
    if isinstance(decoded, Registration) and decoded.layout == "2011":
        header = replace(header, version="2011")
    return Message(header, decoded, b"".join(p.raw for p in ordered))


__all__ = [
    "Message",
    "decode_body",
    "decode_frame",
    "encode_frame",
    "encode_subpackages",
    "merge_subpackages",
    "missing_packages",
]
