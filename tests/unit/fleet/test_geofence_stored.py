"""A stored fence row (migration 0040's geometry JSON by shape) as the check's Fence: each shape, the
attribute bit set, the time windows, and a clear error for a geometry that is not what its shape says (the
one geometry reader's, fleet/geofence/geometry.py, the same that checked the row on write)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

import pytest

from fleet.geofence import Attr, Circle, FenceType, Rectangle, Route, TimeWindow
from fleet.geofence.shapes import Area
from fleet.geofence.stored import Unsupported, fence_from_row, shape_of


def row(shape: str, geometry: Any, **extra: Any) -> dict[str, Any]:
    return {"id": 3, "name": "车场", "fence_type": 2, "shape": shape, "geometry": geometry,
            "attributes": (1 << 3) | (1 << 5), **extra}


def test_each_shape_reads_its_geometry() -> None:
    assert shape_of("circle", {"center": [116.3, 39.9], "radius": 500}) == Circle((116.3, 39.9), 500.0)
    assert shape_of("rectangle", {"topLeft": [116.3, 39.91], "bottomRight": [116.31, 39.9]}) == \
        Rectangle((116.3, 39.91), (116.31, 39.9))
    shell, hole = [[116.3, 39.9], [116.31, 39.9], [116.31, 39.91]], [[116.302, 39.902], [116.304, 39.902],
                                                                     [116.304, 39.904]]
    assert shape_of("polygon", {"rings": [shell, hole]}) == Area(((tuple(map(tuple, shell)), tuple(map(tuple, hole))),))
    route = shape_of("route", {"segments": [{"points": [[116.3, 39.9], [116.31, 39.9]], "width": 100, "minTime": 60,
                                             "speedLimit": 40, "overspeedDuration": 10}]})
    assert isinstance(route, Route)
    seg = route.segments[0]
    assert (seg.width_m, seg.min_time_s, seg.max_time_s, seg.speed_limit_kmh, seg.overspeed_s) == (100, 60, None, 40, 10)


def test_a_row_becomes_a_fence_with_its_attribute_numbers_and_window() -> None:
    fence = fence_from_row(row("circle", {"center": [116.3, 39.9], "radius": 500}, daily_start=time(7),
                               daily_end=time(9), speed_limit=40.0, overspeed_duration=10))
    assert (fence.fence_id, fence.name, fence.fence_type) == (3, "车场", FenceType.ALARM)
    assert fence.attributes == {Attr.IN_TO_PLATFORM, Attr.OUT_TO_PLATFORM}
    assert fence.time_window == TimeWindow(time(7), time(9))
    assert (fence.speed_limit_kmh, fence.overspeed_s) == (40.0, 10.0)
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    assert fence_from_row(row("circle", {"center": [116.3, 39.9], "radius": 5}, start_time=start,
                              end_time=end)).time_window == TimeWindow(start, end)


@pytest.mark.parametrize(("shape", "geometry", "message"), [
    ("circle", {"center": [116.3], "radius": 5}, "center must be a [lng, lat] pair"),
    ("circle", {"center": [116.3, 39.9], "radius": "5"}, "radius must be a number"),
    ("circle", {"center": [39.9, 116.3], "radius": 5}, "center = [39.9, 116.3] is outside China's range"),
    ("polygon", {"rings": [[[116.3, 39.9], [116.31, 39.9]]]}, "rings[0] needs at least three distinct vertices"),
    ("route", {"segments": [{"points": [[116.3, 39.9]], "width": 50}]}, "segments[0].points must be a list"),
    ("star", {}, "unknown shape 'star'"),
])
def test_a_geometry_that_is_not_its_shapes_is_a_value_error_naming_the_field(shape: str, geometry: Any,
                                                                            message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        fence_from_row(row(shape, geometry))


def test_a_district_without_its_polygons_here_is_unsupported_and_with_them_an_area() -> None:
    with pytest.raises(Unsupported, match="district 440300"):
        shape_of("district", {"districtId": "440300"})
    parts = (((116.3, 39.9), (116.31, 39.9), (116.31, 39.91)),),
    assert shape_of("district", {"districtId": "440300"}, lambda code: parts) == Area(parts)
