"""to_json(message): a JSON-safe dict ``{"header": {...}, "name": ..., "body": ...}`` of a GB/T 32960 or
GB 17691 message.

Datetimes become ISO 8601 UTC strings, bytes hex, ``Special`` values the strings "abnormal" /
"invalid", tuples lists, dataclasses dicts of their fields plus ``"type"`` (the class name) and, for
a real-time block, ``"info_type"``; a data unit without a typed class is ``{"hex": ...}``.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import Enum
from typing import Any

from protocols.gb32960.catalogue import BY_FAMILY
from protocols.gb32960.codec import Message, family
from protocols.gb32960.messages import Alarms
from protocols.gb32960.messages.blocks_2016 import SignedCoordinates
from protocols.gb32960.values import Special

_PLAIN = frozenset((bool, int, float, str, type(None)))  # exactly these types (an IntEnum is an Enum here)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # a dataclass's field names, read once per class


def _safe(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list or kind is tuple:
        # a pack's cell voltages and probe temperatures: hundreds of plain numbers, copied as they are
        if _PLAIN.issuperset(map(type, value)):  # the types looked at in C, not in a generator
            return list(value)
        return [v if type(v) in _PLAIN else _safe(v) for v in value]
    if isinstance(value, Special):
        return value.value
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    names = _FIELD_NAMES.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES.setdefault(kind, tuple(f.name for f in dataclasses.fields(value)))
    if names is not None:
        out: dict[str, Any] = {"type": kind.__name__}
        for name in names:  # a plain field (most of them) is taken without a call
            field = getattr(value, name)
            out[name] = field if type(field) in _PLAIN else _safe(field)
        info_type = getattr(value, "INFO_TYPE", getattr(value, "info_type", None))
        if isinstance(info_type, int):
            out["info_type"] = f"0x{info_type:02X}"
        if isinstance(value, SignedCoordinates):
            out |= {"lat": value.lat, "lng": value.lng, "fix_valid": value.fix_valid}
        if isinstance(value, Alarms):
            out["general_alarms"] = list(value.general_names)
        return out
    if isinstance(value, list | tuple):
        return [_safe(v) for v in value]
    return str(value)


def to_json(message: Message) -> dict[str, Any]:
    h = message.header
    header: dict[str, Any] = {"protocol": h.protocol.value, "command": f"0x{h.command:02X}", "vin": h.vin,
                              "encryption": h.encryption, "length": h.length}
    if h.response is not None:
        header["response"] = h.response
    if h.software_version is not None:
        header["software_version"] = h.software_version
    info = BY_FAMILY[family(h.protocol)].get(h.command)
    out: dict[str, Any] = {"header": header, "name": info.name_en if info else None}
    body = message.body
    out["body"] = {"hex": bytes(body).hex()} if isinstance(body, bytes | bytearray) else _safe(body)
    return out
