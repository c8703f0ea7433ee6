"""Bulk history loader: generated, realistic tracks straight into ``gps`` with COPY (issue 7 §6).

For the benchmarks (10,000 vehicles x 30 days) and for ``fleet up``'s demo seed (every simulated
vehicle gets its last few days), never through the gateway. ``generate_track`` is a small driving
model: trips along a heading that turns now and then, speed drifting towards a target and braking
for corners, mileage and fuel following the distance; between trips short idles (ACC on, speed 0)
and parks (ACC off), a long park overnight (Beijing time); overspeed alarms (bit 1) while faster than
the limit and rare other alarm bits. Rows have the columns the streams sink writes (``gps_sql``):
device, car and enterprise ids, status bit 0 = ACC, bit 1 = positioned; ``received_at`` a second
after the fix. ``device_last`` gets each vehicle's newest point with the sink's guard (an older fix
never replaces a newer one).

``load_history`` creates the daily partitions first (``warehouse.partitions``) and fails with
psycopg's UniqueViolation when a generated row already exists: load a range once (``seed_history``
skips vehicles that already have rows in its range).
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import Connection, sql

from protocols.china_time import CHINA_UTC_OFFSET
from warehouse.history_events import (
    ACC_COLUMNS,
    ALARM_COLUMNS,
    BIZ_COLUMNS,
    ONLINE_COLUMNS,
    Events,
    EventTracker,
)
from warehouse.partitions import ensure_gps_partitions

log = logging.getLogger(__name__)

M_PER_DEG_LAT = 111_320.0
ACC_ON, POSITIONED = 1, 2
OVERSPEED_BIT, RARE_ALARM_BITS = 1, (0, 2, 3, 11)
COPY_COLUMNS = ("device_id", "fix_at", "car_id", "enterprise_id", "lng", "lat", "altitude_m", "speed_kmh",
                "direction_deg", "mileage_km", "fuel_l", "alarm_flags", "status_flags", "received_at")


@dataclass(frozen=True)
class HistoryVehicle:
    device_id: int
    car_id: int | None
    enterprise_id: int
    phone: str = ""  # the terminal's phone (alarm rows need it when ``load_history(events=True)``)
    plate_number: str | None = None


@dataclass(frozen=True)
class DrivingModel:
    centre_lng: float = 116.39
    centre_lat: float = 39.91
    radius_km: float = 25.0
    limit_kmh: float = 90.0
    rare_alarm_per_minute: float = 0.0005
    # The model moves in steps of at most this long whatever the fix interval, so the month (a fix every
    # 5 minutes) and the recent days (every minute) drive and alarm alike: the same km and alarms a day.
    step_s: float = 60.0


@dataclass(frozen=True)
class TrackStart:
    """Where a vehicle's generated track resumes: its last stored fix (position, odometer, fuel), so a
    track seeded after another continues it instead of starting a new vehicle (the odometer never runs
    backwards at the seam)."""

    lng: float
    lat: float
    mileage_km: float
    fuel_l: float | None = None


@dataclass
class _State:
    lng: float
    lat: float
    heading: float
    speed: float
    target: float
    mileage_km: float
    fuel_l: float
    altitude_m: float
    mode: str  # drive | idle | park
    mode_left_s: float


def generate_track(
    vehicle: HistoryVehicle, start: datetime, end: datetime, interval_s: float, *,
    seed: int = 808, model: DrivingModel | None = None, resume: TrackStart | None = None,
) -> Iterator[tuple[datetime, float, float, float, float, int, float, float, int, int]]:
    """(fix_at, lng, lat, altitude_m, speed_kmh, direction_deg, mileage_km, fuel_l, alarm, status) every
    ``interval_s`` from ``start`` (inclusive) to ``end`` (exclusive), deterministic per seed, device and
    start; ``resume``: the vehicle goes on from there (position, odometer, fuel) instead of a random start."""
    m = model or DrivingModel()
    rng = random.Random(seed * 1_000_003 + vehicle.device_id + (0 if resume is None else int(start.timestamp())))
    m_per_deg_lng = M_PER_DEG_LAT * math.cos(math.radians(m.centre_lat))
    r = m.radius_km * 1000 * math.sqrt(rng.random()) * 0.8
    angle = rng.uniform(0, 2 * math.pi)
    st = _State(lng=m.centre_lng + r * math.cos(angle) / m_per_deg_lng, lat=m.centre_lat + r * math.sin(angle) / M_PER_DEG_LAT,
                heading=rng.uniform(0, 360), speed=0.0, target=0.0, mileage_km=rng.uniform(1_000, 200_000),
                fuel_l=rng.uniform(60, 200), altitude_m=rng.uniform(30, 80), mode="park", mode_left_s=rng.uniform(0, 1800))
    if resume is not None:
        st.lng, st.lat, st.mileage_km = resume.lng, resume.lat, resume.mileage_km
        st.fuel_l = resume.fuel_l if resume.fuel_l is not None else st.fuel_l
    step = timedelta(seconds=interval_s)
    substeps = max(1, math.ceil(interval_s / m.step_s))
    dt = interval_s / substeps
    rare = m.rare_alarm_per_minute * dt / 60
    at = start
    while at < end:
        alarm = 0  # a fix carries the alarm bits of its interval (as a terminal's latched bits)
        for k in range(substeps):
            _advance(st, rng, m, at + timedelta(seconds=dt * (k + 1 - substeps)), dt, m_per_deg_lng)
            if st.speed > m.limit_kmh:
                alarm |= 1 << OVERSPEED_BIT
            if rng.random() < rare:
                alarm |= 1 << rng.choice(RARE_ALARM_BITS)
        status = POSITIONED | (ACC_ON if st.mode != "park" else 0)
        yield (at, round(st.lng, 6), round(st.lat, 6), round(st.altitude_m, 1), round(st.speed, 1),
               int(st.heading) % 360, round(st.mileage_km, 1), round(st.fuel_l, 1), alarm, status)
        at += step


def _advance(st: _State, rng: random.Random, m: DrivingModel, at: datetime, dt: float, m_per_deg_lng: float) -> None:
    st.mode_left_s -= dt
    if st.mode_left_s <= 0:
        _next_mode(st, rng, at)
    if st.mode != "drive":
        st.speed = 0.0
        return
    if rng.random() < dt / 120:  # a corner every two minutes or so
        st.heading = (st.heading + rng.choice((-90, 90, -30, 30))) % 360
        st.speed = min(st.speed, 25.0)
        st.target = rng.uniform(30, 95)
    st.heading = (st.heading + rng.uniform(-4, 4)) % 360
    dx, dy = (st.lng - m.centre_lng) * m_per_deg_lng, (st.lat - m.centre_lat) * M_PER_DEG_LAT
    if math.hypot(dx, dy) > m.radius_km * 1000:  # at the edge: head back towards the centre
        st.heading = (math.degrees(math.atan2(-dx, -dy)) + rng.uniform(-20, 20)) % 360
    st.speed += max(-15.0, min(8.0, (st.target - st.speed) * 0.5)) * min(1.0, dt / 10)
    st.speed = max(3.0, st.speed + rng.uniform(-2, 2))
    metres = st.speed / 3.6 * dt
    rad = math.radians(st.heading)
    st.lng += metres * math.sin(rad) / m_per_deg_lng
    st.lat += metres * math.cos(rad) / M_PER_DEG_LAT
    st.mileage_km += metres / 1000
    st.fuel_l -= metres / 1000 * 0.1
    if st.fuel_l < 20:
        st.fuel_l = rng.uniform(150, 200)
    st.altitude_m = max(0.0, st.altitude_m + rng.uniform(-0.5, 0.5))


def _next_mode(st: _State, rng: random.Random, at: datetime) -> None:
    local_hour = (at + CHINA_UTC_OFFSET).hour
    if local_hour >= 22 or local_hour < 6:  # overnight park until about six
        st.mode = "park"
        st.mode_left_s = ((6 - local_hour) % 24) * 3600 + rng.uniform(0, 3600)
    elif st.mode == "drive":
        st.mode = "idle" if rng.random() < 0.35 else "park"
        st.mode_left_s = rng.uniform(60, 480) if st.mode == "idle" else rng.uniform(300, 5400)
    else:
        st.mode, st.target = "drive", rng.uniform(30, 95)
        st.mode_left_s = rng.uniform(600, 3600)


def _copy_lines(vehicle: HistoryVehicle, points: Iterable[tuple[Any, ...]]) -> Iterator[str]:
    head = f"{vehicle.device_id}\t"
    car = "\\N" if vehicle.car_id is None else str(vehicle.car_id)
    middle = f"\t{car}\t{vehicle.enterprise_id}\t"
    for at, lng, lat, alt, speed, direction, mileage, fuel, alarm, status in points:
        received = at + timedelta(seconds=1)
        yield (f"{head}{at.isoformat()}{middle}{lng}\t{lat}\t{alt}\t{speed}\t{direction}\t{mileage}\t{fuel}"
               f"\t{alarm}\t{status}\t{received.isoformat()}\n")


def load_history(
    conn: Connection[Any], vehicles: Sequence[HistoryVehicle], start: datetime, end: datetime, interval_s: float, *,
    seed: int = 808, model: DrivingModel | None = None, update_last: bool = True, events: Events | None = None,
    resume: Mapping[int, TrackStart] | None = None,
) -> int:
    """Generates and COPYs every vehicle's track over [start, end); returns the rows written. ``resume``:
    per device id, where its track goes on from (``last_fixes_before``).

    With ``events`` (an empty ``warehouse.history_events.Events``), also what the streams would have recorded
    for those tracks (alarm episodes, ACC / business-state transitions, the online log), collected there and
    COPYed after the positions (``copy_events``).

    Commits (partitions, then the rows, then ``device_last``). ``start``/``end`` are aware datetimes.
    Raises psycopg errors as they come (a row that exists already: UniqueViolation).
    """
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("load_history: start and end must be timezone-aware")
    first_day = start.astimezone(UTC).date()
    ensure_gps_partitions(conn, first_day, (end.astimezone(UTC).date() - first_day).days)
    rows = 0
    last: list[tuple[Any, ...]] = []
    statement = sql.SQL("COPY gps ({}) FROM STDIN").format(sql.SQL(", ").join(map(sql.Identifier, COPY_COLUMNS)))
    with conn.cursor() as cur, cur.copy(statement) as copy:
        for vehicle in vehicles:
            newest: tuple[Any, ...] | None = None
            buffer: list[str] = []
            tracker = None if events is None else EventTracker(
                vehicle.device_id, vehicle.car_id, vehicle.enterprise_id, vehicle.phone, vehicle.plate_number, events)
            for point in generate_track(vehicle, start, end, interval_s, seed=seed, model=model,
                                        resume=(resume or {}).get(vehicle.device_id)):
                buffer.extend(_copy_lines(vehicle, (point,)))
                newest = point
                if tracker is not None:
                    tracker.add(point[0], point[1], point[2], point[4], point[8], point[9])
                if len(buffer) >= 5000:
                    copy.write("".join(buffer))
                    rows += len(buffer)
                    buffer = []
            if buffer:
                copy.write("".join(buffer))
                rows += len(buffer)
            if newest is not None:
                last.append((vehicle.device_id, vehicle.car_id, vehicle.enterprise_id, *newest))
            if tracker is not None:
                tracker.close()
    if events is not None:
        copy_events(conn, events)
    conn.commit()
    if update_last and last:
        _upsert_last(conn, last)
        conn.commit()
    log.info("history: %d rows for %d vehicles, %s .. %s every %s s", rows, len(vehicles), start, end, interval_s)
    return rows


def copy_events(conn: Connection[Any], events: Events) -> None:
    """COPY generated alarm episodes and state / online transitions (the caller commits)."""
    for table, columns, rows in (("alarm", ALARM_COLUMNS, events.alarms), ("acc_state_log", ACC_COLUMNS, events.acc),
                                 ("biz_state_log", BIZ_COLUMNS, events.biz),
                                 ("device_online_log", ONLINE_COLUMNS, events.online)):
        if not rows:
            continue
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns)))
        with conn.cursor() as cur, cur.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)


def _upsert_last(conn: Connection[Any], last: list[tuple[Any, ...]]) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            """INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, altitude_m, speed_kmh,
                   direction_deg, mileage_km, fuel_l, alarm_flags, status_flags, received_at)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s + interval '1 second')
               ON CONFLICT (device_id) DO UPDATE SET
                 car_id = EXCLUDED.car_id, enterprise_id = EXCLUDED.enterprise_id, fix_at = EXCLUDED.fix_at,
                 lng = EXCLUDED.lng, lat = EXCLUDED.lat, altitude_m = EXCLUDED.altitude_m,
                 speed_kmh = EXCLUDED.speed_kmh, direction_deg = EXCLUDED.direction_deg,
                 mileage_km = EXCLUDED.mileage_km, fuel_l = EXCLUDED.fuel_l, alarm_flags = EXCLUDED.alarm_flags,
                 status_flags = EXCLUDED.status_flags, received_at = EXCLUDED.received_at
               WHERE device_last.fix_at < EXCLUDED.fix_at""",
            [(*row, row[3]) for row in last],
        )


def last_fixes_before(conn: Connection[Any], device_ids: Sequence[int], before: datetime) -> dict[int, TrackStart]:
    """Each device's last stored fix with an odometer before ``before`` (none: the device is absent)."""
    rows = conn.execute(
        """SELECT DISTINCT ON (device_id) device_id, lng, lat, mileage_km, fuel_l FROM gps
           WHERE device_id = ANY(%s) AND fix_at < %s AND fix_at >= %s - interval '2 days'
             AND mileage_km IS NOT NULL AND lng IS NOT NULL AND lat IS NOT NULL
           ORDER BY device_id, fix_at DESC""",
        (list(device_ids), before, before)).fetchall()
    return {int(r[0]): TrackStart(float(r[1]), float(r[2]), float(r[3]), None if r[4] is None else float(r[4]))
            for r in rows}


