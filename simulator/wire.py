"""What a virtual terminal puts on the wire and reads back, through the codec (protocols.jt808)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from protocols.jt808 import (
    Authentication,
    BatchLocationUpload,
    FrameReader,
    JT808Error,
    LocationReport,
    Message,
    PlatformResponse,
    Registration,
    RegistrationResponse,
    TerminalResponse,
    decode_frame,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
)
from protocols.jt808.catalogue import PLATFORM_RESPONSE, REGISTRATION, REGISTRATION_RESPONSE
from protocols.jt808.header import MAX_BODY
from simulator.driving import Sample

log = logging.getLogger("simulator.wire")



@dataclass(frozen=True)
class Reply:
    """A platform message as the terminal cares about it. ``body``: the decoded body of any other
    message (a command); None with ``malformed`` when its header was readable but its body not."""

    msg_id: int
    seq: int
    ack_seq: int = -1
    ack_msg_id: int = -1
    result: int = -1
    auth_code: str | None = None
    body: Any = field(default=None, compare=False)
    malformed: bool = False


def location_report(sample: Sample, fix_at: datetime, items: dict[str, Any] | None = None) -> LocationReport:
    """``items``: further additional items (``adas_alarm``/``dsm_alarm`` from simulator.alarms)."""
    return LocationReport(
        alarm_flags=sample.alarm_flags, status_flags=sample.status_flags, lat=sample.lat, lng=sample.lng,
        altitude_m=sample.altitude_m, speed_kmh=sample.speed_kmh, direction_deg=sample.direction_deg,
        fix_at=fix_at, extras={"mileage_km": sample.mileage_km, "gnss_satellites": 12, "rssi": 25, **(items or {})})


def batch_body(reports: list[LocationReport], kind: int, version: str) -> bytes:
    """0x0704 body (kind 1: blind-area backlog)."""
    return BatchLocationUpload(kind, tuple(reports)).encode(version)


def registration_body(terminal_id: str, version: str) -> bytes:
    id_width = 30 if version == "2019" else 7
    body = Registration(province_id=11, city_id=100, manufacturer_id="FLEET", terminal_model="SIM-808",
                        terminal_id=terminal_id[-id_width:], plate_color=2, plate_number="")
    return body.encode(version)


def auth_body(auth_code: str, version: str, imei: str = "860000000000000") -> bytes:
    return Authentication(auth_code, imei, "sim-1.0").encode(version)


def terminal_ack_body(seq: int, msg_id: int, result: int) -> bytes:
    return TerminalResponse(seq, msg_id, result).encode("2013")


def frame(msg_id: int, body: bytes, phone: str, seq: int, version: str) -> bytes:
    return encode_frame(msg_id, body, phone=phone_for(phone, version), seq=seq, version=version)


def frames(msg_id: int, body: bytes, phone: str, seq: int, version: str) -> list[bytes]:
    """One frame, or sub-packages with serials ``seq``, ``seq + 1``, ... for a body over one frame's 1023
    bytes (a 0x0608 listing many areas)."""
    return encode_subpackages(msg_id, body, phone=phone_for(phone, version), seq=seq, version=version)


def package_count(body: bytes) -> int:
    return max(1, -(-len(body) // MAX_BODY))


def phone_for(phone: str, version: str) -> str:
    """2019 headers carry 20 BCD digits: the 12-digit phone zero-padded on the left."""
    return phone.zfill(20) if version == "2019" else phone


def new_frame_reader() -> FrameReader:
    return FrameReader()


@dataclass
class Reassembly:
    """Sub-packaged downlinks (a polygon or route too long for one frame), joined before they are
    answered: the joined message carries the first package's serial, the one its answer names. One
    set per message id at a time: a package of another set (other total or serial run) starts over."""

    parts: dict[int, list[Message]] = field(default_factory=dict)

    def add(self, msg: Message) -> Message | None:
        """The joined message once every package is in, else None. Raises JT808Error (with the
        header) when the joined body does not decode."""
        h = msg.header
        total, index = h.package_total or 0, h.package_index or 0
        parts = self.parts.setdefault(h.msg_id, [])
        if parts:
            first = parts[0].header
            first_seq = (first.seq - ((first.package_index or 1) - 1)) & 0xFFFF
            if first.package_total != total or (h.seq - (index - 1)) & 0xFFFF != first_seq:
                parts.clear()
        parts.append(msg)
        if len({p.header.package_index for p in parts}) < total:
            return None
        del self.parts[h.msg_id]
        return merge_subpackages(parts)


def decode_replies(reader: FrameReader, data: bytes, joined: Reassembly | None = None) -> list[Reply]:
    replies = []
    for item in reader.feed(data):
        if isinstance(item, JT808Error):
            log.warning("bad bytes from the gateway: %s", item)
            continue
        try:
            msg = decode_frame(item)
            if joined is not None and msg.header.package_total is not None:
                whole = joined.add(msg)
                if whole is None:
                    continue
                msg = whole
        except JT808Error as exc:
            log.warning("undecodable frame from the gateway (%s): %s", exc, item.hex())
            header = exc.header
            if header is not None and header.msg_id not in (PLATFORM_RESPONSE, REGISTRATION_RESPONSE):
                replies.append(Reply(header.msg_id, header.seq, malformed=True))  # answered "message error"
            continue
        body = msg.body
        seq = msg.header.seq
        if isinstance(body, PlatformResponse):
            replies.append(Reply(msg.header.msg_id, seq, body.reply_seq, body.reply_msg_id, body.result))
        elif isinstance(body, RegistrationResponse):
            replies.append(Reply(msg.header.msg_id, seq, body.reply_seq, REGISTRATION, body.result, body.auth_code))
        else:
            replies.append(Reply(msg.header.msg_id, seq, body=body))
    return replies
