"""Bulk history loader: generated, realistic tracks straight into ``gps`` with COPY.

For the benchmarks (10,000 vehicles x 30 days) and for ``fleet up``'s demo seed (every simulated
vehicle gets its last few days), never through the gateway. ``generate_track`` samples the demo fleet's
one driving model (``fleet.driving_model``, which the live simulator runs too, so seeded and live days
drive and alarm alike): trips, idles and parks around the clock, mileage and fuel following the
distance, terminal alarm bits (overspeed, fatigue, power low, emergency) and ADAS / DSM events (alarm
rows of types 5 / 6 with ``events``). Rows have the columns the streams sink writes (``queries.position_sink``):
device, car and enterprise ids, status bit 0 = ACC, bit 1 = positioned; ``received_at`` a second
after the fix. ``device_last`` gets each vehicle's newest point with the sink's guard (an older fix
never replaces a newer one).

``load_history`` creates the daily partitions first (``warehouse.partitions``) and fails with
psycopg's UniqueViolation when a generated row already exists: load a range once (``seed_history``
skips vehicles that already have rows in its range).
"""

from __future__ import annotations

import json
import logging
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import Connection, sql

from fleet.demo_fleet import phone_has_tpms
from fleet.driving_model import AlarmMix, Drive, SafetyDraw
from fleet.driving_model import DrivingModel as DrivingModel
from fleet.tyre_model import TyreSensors
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

ACC_ON, POSITIONED = 1, 2
COPY_COLUMNS = ("device_id", "fix_at", "car_id", "enterprise_id", "lng", "lat", "altitude_m", "speed_kmh",
                "direction_deg", "mileage_km", "fuel_l", "alarm_flags", "status_flags", "received_at", "extras")
NO_EXTRAS = "{}"


@dataclass(frozen=True)
class HistoryVehicle:
    device_id: int
    car_id: int | None
    enterprise_id: int
    phone: str = ""  # the terminal's phone (alarm rows need it when ``load_history(events=True)``)
    plate_number: str | None = None


@dataclass(frozen=True)
class TrackStart:
    """Where a vehicle's generated track resumes: its last stored fix (position, odometer, fuel), so a
    track seeded after another continues it instead of starting a new vehicle (the odometer never runs
    backwards at the seam)."""

    lng: float
    lat: float
    mileage_km: float
    fuel_l: float | None = None


def generate_track(
    vehicle: HistoryVehicle, start: datetime, end: datetime, interval_s: float, *,
    seed: int = 808, model: DrivingModel | None = None, resume: TrackStart | None = None,
    on_safety: Callable[[datetime, SafetyDraw, float, float, float], None] | None = None,
) -> Iterator[tuple[datetime, float, float, float, float, int, float, float, int, int]]:
    """(fix_at, lng, lat, altitude_m, speed_kmh, direction_deg, mileage_km, fuel_l, alarm, status) every
    ``interval_s`` from ``start`` (inclusive) to ``end`` (exclusive), deterministic per seed, device and
    start; ``resume``: the vehicle goes on from there (position, odometer, fuel) instead of a random start.

    The vehicle drives and raises alarms by the demo fleet's one model (``fleet.driving_model``, the live
    simulator's too), in steps of at most ``model.step_s`` whatever the interval; a fix carries the alarm
    bits of its interval (as a terminal's latched bits). ``on_safety(at, event, lng, lat, speed_kmh)`` is
    called for every active-safety (ADAS / DSM) event, at the moment it happened."""
    m = model or DrivingModel()
    rng = random.Random(seed * 1_000_003 + vehicle.device_id + (0 if resume is None else int(start.timestamp())))
    mix = AlarmMix(random.Random(rng.getrandbits(64)), m)
    if resume is None:
        drive = Drive(rng, m)
    else:
        drive = Drive(rng, m, lng=resume.lng, lat=resume.lat, mileage_km=resume.mileage_km, fuel_l=resume.fuel_l)
    step = timedelta(seconds=interval_s)
    substeps = max(1, math.ceil(interval_s / m.step_s))
    dt = interval_s / substeps
    at = start
    while at < end:
        alarm = 0
        for k in range(substeps):
            drive.advance(dt)
            event = mix.step(dt, drive.acc_on, drive.driving)
            drive.speeding = mix.speeding
            alarm |= mix.flags(drive.speed_kmh, m.limit_kmh)
            if event is not None and on_safety is not None:
                on_safety(at + timedelta(seconds=dt * (k + 1 - substeps)), event, round(drive.lng, 6),
                          round(drive.lat, 6), round(drive.speed_kmh, 1))
        status = POSITIONED | (ACC_ON if drive.acc_on else 0)
        yield (at, round(drive.lng, 6), round(drive.lat, 6), round(drive.altitude_m, 1), round(drive.speed_kmh, 1),
               int(drive.heading) % 360, round(drive.mileage_km, 1), round(drive.fuel_l, 1), alarm, status)
        at += step


def _copy_lines(vehicle: HistoryVehicle, points: Iterable[tuple[Any, ...]], extras: str = NO_EXTRAS) -> Iterator[str]:
    """COPY text lines; ``extras``: the points' gps.extras as JSON (COPY's text escapes applied here)."""
    head = f"{vehicle.device_id}\t"
    car = "\\N" if vehicle.car_id is None else str(vehicle.car_id)
    middle = f"\t{car}\t{vehicle.enterprise_id}\t"
    tail = extras.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    for at, lng, lat, alt, speed, direction, mileage, fuel, alarm, status in points:
        received = at + timedelta(seconds=1)
        yield (f"{head}{at.isoformat()}{middle}{lng}\t{lat}\t{alt}\t{speed}\t{direction}\t{mileage}\t{fuel}"
               f"\t{alarm}\t{status}\t{received.isoformat()}\t{tail}\n")


