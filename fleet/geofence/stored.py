"""A stored fence (a ``fence`` row, migration 0040) as a ``Fence`` of the check, pure.

``fence_from_row(row)`` reads the row's columns (snake_case, as warehouse/queries/fence_events.py returns
them); its ``shape`` + ``geometry`` go through the one geometry reader, ``fleet.geofence.geometry.parse_shape``
(its docstring gives each shape's JSON), the same that validated the row when it was written.

Failure modes: ``Unsupported`` for a shape the check cannot take here (a district without its polygons in
this process: ``district_parts`` is the reverse geocoder's district data); ``InvalidGeometry`` (a
``ValueError``) naming the field for a row whose geometry is not what its shape says (the caller logs it and
skips that fence: one bad fence never stops the others).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fleet.geofence.geometry import DistrictParts, parse_shape
from fleet.geofence.rules import Fence, FenceType, TimeWindow
from fleet.geofence.shapes import Shape

__all__ = ["DistrictParts", "Unsupported", "attributes_of", "fence_from_row", "shape_of"]


class Unsupported(ValueError):
    """A fence the platform check cannot watch in this process (named in the message)."""


def shape_of(shape: str, geometry: Any, district_parts: DistrictParts | None = None) -> Shape:
    """The check's shape of a stored ``shape`` + ``geometry``; raises InvalidGeometry / Unsupported."""
    if shape == "district":
        adcode = geometry.get("districtId") if isinstance(geometry, Mapping) else None
        if district_parts is None or not isinstance(adcode, str) or not district_parts(adcode):
            raise Unsupported(f"district {adcode or '?'}: no polygons for it in this process")
    return parse_shape(shape, geometry, district_parts)


def attributes_of(bits: int) -> frozenset[int]:
    """The attribute numbers of the table's bit set (bit n set = attribute n, migration 0040)."""
    return frozenset(n for n in range(32) if bits >> n & 1)


def fence_from_row(row: Mapping[str, Any], district_parts: DistrictParts | None = None) -> Fence:
    """The check's ``Fence`` of a stored row (module doc for the failure modes)."""
    window = None
    if row.get("start_time") is not None and row.get("end_time") is not None:
        window = TimeWindow(row["start_time"], row["end_time"])
    elif row.get("daily_start") is not None and row.get("daily_end") is not None:
        window = TimeWindow(row["daily_start"], row["daily_end"])
    return Fence(
        fence_id=int(row["id"]), name=str(row["name"]), fence_type=FenceType(int(row["fence_type"])),
        shape=shape_of(str(row["shape"]), row["geometry"], district_parts),
        attributes=attributes_of(int(row.get("attributes") or 0)), time_window=window,
        speed_limit_kmh=row.get("speed_limit"), overspeed_s=float(row.get("overspeed_duration") or 0),
        night_speed_limit_kmh=row.get("night_speed_limit"),
        stay_limit_s=None if row.get("stay_limit") is None else float(row["stay_limit"]))
