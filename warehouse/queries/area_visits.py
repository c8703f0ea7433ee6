"""The area vehicle search's visits, computed in PostgreSQL (api/area_search.py, platform-spec §9 label point
business type 4): only visits leave the database, never fixes.

A visit is a run of a device's consecutive fixes of the window that are inside the area, of one car and in
the caller's scope; any other fix of the device (outside the area, another car's, another enterprise's) ends
it. Inside is the rule of fleet.geofence: a circle by the local-frame distance (CircleArea, the same float
arithmetic), a rectangle by its box, a polygon by the even-odd rule over all its rings (holes included) with
the boundary counting as inside, like shapely's ``intersects_xy``; edges are tested with the orientation
sign (exact for axis-parallel edges; a point within about 1e-15 degrees of a slanted edge may fall either way).

How, so the cost follows the fixes inside the area and not every fix of the day (the full gaps-and-islands
over all the window's fixes took 2.3-6 s for a 10 km circle over 1,000 vehicles' day, measured):
1. ``inside``: the window's fixes inside the area (a scan of the window's daily partitions, the box first).
2. ``marked``/``bounds``: per device and car, in time order, inside fixes are cut into runs where the time
   since the previous inside fix exceeds ``RUN_GAP_FACTOR`` x the gap before it (a guess that a fix outside
   came between); one window pass, then only each run's first and last fix go on.
3. ``checked``: each run's span is counted on the primary key (device_id, fix_at): when the device has no
   other fix in it the run is one piece; else its span's fixes are read and split exactly (``span``).
4. ``joined``/``starts``: adjacent pieces of one car with no fix of the device between them (one
   primary-key probe each) are one visit.
A wrong guess in 2 costs time (a probe or a span read), never a wrong answer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import Connection, sql

from fleet.geofence.shapes import CircleArea
from warehouse.queries.positions import without_jit
from warehouse.queries.scope import Scope

# Step 2's cut: a gap between inside fixes longer than this many times the gap before it.
RUN_GAP_FACTOR = 1.5


def inside_predicate(area: Any, lng: sql.Composable, lat: sql.Composable) -> tuple[sql.Composed, list[Any]]:
    """SQL true when (lng, lat) is inside ``area`` (a compiled circle, rectangle or polygon of
    fleet.geofence), and its parameters. Raises ValueError for an area of another kind."""
    min_lng, min_lat, max_lng, max_lat = area.bounds
    box = sql.SQL("{lng} BETWEEN %s AND %s AND {lat} BETWEEN %s AND %s").format(lng=lng, lat=lat)
    box_params: list[Any] = [min_lng, max_lng, min_lat, max_lat]
    if isinstance(area, CircleArea):
        # fleet.geofence.shapes.CircleArea.contains: x*x + y*y <= r*r in the circle's local frame.
        frame = area.frame
        x = sql.SQL("(({} - %s) * %s)").format(lng)
        y = sql.SQL("(({} - %s) * %s)").format(lat)
        circle = sql.SQL("{x} * {x} + {y} * {y} <= %s").format(x=x, y=y)
        x_params, y_params = [frame.lng0, frame.m_per_deg_lng], [frame.lat0, frame.m_per_deg_lat]
        return (sql.SQL("({box} AND {circle})").format(box=box, circle=circle),
                [*box_params, *x_params, *x_params, *y_params, *y_params, area.radius_m * area.radius_m])
    geometry = getattr(area, "geometry", None)
    if geometry is None or geometry.geom_type not in ("Polygon", "MultiPolygon"):
        raise ValueError(f"no SQL inside test for {type(area).__name__}")
    if _is_box(geometry):
        return sql.SQL("({})").format(box), box_params
    crossings, on_edge, crossing_params, edge_params = [], [], [], []
    for x1, y1, x2, y2 in _edges(geometry):
        if y1 > y2:  # every edge upward, so "left of it" is "west of the crossing"
            x1, y1, x2, y2 = x2, y2, x1, y1
        dx, dy = x2 - x1, y2 - y1
        cross = sql.SQL("(%s * ({lat} - %s) - ({lng} - %s) * %s)").format(lng=lng, lat=lat)
        # even-odd rule, half-open in lat so a vertex is crossed once; horizontal edges never cross
        crossings.append(sql.SQL("({lat} >= %s AND {lat} < %s AND {cross} > 0)::int").format(lat=lat, cross=cross))
        crossing_params.extend([y1, y2, dx, y1, x1, dy])
        on_edge.append(sql.SQL("({cross} = 0 AND {lng} BETWEEN %s AND %s AND {lat} BETWEEN %s AND %s)").format(
            cross=cross, lng=lng, lat=lat))
        edge_params.extend([dx, y1, x1, dy, min(x1, x2), max(x1, x2), y1, y2])
    polygon = sql.SQL("(({}) %% 2 = 1 OR {})").format(sql.SQL(" + ").join(crossings), sql.SQL(" OR ").join(on_edge))
    # CASE: the edge terms run only for fixes inside the box
    return sql.SQL("(CASE WHEN {box} THEN {polygon} ELSE false END)").format(box=box, polygon=polygon), \
        [*box_params, *crossing_params, *edge_params]


def _is_box(geometry: Any) -> bool:
    """A rectangle (or a polygon drawn as one): the box test alone is its exact inside test."""
    return bool(geometry.geom_type == "Polygon" and not geometry.interiors and geometry.equals(geometry.envelope))


def _edges(geometry: Any) -> list[tuple[float, float, float, float]]:
    polygons = geometry.geoms if geometry.geom_type == "MultiPolygon" else [geometry]
    edges: list[tuple[float, float, float, float]] = []
    for polygon in polygons:
        for ring in (polygon.exterior, *polygon.interiors):
            coords = list(ring.coords)
            edges.extend((a[0], a[1], b[0], b[1]) for a, b in zip(coords, coords[1:], strict=False))
    return edges


def area_visits(conn: Connection[Any], scope: Scope, start: datetime, end: datetime,
                area: Any) -> list[tuple[Any, ...]]:
    """The visits of [start, end] to ``area`` by the scope's devices: (device_id, car_id, enter_at, exit_at),
    in device and enter order. Raises ValueError for an area that is not a circle, rectangle or polygon."""
    inside, inside_params = inside_predicate(area, sql.SQL("g.lng"), sql.SQL("g.lat"))
    where, scope_params = scope.clause(sql.SQL("g.enterprise_id"))
    statement = sql.SQL("""
