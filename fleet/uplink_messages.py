"""Parse the Kafka payloads of ``jt808.uplink.v1`` and ``device.sessions.v1`` (docs/topics.md) into small
typed records: the one decoder of an uplink's ``message`` JSON, shared by the streams (``streams.messages``
re-exports it) and the JT/T 809 link service (``exchange.link``), which may not import ``streams``.

Pure: bytes or dicts in, frozen dataclasses out. Every failure raises :class:`PayloadError` with a
reason that ends up in the dead-letter record, so an operator can tell what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from protocols.jt808.catalogue import (
    BATCH_LOCATION_UPLOAD,
    LOCATION_QUERY_RESPONSE,
    LOCATION_REPORT,
    VEHICLE_CONTROL_RESPONSE,
)

STATUS_ACC_ON = 1 << 0        # status bit 0: ACC on
STATUS_POSITIONED = 1 << 1    # status bit 1: the fix is positioned


class PayloadError(ValueError):
    """A payload that does not follow docs/topics.md. The message is the dead-letter reason."""


class RefusedFrame(PayloadError):
    """An uplink record of a frame the gateway refused (``refused`` set: it answered result 2 / 3): kept
    in the message log with why, and skipped by every other step like any payload they cannot use; not
    a dead letter (the gateway refused it already, and its bad bytes are in the log)."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(f"refused by the gateway: {record.get('refused')}")
        self.record = record


@dataclass(frozen=True, slots=True)
class Uplink:
    """One ``jt808.uplink.v1`` record, with the parts the agents use."""

    phone: str
    device_id: int
    car_id: int | None
    enterprise_id: int
    msg_id: int
    received_at: datetime
    body: dict[str, Any]
    # For the message log (streams.message_log): header serial, the frame as received, whether the
    # gateway left bytes out of it (0x0801 media data), the whole decoded message, the gateway.
    seq: int | None = None
    raw_hex: str = ""
    raw_truncated: bool = False
    message: dict[str, Any] | None = None
    gateway_id: str | None = None


@dataclass(frozen=True, slots=True)
class Fix:
    """One position (a 0x0200 body, or one item of a 0x0704), units already converted by the codec."""

    device_id: int
    car_id: int | None
    enterprise_id: int
    fix_at: datetime
    lat: float
    lng: float
    altitude_m: float
    speed_kmh: float
    direction_deg: int
    alarm_flags: int
    status_flags: int
    mileage_km: float | None
    fuel_l: float | None
    extras: dict[str, Any]
    received_at: datetime
    # Plausibility bits (gps.quality, migration 0038; streams.validation.QUALITY_*): 0 is plausible.
    quality: int = 0

    @property
    def acc_on(self) -> bool:
        return bool(self.status_flags & STATUS_ACC_ON)

    @property
    def positioned(self) -> bool:
        return bool(self.status_flags & STATUS_POSITIONED)


@dataclass(frozen=True, slots=True)
class SessionEvent:
    """One ``device.sessions.v1`` record."""

    phone: str
    device_id: int
    car_id: int | None
    enterprise_id: int
    online: bool
    reason: str
    connection_id: str
    gateway_id: str
    at: datetime
    peer: str | None = None  # the connection's source address (ip:port), when the gateway sent it


