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


@dataclasses.dataclass(frozen=True, slots=True)
class _Shape:
    """What a dataclass's JSON holds besides its fields, read once per class: its name, its info type as text when
    the class declares one (``None``: an ``info_type`` field of its own, a custom block's), whether it has
    coordinates or general alarm names to add."""

    name: str
    fields: tuple[str, ...]
    info_type: str | None
    own_info_type: bool
    coordinates: bool
    alarms: bool


_SHAPES: dict[type, _Shape] = {}


def _shape(kind: type) -> _Shape | None:
    shape = _SHAPES.get(kind)
    if shape is None and dataclasses.is_dataclass(kind):
        declared = getattr(kind, "INFO_TYPE", None)
        names = tuple(f.name for f in dataclasses.fields(kind))
        shape = _SHAPES.setdefault(kind, _Shape(
            kind.__name__, names, f"0x{declared:02X}" if isinstance(declared, int) else None,
            not isinstance(declared, int) and "info_type" in names,
            issubclass(kind, SignedCoordinates), issubclass(kind, Alarms)))
    return shape


def _object(value: Any, shape: _Shape) -> dict[str, Any]:
    out: dict[str, Any] = {"type": shape.name}
    for name in shape.fields:  # a plain field (most of them) is taken without a call
        field = getattr(value, name)
        out[name] = field if type(field) in _PLAIN else _safe(field)
    if shape.info_type is not None:
        out["info_type"] = shape.info_type
    elif shape.own_info_type and isinstance(value.info_type, int):
        out["info_type"] = f"0x{value.info_type:02X}"
    if shape.coordinates:
        out |= {"lat": value.lat, "lng": value.lng, "fix_valid": value.fix_valid}
    if shape.alarms:
        out["general_alarms"] = list(value.general_names)
    return out


def _safe(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    shape = _SHAPES.get(kind)  # the blocks and their parts, found first: most values that are not plain
    if shape is not None:
        return _object(value, shape)
    if kind is list or kind is tuple:
        # a pack's cell voltages and probe temperatures: hundreds of plain numbers, copied as they are
        if _PLAIN.issuperset(map(type, value)):  # the types looked at in C, not in a generator
            return list(value)
        return [v if type(v) in _PLAIN else _safe(v) for v in value]
    if kind is Special:
        return value.value
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    shape = _shape(kind)
    if shape is not None:
        return _object(value, shape)
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