WITH inside AS (
  SELECT g.device_id, g.car_id, g.fix_at FROM gps g
  WHERE g.fix_at BETWEEN %s AND %s AND {where} AND {inside}
), marked AS (
  SELECT device_id, car_id, fix_at, row_number() OVER w AS n, fix_at - lag(fix_at) OVER w AS gap,
         lag(fix_at) OVER w - lag(fix_at, 2) OVER w AS gap_before, lead(fix_at) OVER w - fix_at AS gap_after
  FROM inside WINDOW w AS (PARTITION BY device_id, car_id ORDER BY fix_at)
), bounds AS (
  SELECT device_id, car_id, fix_at, n,
         gap IS NULL OR coalesce(gap > gap_before * %s, false) AS starts,
         gap_after IS NULL OR coalesce(gap_after > gap * %s, false) AS ends
  FROM marked
), checked AS (
  SELECT device_id, car_id, first_at, last_at, fixes,
         (SELECT count(*) FROM gps p WHERE p.device_id = b.device_id
            AND p.fix_at BETWEEN b.first_at AND b.last_at) AS all_fixes
  FROM (SELECT device_id, car_id, starts, fix_at AS first_at,
               CASE WHEN ends THEN fix_at ELSE lead(fix_at) OVER w END AS last_at,
               CASE WHEN ends THEN 1 ELSE lead(n) OVER w - n + 1 END AS fixes
        FROM bounds WHERE starts OR ends WINDOW w AS (PARTITION BY device_id, car_id ORDER BY fix_at)) b
  WHERE starts
), span AS (
  SELECT c.device_id, c.first_at AS run_at, c.car_id, g.fix_at,
         -- the run's own fixes: another car's fix inside belongs to that car's runs, and ends this one
         (g.car_id IS NOT DISTINCT FROM c.car_id AND {where} AND {inside}) AS is_inside,
         row_number() OVER (PARTITION BY c.device_id, c.first_at ORDER BY g.fix_at) AS n
  FROM checked c JOIN gps g ON g.device_id = c.device_id AND g.fix_at BETWEEN c.first_at AND c.last_at
  WHERE c.all_fixes <> c.fixes
), pieces AS (
  SELECT device_id, car_id, first_at, last_at FROM checked WHERE all_fixes = fixes
  UNION ALL
  SELECT device_id, car_id, min(fix_at), max(fix_at) FROM (
    SELECT device_id, run_at, car_id, fix_at,
           n - row_number() OVER (PARTITION BY device_id, run_at ORDER BY fix_at) AS island
    FROM span WHERE is_inside) s
  GROUP BY device_id, run_at, car_id, island
), joined AS (
  SELECT device_id, car_id, first_at, last_at,
         lag(last_at) OVER w AS before_at, lag(car_id) OVER w IS DISTINCT FROM car_id AS car_changed
  FROM pieces WINDOW w AS (PARTITION BY device_id ORDER BY first_at)
), starts AS (
  SELECT device_id, car_id, first_at, last_at,
         CASE WHEN before_at IS NULL OR car_changed THEN 1
              WHEN EXISTS (SELECT 1 FROM gps p WHERE p.device_id = j.device_id
                             AND p.fix_at > j.before_at AND p.fix_at < j.first_at) THEN 1
              ELSE 0 END AS starts
  FROM joined j
)
SELECT device_id, car_id, min(first_at) AS enter_at, max(last_at) AS exit_at FROM (
  SELECT *, sum(starts) OVER (PARTITION BY device_id ORDER BY first_at ROWS UNBOUNDED PRECEDING) AS visit
  FROM starts) v
GROUP BY device_id, car_id, visit ORDER BY device_id, enter_at""").format(where=where, inside=inside)
    without_jit(conn)  # compiling this statement's many expressions took longer than running it (5-10 s, measured)
    params = [start, end, *scope_params, *inside_params, RUN_GAP_FACTOR, RUN_GAP_FACTOR, *scope_params, *inside_params]
    return conn.execute(statement, params).fetchall()
