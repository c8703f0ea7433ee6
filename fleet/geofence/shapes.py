"""Fence shapes (WGS-84 lng/lat, as JT/T 808 0x8600-0x8606 and the district data carry them) and the areas
they compile to: ``contains(lng, lat)`` and ``crossings(a, b)`` (where the straight move from fix a to fix
b crosses the boundary, as fractions of the move), plus the lng/lat geometry the spatial index holds.

Rules: a point on the boundary is inside (a vehicle driving along a fence's edge does not flicker);
polygon edges are straight in lng/lat (the vertices are what a terminal gets in 0x8604); a circle's radius
and a corridor's width are metres in the fence's local frame (fleet.geofence.frame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from fleet.geofence.frame import InvalidGeometry, LocalFrame, check_lnglat

LngLat = tuple[float, float]
# A corridor's round joins and caps: 16 segments per quarter circle, so the polygon lies within
# 0.12 % of the half width of the true buffer (half_width * (1 - cos(pi / 64))).
QUAD_SEGS = 16


@dataclass(frozen=True)
class Circle:
    centre: LngLat
    radius_m: float


@dataclass(frozen=True)
class Rectangle:
    """JT/T 808 0x8602: the top-left and bottom-right corners."""

    top_left: LngLat
    bottom_right: LngLat


@dataclass(frozen=True)
class Area:
    """A polygon with holes, or a district (several polygons): ``parts`` = ((shell, hole, ...), ...)."""

    parts: tuple[tuple[tuple[LngLat, ...], ...], ...]


@dataclass(frozen=True)
class RouteSegment:
    """JT/T 808 0x8606: a stretch of the route between inflection points, with its corridor and rules."""

    points: tuple[LngLat, ...]
    width_m: float  # the corridor's full width (half on each side of the line)
    min_time_s: float | None = None  # driving it faster than this: "segment time too short"
    max_time_s: float | None = None  # slower than this: "segment time too long"
    speed_limit_kmh: float | None = None
    overspeed_s: float = 0.0  # the speed limit must be exceeded this long


@dataclass(frozen=True)
class Route:
    segments: tuple[RouteSegment, ...]


Shape = Circle | Rectangle | Area | Route


def polygon(shell: list[LngLat] | tuple[LngLat, ...], *holes: list[LngLat] | tuple[LngLat, ...]) -> Area:
    """A polygon with holes (0x8604 carries no holes; the platform's own fences and districts may)."""
    return Area(((tuple(shell), *(tuple(h) for h in holes)),))


class _Geometric:
    """An area whose containment is tested on its lng/lat geometry (exact: the local frame is affine)."""

    def __init__(self, geometry: BaseGeometry) -> None:
        if geometry.is_empty or not geometry.is_valid:
            raise InvalidGeometry(f"not a valid area: {shapely.is_valid_reason(geometry)}")
        self.geometry = geometry
        self.boundary = geometry.boundary
        shapely.prepare(self.geometry)
        shapely.prepare(self.boundary)
        self.bounds: tuple[float, float, float, float] = tuple(geometry.bounds)

    @property
    def index_geometry(self) -> BaseGeometry:
        return self.geometry

    def contains(self, lng: float, lat: float) -> bool:
        return bool(shapely.intersects_xy(self.geometry, lng, lat))

    def crossings(self, a: LngLat, b: LngLat) -> list[float]:
        """Fractions (0..1] of the move a -> b where it meets the boundary, ascending."""
        if a == b:
            return []
        move = LineString((a, b))
        if not self.boundary.intersects(move):
            return []
        met = shapely.get_coordinates(move.intersection(self.boundary))
        return sorted({round(move.project(Point(x, y), normalized=True), 9) for x, y in met})


class CircleArea:
    """Circle (0x8600): inside when the local-frame distance to the centre is at most the radius."""

    def __init__(self, circle: Circle) -> None:
        lng, lat = circle.centre
        if not (math.isfinite(circle.radius_m) and circle.radius_m > 0):
            raise InvalidGeometry(f"a circle's radius must be a positive number of metres, got {circle.radius_m}")
        self.frame = LocalFrame.at(lng, lat)
        self.radius_m = float(circle.radius_m)
        dlng, dlat = self.radius_m / self.frame.m_per_deg_lng, self.radius_m / self.frame.m_per_deg_lat
        self.bounds = (lng - dlng, lat - dlat, lng + dlng, lat + dlat)

    @property
    def index_geometry(self) -> BaseGeometry:
        return box(*self.bounds)

    def contains(self, lng: float, lat: float) -> bool:
        x, y = self.frame.to_xy(lng, lat)
        return x * x + y * y <= self.radius_m * self.radius_m

    def crossings(self, a: LngLat, b: LngLat) -> list[float]:
        ax, ay = self.frame.to_xy(*a)
        bx, by = self.frame.to_xy(*b)
        dx, dy = bx - ax, by - ay
        qa = dx * dx + dy * dy
        if qa == 0:
            return []
        qb = 2 * (ax * dx + ay * dy)
        qc = ax * ax + ay * ay - self.radius_m**2
        disc = qb * qb - 4 * qa * qc
        if disc < 0:
            return []
        root = math.sqrt(disc)
        return sorted({round(t, 9) for t in ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa)) if 0 < t <= 1})


