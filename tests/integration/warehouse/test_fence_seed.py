"""The demo's fences (warehouse/fence_seed.py, run by `fleet up`): each kind the issue names, valid, bound to the first
subsidiary's simulated vehicles, placed where they drive so a crossing comes within minutes (the terminal fence's
reported by the simulated terminals themselves), and seeded once."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from fleet.driving_model import Drive, DrivingModel
from fleet.fence_areas import set_message
from fleet.geo import district_parts
from fleet.geofence.geometry import check_geometry, parse_shape
from fleet.geofence.shapes import Route, compile_shape
from fleet.settings import SimulatorSettings
from protocols.jt808 import SetRectangleAreas
from simulator.area_watch import AreaWatch
from simulator.areas import TerminalAreas
from tests.support.databases import create_database, drop_database
from warehouse.db import connect
from warehouse.fence_seed import ROUTE_CARS, demo_fences, seed_fences
from warehouse.seed import seed_demo

TERMINALS = 12


@pytest.fixture(scope="module")
def seeded(pg_url: str) -> Iterator[tuple[str, int]]:
    url = create_database(pg_url, "fenceseed")
    summary = seed_demo(url, terminals=TERMINALS)
    enterprise_id = int(summary["enterprises"]["a"])
    with connect(url) as conn:
        seed_fences(conn, enterprise_id)
        seed_fences(conn, enterprise_id)  # again: nothing doubles
        conn.commit()
    try:
        yield url, enterprise_id
    finally:
        drop_database(pg_url, url)


def test_seeds_a_depot_a_no_go_zone_a_school_zone_a_terminal_rectangle_and_a_bus_route_all_valid(seeded: tuple[str, int]) -> None:
    url, enterprise_id = seeded
    with connect(url) as conn:
        rows = conn.execute("SELECT name, fence_type, business_type, shape, geometry, attributes, speed_limit,"
                            " daily_start, daily_end, bind_count FROM fence_view WHERE enterprise_id = %s ORDER BY id",
                            (enterprise_id,)).fetchall()
        cars = conn.execute("SELECT count(*) FROM car WHERE enterprise_id = %s AND record_state = 1",
                            (enterprise_id,)).fetchone()[0]  # type: ignore[index]
        points = conn.execute("SELECT name, point_type, business_type FROM label_point WHERE enterprise_id = %s"
                              " ORDER BY id", (enterprise_id,)).fetchall()
    got = {r[0]: r for r in rows}
    assert list(got) == ["示范车场", "禁行区", "学校区域", "物流园", "公交1路"]
    for _name, _type, _biz, shape, geometry, *_ in rows:
        check_geometry(shape, geometry, district_parts)  # raises when invalid
    assert got["示范车场"][1:4] == (2, 1, "circle") and got["示范车场"][5] == [3, 5]
    assert got["禁行区"][1:4] == (2, 1, "polygon") and got["禁行区"][5] == [3]
    assert got["学校区域"][1:4] == (3, 1, "rectangle") and got["学校区域"][6:9] == (30.0, "07:00", "18:00")
    assert got["物流园"][1:4] == (2, 2, "rectangle") and got["物流园"][5] == [3, 5]  # enter / leave to the platform
    route = parse_shape("route", got["公交1路"][4])
    assert got["公交1路"][1:4] == (4, 2, "route") and isinstance(route, Route)
    assert [s.width_m for s in route.segments] == [50.0, 50.0, 50.0]
    assert [r[9] for r in rows] == [cars, cars, cars, cars, min(cars, ROUTE_CARS)] and cars > 0
    assert points == [("示范停车场", 1, 1), ("示范站点", 1, 3)]


def test_the_simulated_vehicles_cross_the_depot_within_minutes() -> None:
    """A third of the default 200 simulated terminals (the subsidiary's) cross the depot's edge in 10 minutes."""
    model = DrivingModel.from_settings(SimulatorSettings())
    depot = compile_shape(parse_shape("circle", demo_fences(model)[0]["geometry"]))
    rng = random.Random(25)
    drives = [Drive(rng, model) for _ in range(66)]
    inside = [depot.contains(d.lng, d.lat) for d in drives]
    crossings = 0
    for _ in range(60):  # 10 s fixes for 10 minutes
        for i, drive in enumerate(drives):
            drive.advance(10)
            now = depot.contains(drive.lng, drive.lat)
            crossings += now != inside[i]
            inside[i] = now
    assert crossings >= 1
    assert all(math.isfinite(d.lng) for d in drives)


def test_the_simulated_terminals_report_crossing_the_terminal_fence_within_minutes() -> None:
    """The terminal rectangle as the sync sends it (0x8602) and a simulated terminal holds it: the subsidiary's 100
    simulated vehicles of the default 200 (all bound) report 0x12 crossings of it, in and out, within 10 minutes."""
    model = DrivingModel.from_settings(SimulatorSettings())
    fence = next(f for f in demo_fences(model) if f["business_type"] == 2 and f["shape"] != "route")
    row = {**fence, "id": 7, "attributes": sum(1 << n for n in fence["attributes"])}
    msg_id, body = set_message(row, "2013")
    rng = random.Random(25)
    fleet = []
    for _ in range(100):
        areas = TerminalAreas()
        assert areas.apply(SetRectangleAreas.decode(body, "2013")) == 0 and msg_id == 0x8602
        fleet.append((Drive(rng, model), areas, AreaWatch()))
    reported = []
    start = datetime(2026, 12, 2, tzinfo=UTC)
    for step in range(60):  # 10 s fixes for 10 minutes
        for drive, areas, watch in fleet:
            drive.advance(10)
            flags, items = watch.check(areas, drive.lng, drive.lat, drive.speed_kmh, start + timedelta(seconds=10 * step))
            if "area_alarm" in items:
                assert flags & 1 << 20 and items["area_alarm"]["area_id"] == 7
                reported.append(items["area_alarm"]["direction"])
    assert len(reported) >= 2 and set(reported) == {0, 1}, reported


def test_fleet_up_seeds_them_after_the_demo(seeded: tuple[str, int]) -> None:
    from types import SimpleNamespace

    from fleet.launcher import _seed_fences

    url, enterprise_id = seeded
    state = SimpleNamespace(database_url=url, seeded="12 terminals")
    _seed_fences(state, enterprise_id)  # type: ignore[arg-type]
    assert state.seeded == "12 terminals, 5 fences"
    with connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM fence").fetchone() == (5,)  # still the five
