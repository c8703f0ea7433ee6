"""Builders of the documented payloads (docs/topics.md) the streams agents consume.

For tests, the benchmark and replay tools that produce to Kafka directly, without a gateway. The
shapes follow the gateway's: ``message`` is ``protocols.jt808.to_json(message)``, i.e.
``{header: {...}, body: {...}}``; only the parts the agents read are filled in meaningfully.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD, LOCATION_REPORT
from streams.console import iso
from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED


@dataclass(frozen=True)
class Terminal:
    phone: str
    device_id: int
    car_id: int | None
    enterprise_id: int


def location_body(*, fix_at: datetime, lat: float = 39.91, lng: float = 116.39, speed_kmh: float = 0.0,
                  acc_on: bool = True, positioned: bool = True, direction_deg: int = 0,
                  alarm_flags: int = 0, mileage_km: float | None = None) -> dict[str, Any]:
    status = (STATUS_ACC_ON if acc_on else 0) | (STATUS_POSITIONED if positioned else 0)
    extras: dict[str, Any] = {}
    if mileage_km is not None:
        extras["mileage_km"] = mileage_km
    return {
        "alarm_flags": alarm_flags, "status_flags": status, "lat": lat, "lng": lng, "altitude_m": 50.0,
        "speed_kmh": speed_kmh, "direction_deg": direction_deg, "fix_at": iso(fix_at),
        "extras": extras, "unknown_items": [],
    }


def uplink(terminal: Terminal, msg_id: int, body: dict[str, Any], *, seq: int = 0,
           received_at: datetime | None = None) -> dict[str, Any]:
    received_at = received_at or datetime.now(UTC)
    header = {"msg_id": msg_id, "phone": terminal.phone, "seq": seq, "version": "2013",
              "protocol_version": None, "encrypted": False, "body_length": 28,
              "package_total": None, "package_index": None}
    return {
        "phone": terminal.phone, "device_id": terminal.device_id, "car_id": terminal.car_id,
        "enterprise_id": terminal.enterprise_id, "msg_id": msg_id, "seq": seq, "protocol_version": "2013",
        "raw_hex": "7e7e", "message": {"header": header, "body": body},
        "connection_id": "test-conn", "gateway_id": "test-gw", "received_at": iso(received_at),
    }


def frame_uplink(terminal: Terminal, frame: bytes, *, received_at: datetime | None = None) -> dict[str, Any]:
    """The uplink record a gateway forwards for a real (escaped, delimited) frame: its ``raw_hex`` and
    ``protocols.jt808.to_json`` of it, as the message log stores them."""
    from protocols.jt808 import decode_frame, to_json

    message = to_json(decode_frame(frame))
    header = message["header"]
    record = uplink(terminal, header["msg_id"], message["body"], seq=header["seq"], received_at=received_at)
    record.update(raw_hex=frame.hex(), message=message, protocol_version=header["version"])
    return record


def location_report(terminal: Terminal, *, seq: int = 0, received_at: datetime | None = None,
                    **fix: Any) -> dict[str, Any]:
    """A 0x0200 uplink; ``fix`` goes to :func:`location_body`."""
    return uplink(terminal, LOCATION_REPORT, location_body(**fix), seq=seq, received_at=received_at)


def location_batch(terminal: Terminal, items: list[dict[str, Any]], *, backlog: bool = True,
                   seq: int = 0, received_at: datetime | None = None) -> dict[str, Any]:
    """A 0x0704 uplink of :func:`location_body` items."""
    body = {"kind": 1 if backlog else 0, "items": items}
    return uplink(terminal, BATCH_LOCATION_UPLOAD, body, seq=seq, received_at=received_at)


def session(terminal: Terminal, *, online: bool, at: datetime | None = None, reason: str = "",
            connection_id: str = "test-conn", peer: str | None = None) -> dict[str, Any]:
    return {
        "phone": terminal.phone, "device_id": terminal.device_id, "car_id": terminal.car_id,
        "enterprise_id": terminal.enterprise_id, "event": "online" if online else "offline",
        "reason": reason or ("auth" if online else "closed"), "connection_id": connection_id,
        "gateway_id": "test-gw", "at": iso(at or datetime.now(UTC)), "peer": peer,
    }
