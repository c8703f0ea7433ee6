"""to_json(message): a JSON-safe dict ``{"header": {...}, "body": {...}}``.

Datetimes become ISO 8601 UTC strings (``+00:00``), bytes become hex, tuples lists, dataclasses
dicts of their fields. An unknown item is ``{id, hex}`` (plus ``truncated: true`` when it overran).
Headers and 0x0200 bodies, one per uplink in the gateway, have hand-written converters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from protocols.jt808.codec import Message
from protocols.jt808.extras import UnknownItem
from protocols.jt808.header import Header
from protocols.jt808.messages._areas import (
    AREA_ATTRIBUTE_NAMES,
    QUERY_TYPE_NAMES,
    ROUTE_ATTRIBUTE_NAMES,
    SEGMENT_ATTRIBUTE_NAMES,
    SET_ACTION_NAMES,
    flag_names,
)
from protocols.jt808.messages.params import PARAM_NAMES, TerminalParam
from protocols.jt808.messages.t0200_location_report import LocationReport, location_problems
from protocols.jt808.messages.t0608_query_areas_response import QueryAreasResponse
from protocols.jt808.messages.t8600_set_circle_areas import CircleArea, SetCircleAreas
from protocols.jt808.messages.t8602_set_rectangle_areas import RectangleArea, SetRectangleAreas
from protocols.jt808.messages.t8604_set_polygon_area import SetPolygonArea
from protocols.jt808.messages.t8606_set_route import RoutePoint, SetRoute
from protocols.jt808.messages.t8608_query_areas import QueryAreas

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
# Fix times are shared by many reports (see fields.bcd_time_to_utc), and isoformat() is slow.
_ISO_CACHE: dict[datetime, str] = {}
_ISO_CACHE_MAX = 8192


def iso_utc(moment: datetime) -> str:
    """ISO 8601 in UTC (``+00:00``). A naive datetime (never produced by the codec) is left as is."""
    if moment.tzinfo is not UTC:
        if moment.tzinfo is None:
            return moment.isoformat()
        moment = moment.astimezone(UTC)
    text = _ISO_CACHE.get(moment)
    if text is None:
        if len(_ISO_CACHE) >= _ISO_CACHE_MAX:
            _ISO_CACHE.clear()
        text = _ISO_CACHE[moment] = moment.isoformat()
    return text


def to_json(message: Message) -> dict[str, Any]:
    """Never raises for a message decode_frame produced."""
    return {"header": header_json(message.header), "body": to_json_value(message.body)}


def header_json(h: Header) -> dict[str, Any]:
    return {
        "msg_id": h.msg_id,
        "phone": h.phone,
        "seq": h.seq,
        "version": h.version,
        "protocol_version": h.protocol_version,
        "encrypted": h.encrypted,
        "body_length": h.body_length,
        "package_total": h.package_total,
        "package_index": h.package_index,
    }


def _copy_json_safe(value: Any) -> Any:
    # Item decoders return JSON-safe values (registry contract); copy containers so the caller
    # cannot mutate the message through the JSON.
    if type(value) is dict:
        return {k: _copy_json_safe(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy_json_safe(v) for v in value]
    return value


def location_json(r: LocationReport) -> dict[str, Any]:
    """``problems`` (e.g. ``["latitude 91.2 > 90"]``) is present only for a fix off the earth."""
    extras = r.extras
    out = {
        "alarm_flags": r.alarm_flags,
        "status_flags": r.status_flags,
        "lat": r.lat,
        "lng": r.lng,
        "altitude_m": r.altitude_m,
        "speed_kmh": r.speed_kmh,
        "direction_deg": r.direction_deg,
        "fix_at": iso_utc(r.fix_at),
        "extras": {
            k: (v if type(v) in _SCALARS else _copy_json_safe(to_json_value(v))) for k, v in extras.items()
        },
        "unknown_items": [_unknown_json(item) for item in r.unknown_items],
    }
    lat = r.lat
    lng = r.lng
    if lat > 90.0 or lat < -90.0 or lng > 180.0 or lng < -180.0:
        out["problems"] = location_problems(lat, lng)
    return out


def param_json(p: TerminalParam) -> dict[str, Any]:
    """``{id, name, value, value_hex}``: name from the standard's table (None for other ids)."""
    return {
        "id": p.id,
        "name": PARAM_NAMES.get(p.id),
        "value": to_json_value(p.value),
        "value_hex": _param_hex(p),
    }


def _param_hex(p: TerminalParam) -> str | None:
    try:
        return p.value_bytes().hex().upper()
    except (ValueError, UnicodeError):  # a hand-built value that cannot be encoded
        return None


def _unknown_json(item: UnknownItem) -> dict[str, Any]:
    out: dict[str, Any] = {"id": item.id, "hex": item.hex}
    if item.truncated:
        out["truncated"] = True
    return out


def _with_flag_names(names: dict[int, str]) -> Callable[[Any], Any]:
    """An area's fields, plus ``attribute_flags``: its attribute bits by name (``["by_time", ...]``)."""

    def convert(value: Any) -> dict[str, Any]:
        out = _dataclass_json(value)
        out["attribute_flags"] = flag_names(value.attributes, names)
        return out

    return convert


def _with_name(field: str, names: dict[int, str]) -> Callable[[Any], Any]:
    """A body's fields, plus ``<field>_name`` (``action_name: "append"``, ``query_type_name: "route"``)."""

    def convert(value: Any) -> dict[str, Any]:
        out = _dataclass_json(value)
        out[f"{field}_name"] = names.get(getattr(value, field))
        return out

    return convert


_SCALARS = frozenset({int, float, str, bool, type(None)})
_CONVERTERS: dict[type, Callable[[Any], Any]] = {
    Header: header_json,
    LocationReport: location_json,
    UnknownItem: _unknown_json,
    TerminalParam: param_json,
    CircleArea: _with_flag_names(AREA_ATTRIBUTE_NAMES),
    RectangleArea: _with_flag_names(AREA_ATTRIBUTE_NAMES),
    SetPolygonArea: _with_flag_names(AREA_ATTRIBUTE_NAMES),
    SetRoute: _with_flag_names(ROUTE_ATTRIBUTE_NAMES),
    RoutePoint: _with_flag_names(SEGMENT_ATTRIBUTE_NAMES),
    SetCircleAreas: _with_name("action", SET_ACTION_NAMES),
    SetRectangleAreas: _with_name("action", SET_ACTION_NAMES),
    QueryAreas: _with_name("query_type", QUERY_TYPE_NAMES),
    QueryAreasResponse: _with_name("query_type", QUERY_TYPE_NAMES),
}


def to_json_value(value: Any) -> Any:
    """Convert a header, body or field value to JSON-safe types."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    converter = _CONVERTERS.get(cls)
    if converter is not None:
        return converter(value)
    if isinstance(value, datetime):
        return iso_utc(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, bool | int | float | str):
        return value
    if not dataclasses.is_dataclass(cls):
        return str(value)
    return _dataclass_json(value)


def _dataclass_json(value: Any) -> dict[str, Any]:
    cls = type(value)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return {name: to_json_value(getattr(value, name)) for name in names}