class RouteArea(_Geometric):
    """A route: the union of its segments' corridors, each built in its own segment's local frame."""

    def __init__(self, route: Route) -> None:
        if not route.segments:
            raise InvalidGeometry("a route needs at least one segment")
        self.segments = route.segments
        self.corridors = [_Geometric(corridor(s)) for s in route.segments]
        super().__init__(shapely.union_all([c.geometry for c in self.corridors]))

    def segment_at(self, lng: float, lat: float, current: int | None) -> int | None:
        """The segment whose corridor holds the point: the current one while it does (at a joint both
        corridors overlap), else the first that does; None outside the route."""
        if current is not None and self.corridors[current].contains(lng, lat):
            return current
        for number, c in enumerate(self.corridors):
            if c.contains(lng, lat):
                return number
        return None


def corridor(segment: RouteSegment) -> Polygon:
    """The segment's line buffered by half its width in metres (round joins and caps), back in lng/lat."""
    if len(segment.points) < 2:
        raise InvalidGeometry("a route segment needs at least two points")
    if not (math.isfinite(segment.width_m) and segment.width_m > 0):
        raise InvalidGeometry(f"a route segment's width must be positive metres, got {segment.width_m}")
    for lng, lat in segment.points:
        check_lnglat(lng, lat)
    frame = LocalFrame.at(*segment.points[0])
    line = LineString([frame.to_xy(lng, lat) for lng, lat in segment.points])
    buffered = line.buffer(segment.width_m / 2, quad_segs=QUAD_SEGS)
    return shapely.transform(buffered, lambda xy: _to_lnglat(frame, xy))


def _to_lnglat(frame: LocalFrame, xy: np.ndarray) -> np.ndarray:
    arr = np.asarray(xy)
    return np.column_stack((frame.lng0 + arr[:, 0] / frame.m_per_deg_lng, frame.lat0 + arr[:, 1] / frame.m_per_deg_lat))


CompiledArea = CircleArea | _Geometric | RouteArea


def compile_shape(shape: Shape) -> CompiledArea:
    """The area of a shape; raises InvalidGeometry for a shape that cannot be a fence."""
    if isinstance(shape, Circle):
        return CircleArea(shape)
    if isinstance(shape, Route):
        return RouteArea(shape)
    if isinstance(shape, Rectangle):
        (left, top), (right, bottom) = shape.top_left, shape.bottom_right
        check_lnglat(left, top)
        check_lnglat(right, bottom)
        if not (left < right and bottom < top):
            raise InvalidGeometry("a rectangle's top-left corner must be north-west of its bottom-right")
        return _Geometric(box(left, bottom, right, top))
    if isinstance(shape, Area):
        polygons = []
        for rings in shape.parts:
            for ring in rings:
                if len(ring) < 3:
                    raise InvalidGeometry("a polygon ring needs at least three vertices")
                for lng, lat in ring:
                    check_lnglat(lng, lat)
            polygons.append(Polygon(rings[0], rings[1:]))
        return _Geometric(polygons[0] if len(polygons) == 1 else MultiPolygon(polygons))
    raise InvalidGeometry(f"unknown shape {type(shape).__name__}")
