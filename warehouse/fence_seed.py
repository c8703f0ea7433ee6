"""The demo's fences and label points (`make up`, fleet/launcher.py after the demo seed): placed where the simulated
vehicles drive (the simulator's centre and radius, fleet.driving_model.DrivingModel) and bound to the first
subsidiary's vehicles, so a first-time user sees fence alarms within minutes.

- 示范车场 (depot): a circle of 3 km at the centre, platform fence, enter / leave to the platform. With the
  simulator's defaults (15 km radius, about half the vehicles driving at 20-60 km/h) a simulated vehicle crosses
  its edge about 0.7 times an hour, so the subsidiary's 100 vehicles (the odd-numbered of the default 200
  terminals) give one about every minute.
- 禁行区 (no-go zone): a 4 km polygon north-east of the centre, platform fence, in-area alarm to the platform.
- 学校区域 (school zone): a rectangle south-west of the centre, overspeed fence, 30 km/h, 07:00-18:00 daily.
- 物流园 (logistics park): a 6 x 5 km rectangle south-east of the centre, a terminal fence (business type 2),
  enter / leave to the platform, bound to every vehicle of the subsidiary: the terminal sync sends it as 0x8602
  when each terminal authenticates, and the simulated terminals report crossing it themselves (item 0x12, alarm
  bit 20: simulator/area_watch.py), about 0.7 times a vehicle-hour like the depot, so its `tfence` alarms
  (named 物流园 on /list/inOutAlarm) come about every minute with the default 200 terminals.
- 公交1路 (bus route): a route of three segments, 50 m corridor, a terminal fence (business type 2) bound to
  three vehicles: the terminal sync sends it as 0x8606 (vehicles that drive at random rarely follow it).
- Two label points: a parking lot and a station.
Idempotent: a fence or label point of that name in the enterprise is left as it is (names are unique there), so
an existing `var/` database gets the fences it lacks on the next `make up`.
Every geometry is checked with fleet.geofence before it is written (a ValueError names the one at fault).
"""

from __future__ import annotations

import json
from typing import Any

from psycopg import Connection

from fleet.driving_model import DrivingModel
from fleet.geo import district_parts
from fleet.geofence.frame import LocalFrame
from fleet.geofence.geometry import check_geometry

ROUTE_CARS = 3  # vehicles the terminal route is sent to


def _at(frame: LocalFrame, east_km: float, north_km: float) -> list[float]:
    lng, lat = frame.to_lnglat(east_km * 1000, north_km * 1000)
    return [round(lng, 6), round(lat, 6)]


def demo_fences(model: DrivingModel) -> list[dict[str, Any]]:
    """The seeded fences (column -> value; attributes as attribute numbers) around the model's centre."""
    f = LocalFrame.at(model.centre_lng, model.centre_lat)
    zone = [_at(f, 4, 3), _at(f, 8, 3), _at(f, 9, 6), _at(f, 6, 8), _at(f, 3, 6)]
    return [
        {"name": "示范车场", "fence_type": 2, "business_type": 1, "shape": "circle", "attributes": [3, 5],
         "geometry": {"center": _at(f, 0, 0), "radius": 3000}},
        {"name": "禁行区", "fence_type": 2, "business_type": 1, "shape": "polygon", "attributes": [3],
         "geometry": {"rings": [zone]}},
        {"name": "学校区域", "fence_type": 3, "business_type": 1, "shape": "rectangle", "attributes": [1],
         "geometry": {"topLeft": _at(f, -8, -2), "bottomRight": _at(f, -4, -5)}, "speed_limit": 30.0,
         "overspeed_duration": 10, "daily_start": "07:00", "daily_end": "18:00"},
        {"name": "物流园", "fence_type": 2, "business_type": 2, "shape": "rectangle", "attributes": [3, 5],
         "geometry": {"topLeft": _at(f, 3, -2), "bottomRight": _at(f, 9, -7)}},
        {"name": "公交1路", "fence_type": 4, "business_type": 2, "shape": "route", "attributes": [3, 5],
         "geometry": {"segments": [
             {"points": [_at(f, -6, 0), _at(f, -2, 0)], "width": 50, "minTime": 120, "maxTime": 900,
              "speedLimit": 60},
             {"points": [_at(f, -2, 0), _at(f, -2, 3)], "width": 50, "maxTime": 900, "speedLimit": 50},
             {"points": [_at(f, -2, 3), _at(f, 2, 3)], "width": 50, "minTime": 120, "maxTime": 900,
              "speedLimit": 60, "overspeedDuration": 10},
         ]}},
    ]


def demo_label_points(model: DrivingModel) -> list[dict[str, Any]]:
    f = LocalFrame.at(model.centre_lng, model.centre_lat)
    return [{"name": "示范停车场", "point_type": 1, "business_type": 1, "geometry": {"point": _at(f, 1, -1)}},
            {"name": "示范站点", "point_type": 1, "business_type": 3, "geometry": {"point": _at(f, -2, 0)}}]


def seed_fences(conn: Connection[Any], enterprise_id: int, model: DrivingModel | None = None) -> dict[str, int]:
    """Seeds the demo fences and label points into ``enterprise_id`` and binds its vehicles (every fence but the
    route: all of them; the route: the first ``ROUTE_CARS``). {fence name: id}. The caller commits."""
    model = model or DrivingModel()
    ids: dict[str, int] = {}
    for fence in demo_fences(model):
        check_geometry(fence["shape"], fence["geometry"], district_parts)  # raises InvalidGeometry (a ValueError)
        bits = sum(1 << n for n in fence["attributes"])
        conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry, attributes, speed_limit,"
            " overspeed_duration, daily_start, daily_end) VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s)"
            " ON CONFLICT (enterprise_id, name) DO NOTHING",
            (enterprise_id, fence["name"], fence["fence_type"], fence["business_type"], fence["shape"],
             json.dumps(fence["geometry"]), bits, fence.get("speed_limit"), fence.get("overspeed_duration"),
             fence.get("daily_start"), fence.get("daily_end")))
        row = conn.execute("SELECT id FROM fence WHERE enterprise_id = %s AND name = %s",
                           (enterprise_id, fence["name"])).fetchone()
        assert row is not None
        ids[fence["name"]] = int(row[0])
        limit = ROUTE_CARS if fence["shape"] == "route" else None
        conn.execute(
            "INSERT INTO fence_binding (fence_id, car_id, enterprise_id)"
            " SELECT %s, id, enterprise_id FROM (SELECT id, enterprise_id FROM car WHERE enterprise_id = %s"
            " AND record_state = 1 ORDER BY id LIMIT %s) c ON CONFLICT DO NOTHING",
            (ids[fence["name"]], enterprise_id, limit))
    for point in demo_label_points(model):
        check_geometry("point", point["geometry"])
        conn.execute(
            "INSERT INTO label_point (enterprise_id, name, point_type, business_type, geometry)"
            " VALUES (%s, %s, %s, %s, %s::jsonb) ON CONFLICT (enterprise_id, name) DO NOTHING",
            (enterprise_id, point["name"], point["point_type"], point["business_type"], json.dumps(point["geometry"])))
    return ids