def last_odometers(url: str) -> dict[str, float]:
    """{terminal phone: km} of every live device's last stored odometer (``device_last``)."""
    from warehouse.db import connect

    with connect(url) as conn:
        rows = conn.execute("SELECT d.phone, l.mileage_km FROM device_last l JOIN device d ON d.id = l.device_id"
                            " WHERE d.record_state = 1 AND l.mileage_km IS NOT NULL").fetchall()
    return {str(phone): float(km) for phone, km in rows}


def vehicles_with_master_device(conn: Connection[Any]) -> list[HistoryVehicle]:
    """Every live car's master device (device id order), with its phone and the car's plate."""
    rows = conn.execute(
        "SELECT d.id, c.id, c.enterprise_id, d.phone, c.plate_number FROM car c JOIN device d ON d.id = c.master_device_id"
        " WHERE c.record_state = 1 AND d.record_state = 1 ORDER BY d.id"
    ).fetchall()
    return [HistoryVehicle(*row) for row in rows]


def seed_report_history(url: str, days: int, interval_s: float, *, recent_days: float = 3.0,
                        now: datetime | None = None) -> dict[str, int]:
    """The demo's month for the reports (issue 10 §5): for every vehicle without positions in it, ``days``
    days of generated track ending where ``seed_history``'s recent days begin (``recent_days`` before now),
    with its alarm episodes, state and online transitions. Returns the rows written per table (zeros when
    every vehicle had history already: later starts do nothing)."""
    from warehouse.db import connect

    end = (now or datetime.now(UTC)).replace(microsecond=0) - timedelta(minutes=1) - timedelta(days=recent_days)
    start = end - timedelta(days=days)
    with connect(url) as conn:
        have = {r[0] for r in conn.execute(
            "SELECT DISTINCT device_id FROM gps WHERE fix_at >= %s AND fix_at < %s", (start, end))}
        todo = [v for v in vehicles_with_master_device(conn) if v.device_id not in have]
        conn.commit()
        if not todo:
            return {"gps": 0, "alarm": 0, "acc_state_log": 0, "biz_state_log": 0, "device_online_log": 0}
        events = Events()
        rows = load_history(conn, todo, start, end, interval_s, events=events, update_last=False)
    return {"gps": rows, "alarm": len(events.alarms), "acc_state_log": len(events.acc),
            "biz_state_log": len(events.biz), "device_online_log": len(events.online)}