def _tyre_extras(tyres: TyreSensors | None, point: tuple[Any, ...], interval_s: float) -> str:
    """The fix's 0x66 item when its vehicle has tyre sensors and one is due (fleet.tyre_model), as JSON."""
    if tyres is None:
        return NO_EXTRAS
    at, lng, lat, alt, speed, _direction, _mileage, _fuel, _alarm, status = point
    items = tyres.step(interval_s, at, acc_on=bool(status & ACC_ON), speed_kmh=speed, altitude_m=alt, lat=lat, lng=lng,
                       status_flags=status)
    return json.dumps(items, ensure_ascii=False) if items else NO_EXTRAS


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
            # a demo terminal with tyre sensors reports them as the live simulator does (fleet.tyre_model)
            tyres = TyreSensors(random.Random(f"{seed}:{vehicle.device_id}:{start.isoformat()}:tyres"), vehicle.phone) \
                if phone_has_tpms(vehicle.phone) else None
            for point in generate_track(vehicle, start, end, interval_s, seed=seed, model=model,
                                        resume=(resume or {}).get(vehicle.device_id),
                                        on_safety=None if tracker is None else tracker.safety_event):
                buffer.extend(_copy_lines(vehicle, (point,), _tyre_extras(tyres, point, interval_s)))
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
        if table == "alarm":
            _copy_alarms(conn, rows)
            continue
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns)))
        with conn.cursor() as cur, cur.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)


def _copy_alarms(conn: Connection[Any], rows: Sequence[tuple[Any, ...]]) -> None:
    """Alarm rows in bulk: the per-row rollup trigger (migration 0021: alarm_day_count, alarm_device_latest)
    costs ~0.3 ms a row, minutes for a seeded month of ADAS / DSM events, so the rows go in with it disabled
    and the rollups get the same counts in one grouped statement each. All in the caller's transaction:
    ALTER TABLE's lock makes concurrent alarm writers wait, so none of them ever runs without the trigger."""
    columns = sql.SQL(", ").join(map(sql.Identifier, ALARM_COLUMNS))
    conn.execute("CREATE TEMP TABLE history_alarm (LIKE alarm INCLUDING DEFAULTS) ON COMMIT DROP")
    with conn.cursor() as cur, cur.copy(sql.SQL("COPY history_alarm ({}) FROM STDIN").format(columns)) as copy:
        for row in rows:
            copy.write_row(row)
    conn.execute("ALTER TABLE alarm DISABLE TRIGGER alarm_rollup_insert")
    conn.execute(sql.SQL("INSERT INTO alarm ({}) SELECT {} FROM history_alarm").format(columns, columns))
    conn.execute("ALTER TABLE alarm ENABLE TRIGGER alarm_rollup_insert")
    conn.execute(
        """INSERT INTO alarm_day_count AS c (enterprise_id, day, key, type, total, unhandled)
           SELECT enterprise_id, (start_time AT TIME ZONE INTERVAL '+08:00')::date, key, min(type), count(*),
                  count(*) FILTER (WHERE state = 0)
           FROM history_alarm GROUP BY 1, 2, 3
           ON CONFLICT (enterprise_id, day, key)
           DO UPDATE SET total = c.total + EXCLUDED.total, unhandled = c.unhandled + EXCLUDED.unhandled""")
    conn.execute(
        """INSERT INTO alarm_device_latest AS l (enterprise_id, device_id, last_day)
           SELECT enterprise_id, device_id, max((start_time AT TIME ZONE INTERVAL '+08:00')::date)
           FROM history_alarm GROUP BY 1, 2
           ON CONFLICT (enterprise_id, device_id)
           DO UPDATE SET last_day = EXCLUDED.last_day WHERE l.last_day < EXCLUDED.last_day""")
    conn.execute("DROP TABLE history_alarm")


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
    """Every live car's master device (device id order), with its phone and the car's plate. Only JT/T 808
    terminals: the generated history is theirs (0x0200 fixes, ADAS / DSM alarms, the 808 message log); a GB/T
    32960 or GB 17691 vehicle's history is what its terminal reports from the first start."""
    rows = conn.execute(
        "SELECT d.id, c.id, c.enterprise_id, d.phone, c.plate_number FROM car c JOIN device d ON d.id = c.master_device_id"
        " WHERE c.record_state = 1 AND d.record_state = 1 AND d.protocol = 'jt808' ORDER BY d.id"
    ).fetchall()
    return [HistoryVehicle(*row) for row in rows]


def demo_model() -> DrivingModel:
    """The live simulator's driving model (its settings' centre, radius and alarm rates): the demo's seeded
    days drive and alarm like its live ones."""
    from fleet.settings import SimulatorSettings

    return DrivingModel.from_settings(SimulatorSettings())


def seed_report_history(url: str, days: int, interval_s: float, *, recent_days: float = 3.0,
                        now: datetime | None = None) -> dict[str, int]:
    """The demo's month for the reports: for every vehicle without positions in it, ``days``
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
        rows = load_history(conn, todo, start, end, interval_s, events=events, update_last=False,
                            model=demo_model())
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
        rows = load_history(conn, todo, start, end, interval_s, events=Events(), resume=resume, model=demo_model())
    summarise_loaded(url, start, end)
    return rows


def summarise_loaded(url: str, start: datetime, end: datetime) -> None:
    """The track day summaries of the closed UTC days [start, end) touches (warehouse.track_days), after
    a bulk load: only the missing ones."""
    from warehouse.track_days import summarise_days, today

    first, last = start.astimezone(UTC).date(), min(end.astimezone(UTC).date(), today() - timedelta(days=1))
    summarise_days(url, [first + timedelta(days=k) for k in range((last - first).days + 1)])
