"""A small, hand-computed world for the report tests: three demo vehicles and one report day.

``seed_report_world(url)`` seeds the demo (3 terminals: 1 and 3 on subsidiary A, 2 on B) and writes, for
the local day ``DAY`` (2026-10-15, Asia/Shanghai):

- terminal 1 (car A1): 08:00-08:10 driving 10 km, 3 min at a red light, 08:14-08:24 10 km more, then parked
  with the engine on 08:25-08:35 (one trip of 20 km and 1,500 s, one idling park of 600 s); the odometer
  runs 5000.0 -> 5020.0 with every fix; state logs: ACC on 07:55-08:40, driving 08:00-08:25, parked
  08:25-08:40, engine off before and after; online 07:50-20:00; alarms: two overspeed (a1; one handled) and
  one ADAS forward collision (adas_1); two refused positions and five same-second fixes the KPI does
  not count (gps_reject_day).
- terminal 2 (car B2): 23:50 -> 00:11 the next day, 20 km at 60 km/h then standing (a trip listed on DAY
  with 20 km; DAY's mileage 9 km, the next day's 11 km); no state log (runtime from positions).
- terminal 3 (car A3): nothing (a row of zeros), until ``add_late_fixes`` adds a 0x0704-style backlog.

``EXPECTED`` holds the figures computed by hand (see the comments) that the tests compare with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions
from warehouse.seed import device_phone, seed_demo

DAY = date(2026, 10, 15)
NEXT = DAY + timedelta(days=1)
KM_DEG = 180 / (math.pi * 6371.0088)
LAT0, LNG = 39.9, 116.4


def local(hh: int, mm: int = 0, day: date = DAY) -> datetime:
    return datetime(day.year, day.month, day.day, hh, mm, tzinfo=UTC) - timedelta(hours=8)


@dataclass(frozen=True)
class WorldVehicle:
    car_id: int
    device_id: int
    enterprise_id: int


@dataclass(frozen=True)
class World:
    url: str
    a1: WorldVehicle
    b2: WorldVehicle
    a3: WorldVehicle
    enterprises: dict[str, int]


EXPECTED = {
    "a1": {"mileage_km": 20.0, "mileage_source": 1, "odo_km": 20.0, "gps_km": 20.0, "trips": 1, "trip_s": 1500,
           "parks": 1, "idlings": 1, "drive_s": 25 * 60, "idle_s": 15 * 60, "acc_on_s": 45 * 60,
           "online_s": (20 * 60 - 7 * 60 - 50) * 60, "rejected_points": 2, "points": 33, "overspeed_alarms": 2},
    "b2": {"mileage_km": 9.0, "trips": 1, "trip_km": 20.0, "next_mileage_km": 11.0, "drive_s": 600,
           "runtime_source": 2},
}


def _fix(v: WorldVehicle, at: datetime, km: float, speed: float, status: int, odo: float | None) -> tuple[Any, ...]:
    return (v.device_id, at, v.car_id, v.enterprise_id, LNG, LAT0 + km * KM_DEG, speed, odo, status, 0,
            at + timedelta(seconds=2))


def _track_a1(v: WorldVehicle) -> list[tuple[Any, ...]]:
    rows = []
    for k in range(11):  # 08:00-08:10, 1 km a minute
        rows.append(_fix(v, local(8, k), k, 60.0, 3, 5000.0 + k))
    for k in range(3):  # 08:11-08:13 at a red light
        rows.append(_fix(v, local(8, 11 + k), 10, 0.0, 3, 5010.0))
    for k in range(11):  # 08:14-08:24
        rows.append(_fix(v, local(8, 14 + k), 10 + k, 60.0, 3, 5010.0 + k))
    for k in range(8):  # 08:25-08:32 standing, engine on (last fix 08:32: a 7 min idling park)
        rows.append(_fix(v, local(8, 25 + k), 20, 0.0, 3, 5020.0))
    return rows


def _track_b2(v: WorldVehicle) -> list[tuple[Any, ...]]:
    rows = [_fix(v, local(23, 50) + timedelta(minutes=k), k, 60.0, 3, None) for k in range(21)]  # to 00:10
    rows += [_fix(v, local(0, 11, NEXT) + timedelta(minutes=k), 20, 0.0, 2, None) for k in range(20)]
    return rows


GPS_COLUMNS = ("device_id", "fix_at", "car_id", "enterprise_id", "lng", "lat", "speed_kmh", "mileage_km",
               "status_flags", "alarm_flags", "received_at")


def insert_fixes(url: str, rows: list[tuple[Any, ...]]) -> None:
    with connect(url) as conn:
        ensure_gps_partitions(conn, DAY - timedelta(days=1), 3)
        with conn.cursor() as cur, cur.copy(f"COPY gps ({', '.join(GPS_COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        conn.commit()


def _vehicle(conn: Any, terminal: int) -> WorldVehicle:
    row = conn.execute("SELECT c.id, d.id, c.enterprise_id FROM device d JOIN car c ON c.id = d.car_id"
                       " WHERE d.phone = %s", (device_phone(terminal),)).fetchone()
    return WorldVehicle(*row)


def seed_report_world(url: str) -> World:
    summary = seed_demo(url, terminals=3)
    with connect(url) as conn:
        a1, b2, a3 = (_vehicle(conn, t) for t in (1, 2, 3))
    insert_fixes(url, _track_a1(a1) + _track_b2(b2))
    with connect(url) as conn:
        d = a1.device_id
        conn.execute("INSERT INTO acc_state_log (device_id, create_time, state, car_id, enterprise_id) VALUES"
                     " (%s, %s, 0, %s, %s), (%s, %s, 1, %s, %s), (%s, %s, 0, %s, %s)",
                     (d, local(18, day=DAY - timedelta(days=1)), a1.car_id, a1.enterprise_id,
                      d, local(7, 55), a1.car_id, a1.enterprise_id, d, local(8, 40), a1.car_id, a1.enterprise_id))
        for at, state in ((local(18, day=DAY - timedelta(days=1)), 3), (local(8), 1), (local(8, 25), 2),
                          (local(8, 40), 3)):
            conn.execute("INSERT INTO biz_state_log (device_id, create_time, state, car_id, enterprise_id)"
                         " VALUES (%s, %s, %s, %s, %s)", (d, at, state, a1.car_id, a1.enterprise_id))
        for at, state in ((local(7, 50), 1), (local(20), 0)):
            conn.execute("INSERT INTO device_online_log (device_id, at, state, enterprise_id) VALUES (%s, %s, %s, %s)",
                         (d, at, state, a1.enterprise_id))
        for key, kind, start, end, state in (("a1", 1, local(8, 3), local(8, 5), 2), ("a1", 1, local(8, 20),
                                             local(8, 22), 0), ("adas_1", 5, local(8, 7), local(8, 7), 0)):
            conn.execute("INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, end_time,"
                         " state) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                         (a1.enterprise_id, d, a1.car_id, device_phone(1), kind, key, start, end, state))
        conn.execute("INSERT INTO gps_reject_day (day, device_id, reason_class, enterprise_id, n) VALUES"
                     " (%s, %s, 'speed', %s, 2)", (DAY, d, a1.enterprise_id))
        # second fixes in seconds the track holds: counted for operators, not refused data for the KPI
        conn.execute("INSERT INTO gps_reject_day (day, device_id, reason_class, enterprise_id, n) VALUES"
                     " (%s, %s, 'same_second', %s, 5)", (DAY, d, a1.enterprise_id))
        conn.commit()
    return World(url, a1, b2, a3, summary["enterprises"])


def add_late_fixes(world: World) -> int:
    """A backlog for car A3 on DAY (5 km at 10:00-10:05), marked dirty as the positions step does."""
    v = world.a3
    rows = [_fix(v, local(10, k), k, 60.0, 3, None) for k in range(6)]
    insert_fixes(world.url, rows)
    with connect(world.url) as conn:
        conn.execute("INSERT INTO report_dirty_day (day, enterprise_id) VALUES (%s, %s)"
                     " ON CONFLICT (day, enterprise_id) DO UPDATE SET marked_at = clock_timestamp()",
                     (DAY, v.enterprise_id))
        conn.commit()
    return len(rows)