def seed_history(url: str, days: float = 3.0, interval_s: float = 60.0, *, now: datetime | None = None) -> int:
    """The demo's history: the last ``days`` of every vehicle that has no ``gps`` row in that range yet,
    one fix every ``interval_s``, ending a minute before ``now``, with its alarm episodes and state / online
    transitions (warehouse.history_events). Returns the positions written."""
    from warehouse.db import connect

    end = (now or datetime.now(UTC)).replace(microsecond=0) - timedelta(minutes=1)
    start = end - timedelta(days=days)
    with connect(url) as conn:
        have = {r[0] for r in conn.execute(
            "SELECT DISTINCT device_id FROM gps WHERE fix_at >= %s AND fix_at < %s", (start, end))}
        todo = [v for v in vehicles_with_master_device(conn) if v.device_id not in have]
        # the recent days go on from where the month (seed_report_history) left each vehicle
        resume = last_fixes_before(conn, [v.device_id for v in todo], start) if todo else {}
        conn.commit()
        if not todo:
            return 0
        rows = load_history(conn, todo, start, end, interval_s, events=Events(), resume=resume)
    summarise_loaded(url, start, end)
    return rows


def summarise_loaded(url: str, start: datetime, end: datetime) -> None:
    """The track day summaries of the closed UTC days [start, end) touches (warehouse.track_days), after
    a bulk load: only the missing ones."""
    from warehouse.track_days import summarise_days, today

    first, last = start.astimezone(UTC).date(), min(end.astimezone(UTC).date(), today() - timedelta(days=1))
    summarise_days(url, [first + timedelta(days=k) for k in range((last - first).days + 1)])