def load_json_object(raw: bytes | str) -> dict[str, Any]:
    """Decode a Kafka value. Raises PayloadError for bad UTF-8, bad JSON or a non-object.

    orjson: about 3x faster than the stdlib here, and every uplink is decoded on the hot path. It is
    stricter in two corners (NaN/Infinity literals, integers beyond 64 bits): such values are refused
    as "not JSON" instead of later as out of range; both are dead letters either way.
    """
    try:
        value = orjson.loads(raw)
    except (UnicodeDecodeError, orjson.JSONDecodeError) as exc:
        raise PayloadError(f"not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise PayloadError(f"not a JSON object: {type(value).__name__}")
    return value


def parse_time(value: Any, field: str) -> datetime:
    """ISO 8601 with an explicit offset; naive times are refused (we never guess a zone)."""
    if not isinstance(value, str):
        raise PayloadError(f"{field}: expected an ISO 8601 string, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise PayloadError(f"{field}: not ISO 8601: {value!r}") from exc
    if parsed.tzinfo is None:
        raise PayloadError(f"{field}: time without offset: {value!r}")
    return parsed


def _int(obj: dict[str, Any], field: str, *, optional: bool = False) -> Any:
    value = obj.get(field)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"{field}: expected an integer, got {value!r}")
    return value


def _number(obj: dict[str, Any], field: str, *, optional: bool = False) -> Any:
    value = obj.get(field)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadError(f"{field}: expected a number, got {value!r}")
    return float(value)


def parse_uplink(raw: bytes | str | dict[str, Any]) -> Uplink:
    """One uplink: a record's value (JSON bytes or text) or an item of a batch record, already parsed
    (streams.records). Raises PayloadError."""
    if isinstance(raw, dict):
        obj = raw
    elif isinstance(raw, bytes | bytearray | str):
        obj = load_json_object(raw)
    else:
        raise PayloadError(f"not a JSON object: {type(raw).__name__}")
    if isinstance(obj.get("refused"), dict):
        raise RefusedFrame(obj)
    message = obj.get("message")
    body = message.get("body") if isinstance(message, dict) else None
    if not isinstance(body, dict):
        raise PayloadError("message.body: missing or not an object")
    return Uplink(
        phone=str(obj.get("phone", "")),
        device_id=_int(obj, "device_id"),
        car_id=_int(obj, "car_id", optional=True),
        enterprise_id=_int(obj, "enterprise_id"),
        msg_id=_int(obj, "msg_id"),
        received_at=parse_time(obj.get("received_at"), "received_at"),
        body=body,
        seq=obj.get("seq"),
        raw_hex=obj.get("raw_hex") or "",
        raw_truncated=obj.get("raw_truncated") is True,
        message=message,
        gateway_id=obj.get("gateway_id"),
    )


@dataclass(frozen=True, slots=True)
class SecurityNotice:
    """A ``device.sessions.v1`` record with ``event: security`` (the gateway's takeover notices);
    it never changes online state. ``reason``: ``session_replaced``, ``code_replaced``, ``identity_mismatch``,
    ``imei_mismatch``, ``reregistration_pending`` (gateway/login.py) or ``evidence_mismatch`` (from the API)."""

    phone: str
    device_id: int
    car_id: int | None
    enterprise_id: int
    reason: str
    connection_id: str
    peer: str | None
    replaced_connection_id: str | None
    replaced_peer: str | None
    at: datetime
    request_id: int | None = None  # reregistration_pending: the approval request (registration_request)


def _optional_text(obj: dict[str, Any], field: str) -> str | None:
    value = obj.get(field)
    return None if value is None else str(value)[:200]


def parse_sessions_record(raw: bytes | str) -> SessionEvent | SecurityNotice:
    """A ``device.sessions.v1`` record: a session event or a security notice. Raises PayloadError."""
    obj = load_json_object(raw)
    if obj.get("event") != "security":
        return parse_session(obj)
    return SecurityNotice(
        phone=str(obj.get("phone", "")),
        device_id=_int(obj, "device_id"),
        car_id=_int(obj, "car_id", optional=True),
        enterprise_id=_int(obj, "enterprise_id"),
        reason=str(obj.get("reason") or "")[:64],
        connection_id=str(obj.get("connection_id") or ""),
        peer=_optional_text(obj, "peer"),
        replaced_connection_id=_optional_text(obj, "replaced_connection_id"),
        replaced_peer=_optional_text(obj, "replaced_peer"),
        at=parse_time(obj.get("at"), "at"),
        request_id=_int(obj, "request_id", optional=True),
    )


def parse_session(raw: bytes | str | dict[str, Any]) -> SessionEvent:
    obj = raw if isinstance(raw, dict) else load_json_object(raw)
    event = obj.get("event")
    if event not in ("online", "offline"):
        raise PayloadError(f"event: expected 'online' or 'offline', got {event!r}")
    return SessionEvent(
        phone=str(obj.get("phone", "")),
        device_id=_int(obj, "device_id"),
        car_id=_int(obj, "car_id", optional=True),
        enterprise_id=_int(obj, "enterprise_id"),
        online=event == "online",
        reason=str(obj.get("reason") or ""),
        connection_id=str(obj.get("connection_id") or ""),
        gateway_id=str(obj.get("gateway_id") or ""),
        at=parse_time(obj.get("at"), "at"),
        peer=_optional_text(obj, "peer"),
    )


def parse_fix(uplink: Uplink, body: dict[str, Any]) -> Fix:
    """A 0x0200 body (or 0x0704 item) of ``uplink`` as a Fix. Raises PayloadError."""
    if not isinstance(body, dict):
        raise PayloadError(f"location body is not an object: {body!r}")
    extras = body.get("extras") or {}
    if not isinstance(extras, dict):
        raise PayloadError("extras: not an object")
    stored_extras = dict(extras)
    if body.get("unknown_items"):
        stored_extras["unknown_items"] = body["unknown_items"]
    return Fix(
        device_id=uplink.device_id,
        car_id=uplink.car_id,
        enterprise_id=uplink.enterprise_id,
        fix_at=parse_time(body.get("fix_at"), "fix_at"),
        lat=_number(body, "lat"),
        lng=_number(body, "lng"),
        altitude_m=_number(body, "altitude_m", optional=True) or 0.0,
        speed_kmh=_number(body, "speed_kmh"),
        direction_deg=_int(body, "direction_deg", optional=True) or 0,
        alarm_flags=_int(body, "alarm_flags", optional=True) or 0,
        status_flags=_int(body, "status_flags", optional=True) or 0,
        mileage_km=_number(extras, "mileage_km", optional=True),
        fuel_l=_number(extras, "fuel_l", optional=True),
        extras=stored_extras,
        received_at=uplink.received_at,
    )


def location_bodies(uplink: Uplink) -> list[dict[str, Any]]:
    """The location bodies an uplink carries: one for 0x0200, 0x0201 and 0x0500 (its ``location``), the
    items of a 0x0704, none otherwise."""
    if uplink.msg_id == LOCATION_REPORT:
        return [uplink.body]
    if uplink.msg_id in (LOCATION_QUERY_RESPONSE, VEHICLE_CONTROL_RESPONSE):
        location = uplink.body.get("location")
        if not isinstance(location, dict):
            raise PayloadError(f"0x{uplink.msg_id:04X} location: missing or not an object")
        return [location]
    if uplink.msg_id == BATCH_LOCATION_UPLOAD:
        items = uplink.body.get("items")
        if not isinstance(items, list):
            raise PayloadError("0x0704 items: missing or not a list")
        return items
    return []
