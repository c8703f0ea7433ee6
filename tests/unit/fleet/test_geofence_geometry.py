"""Known answers of the fence geometry (fleet.geofence): the local frame, the boundary, holes, a route
corridor at a bend, a crossing between two fixes. Expected values are worked out here by hand, from
published figures or the sphere, never from the code under test."""

from __future__ import annotations

import math

import pytest

from fleet.geofence import (
    Circle,
    InvalidGeometry,
    LocalFrame,
    Rectangle,
    Route,
    RouteSegment,
    compile_shape,
    polygon,
)

# Metres per degree on the mean sphere (R = 6,371,008.8 m): within 0.7 % of the ellipsoid's at China's
# latitudes, so the tests keep their points well clear of a boundary when they use it.
SPHERE_M_PER_DEG = 6_371_008.8 * math.pi / 180  # 111,195.08


def north(metres: float) -> float:
    return metres / SPHERE_M_PER_DEG


def east(metres: float, lat: float) -> float:
    return metres / (SPHERE_M_PER_DEG * math.cos(math.radians(lat)))


@pytest.mark.parametrize(("lat", "m_per_deg_lat", "m_per_deg_lng"), [
    # the "length of a degree" table for WGS-84 (e.g. Wikipedia, "Latitude"): 0, 30 and 45 degrees
    (0.0, 110_574, 111_320),
    (30.0, 110_852, 96_486),
    (45.0, 111_132, 78_847),
])
def test_local_frame_scale_is_the_wgs84_degree_length(lat: float, m_per_deg_lat: float, m_per_deg_lng: float) -> None:
    frame = LocalFrame.at(116.0, lat)
    assert frame.m_per_deg_lat == pytest.approx(m_per_deg_lat, abs=1.5)
    assert frame.m_per_deg_lng == pytest.approx(m_per_deg_lng, abs=1.5)


def test_china_coordinates_need_no_antimeridian_handling() -> None:
    # Kashgar (75.99 E) to Fuyuan (134.3 E): both ends of China, one frame, no wrap-around.
    frame = LocalFrame.at(105.0, 35.0)
    west, _ = frame.to_xy(75.99, 39.47)
    east_x, _ = frame.to_xy(134.3, 48.37)
    assert west < 0 < east_x
    assert frame.to_lnglat(*frame.to_xy(134.3, 48.37)) == pytest.approx((134.3, 48.37))


def test_point_on_the_edge_of_a_polygon_is_inside() -> None:
    square = compile_shape(polygon([(116.0, 39.0), (116.1, 39.0), (116.1, 39.1), (116.0, 39.1)]))
    assert square.contains(116.05, 39.0)  # on the south edge
    assert square.contains(116.1, 39.1)  # on a vertex
    assert not square.contains(116.05, 38.9999)


def test_point_on_the_edge_of_a_rectangle_is_inside() -> None:
    rect = compile_shape(Rectangle(top_left=(116.0, 39.1), bottom_right=(116.1, 39.0)))
    assert rect.contains(116.0, 39.05)
    assert not rect.contains(115.9999, 39.05)


def test_circle_radius_is_metres_on_the_ellipsoid() -> None:
    # At 45 deg N a degree of latitude is 111,132 m (table above): 999 m north inside, 1,001 m outside.
    circle = compile_shape(Circle(centre=(116.0, 45.0), radius_m=1000))
    assert circle.contains(116.0, 45.0 + 999 / 111_132)
    assert not circle.contains(116.0, 45.0 + 1001 / 111_132)
    # east: 78,847 m per degree of longitude at 45 deg; 0.1 m either side of the circle
    assert circle.contains(116.0 + 999.9 / 78_847, 45.0)
    assert not circle.contains(116.0 + 1000.1 / 78_847, 45.0)


