"""to_json(message): a JSON-safe dict ``{"header": {...}, "name": ..., "body": ...}`` of a JT/T 809 message.

Datetimes become ISO 8601 UTC strings, bytes hex, enums their name, tuples lists, dataclasses dicts of
their fields; a body without a typed class is ``{"hex": ...}``.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import IntEnum
from typing import Any

from protocols.jt809.catalogue import BY_DATA_TYPE, BY_ID
from protocols.jt809.codec import Message


def _safe(value: Any) -> Any:
    if isinstance(value, IntEnum):
        return value.name
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe(v) for v in value]
    return str(value)


def to_json(message: Message) -> dict[str, Any]:
    h = message.header
    header = {
        "msg_id": f"0x{h.msg_id:04X}", "length": h.length, "sn": h.sn, "centre_id": h.centre_id,
        "protocol_version": ".".join(map(str, h.protocol_version)), "encrypted": h.encrypted, "key": h.key,
        "version": h.version,
    }
    if h.timestamp is not None:
        header["time"] = _safe(h.time) if h.time is not None else h.timestamp
    info = BY_ID.get(h.msg_id)
    out: dict[str, Any] = {"header": header, "name": info.name_en if info else None}
    body = message.body
    if isinstance(body, bytes | bytearray):
        out["body"] = {"hex": bytes(body).hex()}
        return out
    out["body"] = _safe(body)
    data_type = getattr(body, "data_type", None)
    if isinstance(data_type, int):
        out["body"]["data_type"] = f"0x{data_type:04X}"
        if data_type in BY_DATA_TYPE:
            out["data_type_name"] = BY_DATA_TYPE[data_type].name_en
    return out


def body_to_json(body: Any) -> Any:
    """A body (typed or bytes) alone as JSON-safe values, as ``to_json`` writes it (a link logs the frames it
    builds before there is a decoded header)."""
    return {"hex": bytes(body).hex()} if isinstance(body, bytes | bytearray) else _safe(body)
