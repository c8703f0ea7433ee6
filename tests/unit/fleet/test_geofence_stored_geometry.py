"""Known answers of the stored-geometry reader (fleet/geofence/geometry.py): each shape, China's range, the
messages that name where a geometry is wrong, and a district through the reverse geocoder's outlines."""

from __future__ import annotations

from typing import Any

import pytest

from fleet.geo import district_parts, shared_offline
from fleet.geofence import InvalidGeometry, compile_shape
from fleet.geofence.geometry import check_geometry, parse_shape, point_of
from fleet.geofence.shapes import Area, Circle, Rectangle, Route

SQUARE = [[116.30, 39.90], [116.32, 39.90], [116.32, 39.92], [116.30, 39.92]]


def test_reads_each_shape() -> None:
    assert parse_shape("circle", {"center": [116.4, 39.9], "radius": 50}) == Circle((116.4, 39.9), 50.0)
    assert parse_shape("rectangle", {"topLeft": [116.3, 39.92], "bottomRight": [116.32, 39.9]}) == Rectangle(
        (116.3, 39.92), (116.32, 39.9))
    closed = parse_shape("polygon", {"rings": [SQUARE + [SQUARE[0]]]})
    assert isinstance(closed, Area) and len(closed.parts[0][0]) == 4  # the closing vertex is implied
    route = parse_shape("route", {"segments": [{"points": SQUARE[:2], "width": 40, "minTime": 10, "maxTime": 60,
                                                "speedLimit": 50, "overspeedDuration": 5}]})
    assert isinstance(route, Route)
    segment = route.segments[0]
    assert (segment.width_m, segment.min_time_s, segment.max_time_s, segment.speed_limit_kmh, segment.overspeed_s) \
        == (40.0, 10.0, 60.0, 50.0, 5.0)
    assert point_of({"point": [116.4, 39.9]}) == (116.4, 39.9)


@pytest.mark.parametrize(("shape", "geometry", "words"), [
    ("circle", {"center": [39.9, 116.4], "radius": 10}, "center = [39.9, 116.4] is outside China"),
    ("circle", {"center": [116.4, 39.9], "radius": 0}, "radius must be a positive"),
    ("circle", {"center": [116.4, 39.9], "radius": True}, "radius must be a number"),
    ("circle", {"center": [116.4], "radius": 1}, "center must be a [lng, lat] pair"),
    ("circle", {"center": [116.4, 39.9], "radius": 1, "x": 1}, "unknown x"),
    ("polygon", {"rings": [[[116.30, 39.90], [116.32, 39.92], [116.32, 39.90], [116.30, 39.92]]]}, "Self-intersection"),
    ("polygon", {"rings": [SQUARE[:2]]}, "rings[0] needs at least three"),
    ("polygon", {"rings": []}, "non-empty list of rings"),
    ("route", {"segments": []}, "at least one segment"),
    ("route", {"segments": [{"points": SQUARE[:2], "width": -1}]}, "segments[0].width must be a positive"),
    ("route", {"segments": [{"points": SQUARE[:2], "width": 5, "minTime": 9, "maxTime": 3}]}, "above maxTime"),
    ("district", {"districtId": 110101}, "six-digit adcode"),
    ("district", {"districtId": "999999"}, "no province, city or district"),
    ("hexagon", {}, "unknown shape"),
    ("circle", [1, 2], "must be an object"),
])
def test_refuses_what_cannot_be_a_fence_naming_where(shape: str, geometry: Any, words: str) -> None:
    with pytest.raises(InvalidGeometry, match=None) as raised:
        check_geometry(shape, geometry, district_parts)
    assert words in str(raised.value)


def test_a_district_compiles_to_its_outline_from_the_offline_geocoder() -> None:
    area = compile_shape(parse_shape("district", {"districtId": "110101"}, district_parts))
    assert area.contains(116.407267, 39.9168)  # 东城区's centre
    assert not area.contains(116.30, 39.96)  # 海淀区
    found = shared_offline().district("110000")
    assert found is not None and (found.name, found.level) == ("北京市", "province")
    assert shared_offline().district("abc") is None