def test_polygon_with_a_hole() -> None:
    ring = [(116.0, 39.0), (116.1, 39.0), (116.1, 39.1), (116.0, 39.1)]
    hole = [(116.04, 39.04), (116.06, 39.04), (116.06, 39.06), (116.04, 39.06)]
    area = compile_shape(polygon(ring, hole))
    assert area.contains(116.02, 39.05)
    assert not area.contains(116.05, 39.05)  # in the hole
    assert area.contains(116.04, 39.05)  # the hole's edge belongs to the area
    # driving east along lat 39.05 from 116.02 to 116.08: out at 116.04, back in at 116.06
    assert area.crossings((116.02, 39.05), (116.08, 39.05)) == pytest.approx([1 / 3, 2 / 3])


def test_route_corridor_at_a_bend() -> None:
    # East from A(116.00, 39.0) to B(116.01, 39.0), then north to C(116.01, 39.01); 100 m wide: 50 m each side.
    lat = 39.0
    route = compile_shape(Route((RouteSegment(((116.0, lat), (116.01, lat), (116.01, 39.01)), width_m=100),)))
    bx, by = 116.01, lat
    assert route.contains(116.005, lat - north(45))  # 45 m south of the first leg
    assert not route.contains(116.005, lat - north(55))
    # outside the bend: 30 m east and 30 m south of B is 42 m from B (inside the round join) ...
    assert route.contains(bx + east(30, lat), by - north(30))
    # ... 40 m east and 40 m south is 57 m from B: outside
    assert not route.contains(bx + east(40, lat), by - north(40))
    # inside the bend: 45 m west of the second leg and 45 m north of the first: within both half widths
    assert route.contains(bx - east(45, lat), by + north(45))
    assert route.contains(bx + east(45, lat), 39.005)  # 45 m east of the second leg
    assert not route.contains(bx + east(55, lat), 39.005)


def test_crossing_between_two_fixes_of_a_polygon_is_in_proportion() -> None:
    square = compile_shape(polygon([(116.0, 39.0), (116.1, 39.0), (116.1, 39.1), (116.0, 39.1)]))
    # from (116.05, 38.99) to (116.05, 39.02): the south edge (39.0) is a third of the way
    assert square.crossings((116.05, 38.99), (116.05, 39.02)) == pytest.approx([1 / 3])


def test_crossing_of_a_circle_between_two_fixes() -> None:
    # Circle of 500 m at (116.0, 39.9); a move due north from 0.01 deg south of the centre to the centre.
    # Meridional radius at 39.9 deg: M = a(1-e2) / (1 - e2 sin^2 phi)^1.5 = 6,361,713 m -> 111,032.0 m/deg,
    # so the move is 1,110.32 m and the circle is met 610.32 m along it: fraction 0.54968.
    circle = compile_shape(Circle(centre=(116.0, 39.9), radius_m=500))
    assert circle.crossings((116.0, 39.89), (116.0, 39.9)) == pytest.approx([0.54968], abs=2e-5)
    # passing the circle 300 m east of its centre: in and out, symmetric around the closest point
    lng = 116.0 + 300 / 85_502.0  # m per deg of longitude at 39.9 deg: N cos(phi) pi/180
    met = circle.crossings((lng, 39.88), (lng, 39.92))
    assert len(met) == 2 and met[0] + met[1] == pytest.approx(1.0, abs=1e-6)
    # 400 m along a 4,441 m move either side of the middle (sqrt(500^2 - 300^2) = 400)
    assert met[1] - met[0] == pytest.approx(800 / (0.04 * 111_032.0), rel=2e-3)


@pytest.mark.parametrize("shape", [
    Circle(centre=(116.0, 39.0), radius_m=-5),
    Circle(centre=(float("nan"), 39.0), radius_m=5),
    Rectangle(top_left=(116.1, 39.1), bottom_right=(116.0, 39.0)),
    polygon([(116.0, 39.0), (116.1, 39.0)]),
    polygon([(116.0, 39.0), (116.1, 39.1), (116.1, 39.0), (116.0, 39.1)]),  # a bow tie
    Route((RouteSegment(((116.0, 39.0),), width_m=50),)),
    Route((RouteSegment(((116.0, 39.0), (116.1, 39.0)), width_m=0),)),
    Route(()),
])
def test_a_shape_that_cannot_be_a_fence_is_refused_with_a_reason(shape: object) -> None:
    with pytest.raises(InvalidGeometry):
        compile_shape(shape)  # type: ignore[arg-type]
