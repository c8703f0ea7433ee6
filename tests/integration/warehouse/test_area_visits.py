"""The area vehicle search's visits computed in PostgreSQL (warehouse/queries/area_visits.py) on the real
database: the inside rule of fleet.geofence (a polygon's boundary and its holes' boundaries count as inside,
a hole does not), a visit ends at any other fix of the device, a visit open at the window's end, one visit per
device, the caller's enterprise only; and random tracks against a plain Python statement of the rule.

Each test writes its fixes in its own transaction and rolls them back (nothing stays for other tests).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from psycopg import sql

from fleet.geofence import compile_shape
from fleet.geofence.shapes import Circle, Rectangle, polygon
from warehouse.queries.area_visits import area_visits, inside_predicate
from warehouse.queries.scope import Scope

T0 = datetime(2026, 4, 6, 8, 0, tzinfo=UTC)
ENTERPRISE, OTHER_ENTERPRISE = 910_001, 910_002
SCOPE = Scope(ENTERPRISE, "/910001/")
SHELL = [(116.0, 39.0), (116.5, 39.0), (116.5, 39.5), (116.0, 39.5)]
HOLE = [(116.2, 39.2), (116.3, 39.2), (116.3, 39.3), (116.2, 39.3)]
SQUARE_WITH_HOLE = compile_shape(polygon(SHELL, HOLE))
IN, OUT, IN_HOLE = (116.1, 39.1), (116.7, 39.1), (116.25, 39.25)

Fix = tuple[int, datetime, int | None, int, float, float]  # device, fix_at, car, enterprise, lng, lat


@pytest.fixture
def conn(pg_conn: Any) -> Iterator[Any]:
    yield pg_conn
    pg_conn.rollback()


def device() -> int:
    return 800_000_000 + uuid.uuid4().int % 100_000_000


def at(minute: float) -> datetime:
    return T0 + timedelta(minutes=minute)


def store(conn: Any, fixes: Sequence[Fix]) -> None:
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat)"
                        " VALUES (%s, %s, %s, %s, %s, %s)", fixes)


def track(device_id: int, car_id: int | None, points: Sequence[tuple[float, tuple[float, float]]],
          enterprise_id: int = ENTERPRISE) -> list[Fix]:
    return [(device_id, at(minute), car_id, enterprise_id, lng, lat) for minute, (lng, lat) in points]


def visits(conn: Any, area: Any, start: datetime = T0, end: datetime = T0 + timedelta(hours=24),
           scope: Scope = SCOPE) -> list[tuple[Any, ...]]:
    return [tuple(v) for v in area_visits(conn, scope, start, end, area)]


def test_a_fix_on_the_polygons_edge_or_vertex_is_inside(conn: Any) -> None:
    triangle = compile_shape(polygon([(116.0, 39.0), (116.5, 39.5), (116.5, 39.0)]))
    points = [(116.25, 39.25), (116.3, 39.0), (116.5, 39.2), (116.5, 39.5), (116.25, 39.2500001), (116.4, 39.1)]
    inside, params = inside_predicate(triangle, sql.SQL("p.lng"), sql.SQL("p.lat"))
    statement = sql.SQL("SELECT {} FROM (VALUES (%s::float8, %s::float8)) AS p(lng, lat)").format(inside)
    found = [conn.execute(statement, [*params, lng, lat]).fetchone()[0] for lng, lat in points]
    # the slanted edge, the bottom edge, the right edge, a vertex: inside; just north-west of the slant: outside
    assert found == [True, True, True, True, False, True]
    assert found == [triangle.contains(lng, lat) for lng, lat in points]


def test_a_fix_in_a_hole_ends_the_visit_and_the_holes_edge_counts_as_inside(conn: Any) -> None:
    d = device()
    store(conn, track(d, 7, [(0, IN), (1, IN_HOLE), (2, IN), (3, (116.2, 39.25)), (4, IN)]))
    assert visits(conn, SQUARE_WITH_HOLE) == [(d, 7, at(0), at(0)), (d, 7, at(2), at(4))]


def test_one_fix_outside_splits_a_visit_at_a_steady_or_an_uneven_report_interval(conn: Any) -> None:
    steady, uneven = sorted((device(), device()))
    store(conn, track(steady, 7, [(0, IN), (1, IN), (2, OUT), (3, IN), (4, IN)]))
    # every inside fix 2 minutes apart, the one outside between two of them: no gap gives it away
    store(conn, track(uneven, 8, [(0, IN), (2, IN), (3, OUT), (4, IN), (6, IN), (8, IN)]))
    assert visits(conn, SQUARE_WITH_HOLE) == [(steady, 7, at(0), at(1)), (steady, 7, at(3), at(4)),
                                              (uneven, 8, at(0), at(2)), (uneven, 8, at(4), at(8))]


def test_a_long_pause_inside_stays_one_visit(conn: Any) -> None:
    d = device()
    store(conn, track(d, 7, [(0, IN), (0.5, IN), (1, IN), (31, IN), (31.5, IN), (40, OUT)]))
    assert visits(conn, SQUARE_WITH_HOLE) == [(d, 7, at(0), at(31.5))]


def test_a_visit_open_at_the_windows_end_ends_at_its_last_fix_in_the_window(conn: Any) -> None:
    d = device()
    store(conn, track(d, 7, [(-1, IN), (0, IN), (1, IN), (2, IN), (3, IN)]))
    assert visits(conn, SQUARE_WITH_HOLE, start=at(0), end=at(2)) == [(d, 7, at(0), at(2))]


def test_each_device_of_a_car_has_its_own_visits_and_a_change_of_car_ends_a_visit(conn: Any) -> None:
    first, second = sorted((device(), device()))
    store(conn, track(first, 7, [(0, IN), (1, IN), (2, OUT)]))
    store(conn, track(second, 7, [(0, IN), (1, IN), (2, IN)]))
    store(conn, [(second, at(3), 9, ENTERPRISE, *IN)])
    assert visits(conn, SQUARE_WITH_HOLE) == [(first, 7, at(0), at(1)), (second, 7, at(0), at(2)),
                                              (second, 9, at(3), at(3))]


def test_a_short_change_of_car_inside_splits_the_visit_once(conn: Any) -> None:
    d = device()
    store(conn, track(d, 7, [(0, IN), (2, IN)]) + track(d, 9, [(3, IN)]) + track(d, 7, [(4, IN), (6, IN)]))
    assert visits(conn, SQUARE_WITH_HOLE) == [(d, 7, at(0), at(2)), (d, 9, at(3), at(3)), (d, 7, at(4), at(6))]


def test_another_enterprises_vehicles_never_appear(conn: Any) -> None:
    mine, theirs = device(), device()
    store(conn, track(mine, 7, [(0, IN), (1, IN)]))
    store(conn, track(theirs, 8, [(0, IN), (1, IN)], enterprise_id=OTHER_ENTERPRISE))
    assert visits(conn, SQUARE_WITH_HOLE) == [(mine, 7, at(0), at(1))]
    assert visits(conn, SQUARE_WITH_HOLE, scope=Scope(OTHER_ENTERPRISE, "/910002/")) == [(theirs, 8, at(0), at(1))]


def reference_visits(fixes: Sequence[Fix], area: Any, start: datetime, end: datetime) -> list[tuple[Any, ...]]:
    """The rule read plainly: per device in time order, a run of fixes inside, of one car, in scope."""
    found: list[tuple[Any, ...]] = []
    open_key: Any = None
    for device_id, fix_at, car_id, enterprise_id, lng, lat in sorted(fixes):
        if not start <= fix_at <= end:
            continue
        inside = enterprise_id == ENTERPRISE and area.contains(lng, lat)
        key = (device_id, car_id) if inside else None
        if key is not None and key == open_key:
            found[-1] = (*found[-1][:3], fix_at)
        elif key is not None:
            found.append((device_id, car_id, fix_at, fix_at))
        open_key = key
    return found


@pytest.mark.parametrize("area", [
    compile_shape(Circle((116.25, 39.25), 9_000)),
    compile_shape(Rectangle((116.1, 39.4), (116.4, 39.1))),
    SQUARE_WITH_HOLE,
    compile_shape(polygon([(116.0, 39.0), (116.5, 39.1), (116.3, 39.3), (116.45, 39.5), (116.05, 39.4)])),
], ids=["circle", "rectangle", "polygon with a hole", "concave polygon"])
def test_random_tracks_give_the_visits_of_the_plain_rule(conn: Any, area: Any) -> None:
    rng = random.Random(808)
    fixes: list[Fix] = []
    for _ in range(12):
        d, car = device(), rng.choice([7, 8, None])
        minute, lng, lat = -30.0, rng.uniform(115.9, 116.6), rng.uniform(38.9, 39.6)
        for _ in range(rng.randint(50, 400)):
            minute += rng.choice([0.5, 0.5, 0.5, 1, 2, 10])  # steady, then uneven reporting
            lng += rng.gauss(0, 0.03)
            lat += rng.gauss(0, 0.03)
            if rng.random() < 0.05:  # on a vertex or an edge of the area's box exactly
                lng, lat = rng.choice([area.bounds[0], area.bounds[2]]), rng.uniform(area.bounds[1], area.bounds[3])
            if rng.random() < 0.02:
                car = rng.choice([7, 8, None])
            enterprise = OTHER_ENTERPRISE if rng.random() < 0.02 else ENTERPRISE
            fixes.append((d, at(minute), car, enterprise, round(lng, 6), round(lat, 6)))
    store(conn, fixes)
    start, end = T0, T0 + timedelta(hours=12)
    expected = reference_visits(fixes, area, start, end)
    assert len(expected) > 20
    assert visits(conn, area, start, end) == expected
