"""A small FLV muxer and reader (Adobe FLV 10.1, with codec id 12 for H.265 as SRS, ZLMediaKit and
mpegts.js use it). Pure; the reader is what the tests and benchmarks parse the server's output with.

Why FLV and not fragmented MP4: mpegts.js (and flv.js) play HTTP-FLV and WebSocket-FLV through Media
Source Extensions with sub-second latency, every tag can be fanned out to every viewer as the same
bytes (fMP4 needs a per-viewer moof sequence number and a fragment per GOP or per frame), and a new
viewer needs only the header, the two sequence headers and the cached GOP.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

AUDIO, VIDEO, SCRIPT = 8, 9, 18
CODEC_AVC, CODEC_HEVC = 7, 12
SOUND_AAC = 10
KEY, INTER = 1, 2


def header(has_audio: bool, has_video: bool) -> bytes:
    flags = (4 if has_audio else 0) | (1 if has_video else 0)
    return b"FLV\x01" + bytes((flags,)) + (9).to_bytes(4, "big") + b"\x00\x00\x00\x00"


def tag(tag_type: int, timestamp_ms: int, data: bytes) -> bytes:
    ts = timestamp_ms & 0xFFFFFFFF
    head = bytes((tag_type,)) + len(data).to_bytes(3, "big") + (ts & 0xFFFFFF).to_bytes(3, "big") + bytes(
        (ts >> 24,)) + b"\x00\x00\x00"
    return head + data + (11 + len(data)).to_bytes(4, "big")


def video_config_tag(codec: int, config: bytes, timestamp_ms: int = 0) -> bytes:
    return tag(VIDEO, timestamp_ms, bytes((KEY << 4 | codec, 0, 0, 0, 0)) + config)


def video_tag(codec: int, timestamp_ms: int, payload: bytes, keyframe: bool, cts_ms: int = 0) -> bytes:
    return tag(VIDEO, timestamp_ms, bytes(((KEY if keyframe else INTER) << 4 | codec, 1))
               + (cts_ms & 0xFFFFFF).to_bytes(3, "big") + payload)


def aac_config_tag(asc: bytes, timestamp_ms: int = 0) -> bytes:
    return tag(AUDIO, timestamp_ms, b"\xaf\x00" + asc)


def aac_tag(timestamp_ms: int, raw: bytes) -> bytes:
    return tag(AUDIO, timestamp_ms, b"\xaf\x01" + raw)


def _amf_string(text: str) -> bytes:
    raw = text.encode()
    return len(raw).to_bytes(2, "big") + raw


def _amf_value(value: Any) -> bytes:
    if isinstance(value, bool):
        return b"\x01" + bytes((1 if value else 0,))
    if isinstance(value, int | float):
        return b"\x00" + struct.pack(">d", float(value))
    return b"\x02" + _amf_string(str(value))


def metadata_tag(fields: dict[str, Any]) -> bytes:
    """onMetaData as an AMF0 ECMA array (numbers, booleans, strings)."""
    body = b"\x02" + _amf_string("onMetaData") + b"\x08" + len(fields).to_bytes(4, "big")
    for key, value in fields.items():
        body += _amf_string(key) + _amf_value(value)
    return tag(SCRIPT, 0, body + b"\x00\x00\x09")


@dataclass(frozen=True)
class Tag:
    tag_type: int
    timestamp_ms: int
    data: bytes

    @property
    def keyframe(self) -> bool:
        return self.tag_type == VIDEO and self.data[0] >> 4 == KEY

    @property
    def is_config(self) -> bool:
        return self.tag_type in (AUDIO, VIDEO) and len(self.data) > 1 and self.data[1] == 0


class FlvReader:
    """Incremental reader: ``feed(bytes)`` -> complete tags; ``has_audio``/``has_video`` from the header.
    Raises ValueError on a bad signature or a previous-tag-size mismatch."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.header_read = False
        self.has_audio = self.has_video = False

    def feed(self, data: bytes) -> list[Tag]:
        buf = self._buf
        buf += data
        out: list[Tag] = []
        at = 0
        if not self.header_read:
            if len(buf) < 13:
                return out
            if buf[:3] != b"FLV":
                raise ValueError(f"not FLV: {bytes(buf[:3])!r}")
            self.has_audio, self.has_video = bool(buf[4] & 4), bool(buf[4] & 1)
            at = int.from_bytes(buf[5:9], "big") + 4
            self.header_read = True
        while len(buf) - at >= 11:
            size = int.from_bytes(buf[at + 1:at + 4], "big")
            end = at + 11 + size + 4
            if len(buf) < end:
                break
            ts = int.from_bytes(buf[at + 4:at + 7], "big") | buf[at + 7] << 24
            if int.from_bytes(buf[end - 4:end], "big") != 11 + size:
                raise ValueError(f"previous tag size of the tag at {at} is wrong")
            out.append(Tag(buf[at], ts, bytes(buf[at + 11:at + 11 + size])))
            at = end
        del buf[:at]
        return out


def parse_flv(data: bytes) -> tuple[bool, bool, list[Tag]]:
    reader = FlvReader()
    tags = reader.feed(data)
    return reader.has_audio, reader.has_video, tags


def parse_metadata(data: bytes) -> dict[str, Any]:
    """The onMetaData fields of a script tag's data (the subset ``metadata_tag`` writes)."""
    at = 3 + int.from_bytes(data[1:3], "big")
    if data[at] != 8:
        raise ValueError("onMetaData is not an ECMA array")
    count = int.from_bytes(data[at + 1:at + 5], "big")
    at += 5
    out: dict[str, Any] = {}
    for _ in range(count):
        size = int.from_bytes(data[at:at + 2], "big")
        key = data[at + 2:at + 2 + size].decode()
        at += 2 + size
        marker = data[at]
        if marker == 0:
            out[key] = struct.unpack(">d", data[at + 1:at + 9])[0]
            at += 9
        elif marker == 1:
            out[key] = bool(data[at + 1])
            at += 2
        else:
            size = int.from_bytes(data[at + 1:at + 3], "big")
            out[key] = data[at + 3:at + 3 + size].decode()
            at += 3 + size
    return out


def iter_nal_units(payload: bytes) -> Iterator[bytes]:
    """The NAL units of a video tag's payload (after its 5-byte header): 4-byte lengths."""
    at = 0
    while at + 4 <= len(payload):
        size = int.from_bytes(payload[at:at + 4], "big")
        yield payload[at + 4:at + 4 + size]
        at += 4 + size
