"""Day summaries of each device's track (``track_day``, migration 0017; the summary itself is
``fleet.track_summary``): written once a UTC day is closed, read by long track reads and the stop logs.

- ``summarise_day(conn, day)`` summarises every device with fixes that day (only those without a
  summary unless ``force``), streaming one device's day at a time; ``summarise_days(url)`` does the
  last ``catch_up_days`` closed days (``fleet summarise-days``, ``fleet up`` at start and daily, the
  history seeder and the benchmark loader after a bulk load). Idempotent: upserts.
- ``track_columns(conn, device_id, start, end, ...)`` answers a range's kept fixes: stored summaries for
  the closed whole days inside it, every fix from ``gps`` for today and the partial days at the ends. A closed day without a summary (or one made with other thresholds) is summarised
  then and stored, so only the first read pays.
- The positions sink deletes a day's summary when a late fix lands in a closed day
  (``queries.position_sink.INVALIDATE_TRACK_DAYS``). A summary written from a snapshot taken before a late
  fix committed, after the sink's delete, would miss that fix: the daily run waits
  ``after_midnight_s`` so the day's own traffic is in first.
"""

from __future__ import annotations

import logging
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import click
import orjson
from psycopg import Connection, sql
from psycopg.types.json import set_json_loads

from fleet.settings import TrackDaySettings
from fleet.stops import StopThresholds
from fleet.track_summary import DaySummary, TrackColumns, collapse_parked, summarise
from warehouse.queries.track_alarms import items_sql

log = logging.getLogger(__name__)

DAY = timedelta(days=1)
ARRAY_COLUMNS = ("times", "lngs", "lats", "speeds", "directions", "altitudes", "mileages", "fuels", "alarms", "statuses")
_ARRAY_TYPES = ("bigint", "float8", "float8", "float8", "int", "float8", "float8", "float8", "bigint", "bigint")

# Real columns go through text (PostgreSQL prints a real's shortest decimal: 45.3, not 45.29999923706055),
# so a row's JSON built from these equals the one json_build_array makes from gps. ``items``: the fix's
# alarm items (track_alarms.items_sql), NULL for almost every fix.
# The lookback (context) rows come first; the day's own are ms >= day_ms (they alone are counted).
# Fixes flagged implausible (gps.quality, migration 0038) are in no summary: the track leaves them out.
_FIXES = """
SELECT device_id, count(*) FILTER (WHERE ms >= %(day_ms)s)::int, min(car_id) FILTER (WHERE ms >= %(day_ms)s),
       max(car_id) FILTER (WHERE ms >= %(day_ms)s), count(car_id) FILTER (WHERE ms >= %(day_ms)s)::int,
       min(enterprise_id) FILTER (WHERE ms >= %(day_ms)s), max(enterprise_id) FILTER (WHERE ms >= %(day_ms)s),
       array_agg(ms), array_agg(lng), array_agg(lat), array_agg(speed), array_agg(direction), array_agg(altitude),
       array_agg(mileage_km), array_agg(fuel), array_agg(alarm_flags), array_agg(status_flags), array_agg(items)
FROM (SELECT device_id, car_id, enterprise_id, round(date_part('epoch', fix_at) * 1000)::bigint AS ms, lng, lat,
             speed_kmh::text::float8 AS speed, direction_deg::int AS direction, altitude_m::text::float8 AS altitude,
             mileage_km, fuel_l::text::float8 AS fuel, alarm_flags, status_flags, {items} AS items
      FROM gps g WHERE fix_at >= %(start)s AND fix_at < %(end)s AND quality = 0 AND {where}
      ORDER BY device_id, fix_at) g
GROUP BY device_id ORDER BY device_id"""

_UPSERT = sql.SQL("""
INSERT INTO track_day (device_id, day, car_id, enterprise_id, points, first_at, last_at, mileage_km, park_speed_kmh,
                       radius_m, resolution_s, {columns}, alarm_items, computed_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, {arrays}, %s::jsonb, now())
ON CONFLICT (device_id, day) DO UPDATE SET
  car_id = EXCLUDED.car_id, enterprise_id = EXCLUDED.enterprise_id, points = EXCLUDED.points,
  first_at = EXCLUDED.first_at, last_at = EXCLUDED.last_at, mileage_km = EXCLUDED.mileage_km,
  park_speed_kmh = EXCLUDED.park_speed_kmh, radius_m = EXCLUDED.radius_m, resolution_s = EXCLUDED.resolution_s,
  {updates}, alarm_items = EXCLUDED.alarm_items, computed_at = EXCLUDED.computed_at""").format(
    columns=sql.SQL(", ").join(map(sql.Identifier, ARRAY_COLUMNS)),
    arrays=sql.SQL(", ").join(sql.SQL(f"%s::{t}[]") for t in _ARRAY_TYPES),
    updates=sql.SQL(", ").join(sql.SQL("{c} = EXCLUDED.{c}").format(c=sql.Identifier(c)) for c in ARRAY_COLUMNS))


def _fixes_sql(where: sql.Composable) -> sql.Composed:
    return sql.SQL(_FIXES).format(where=where, items=sql.SQL(items_sql("g.extras")))


def today() -> date:
    """The current UTC day: days before it are closed."""
    return datetime.now(UTC).date()


def day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _literal(values: Sequence[Any], fmt: Callable[[Any], str]) -> str:
    """A PostgreSQL array literal, built with str.join (psycopg adapts lists element by element)."""
    if None in values:
        return "{" + ",".join("NULL" if v is None else fmt(v) for v in values) + "}"
    return "{" + ",".join(map(fmt, values)) + "}"


def _array_params(kept: TrackColumns) -> list[str]:
    return [_literal(column, repr if kind == "float8" else str)
            for column, kind in zip(kept.columns()[:len(ARRAY_COLUMNS)], _ARRAY_TYPES, strict=True)]


def _items_param(kept: TrackColumns) -> str:
    """``alarm_items`` of a summary: the kept fixes' items by their epoch ms (sparse)."""
    return orjson.dumps({str(t): item for t, item in zip(kept.times, kept.items, strict=True) if item is not None}).decode()


def _with_items(kept: TrackColumns, stored: dict[str, Any]) -> TrackColumns:
    """``kept`` with the items of ``alarm_items`` put back on their fixes."""
    if stored:
        kept.items = [stored.get(str(t)) for t in kept.times]
    return kept


@dataclass(frozen=True)
class StoredDay:
    day: date
    car_id: int | None
    enterprise_id: int | None
    summary: DaySummary


def _single(low: Any, high: Any, counted: int, total: int) -> Any:
    return low if counted == total and low == high else None


def _fixes_params(day: date, lookback_s: int) -> dict[str, Any]:
    """_FIXES' parameters for ``day`` and the ``lookback_s`` before it (context)."""
    start = day_start(day)
    return {"start": start - timedelta(seconds=lookback_s), "end": start + DAY, "day": day,
            "day_ms": int(start.timestamp() * 1000)}


def _stored(day: date, row: Sequence[Any], thresholds: StopThresholds, resolution_s: int) -> StoredDay:
    """A row of _FIXES (context, then the day's fixes) summarised."""
    _device, total, car_low, car_high, cars, ent_low, ent_high, *arrays = row
    both = TrackColumns.of(arrays)
    split = bisect_left(both.times, int(day_start(day).timestamp() * 1000))
    context = both.take(range(split))
    summary = summarise(both.take(range(split, len(both))), thresholds, resolution_s, context)
    return StoredDay(day, _single(car_low, car_high, cars, total), _single(ent_low, ent_high, total, total), summary)


def _ms_time(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


def _upsert(conn: Connection[Any], device_days: list[tuple[int, StoredDay]], thresholds: StopThresholds,
            resolution_s: int) -> None:
    if not device_days:
        return
    with conn.cursor() as cur:
        cur.executemany(_UPSERT, [
            (device_id, d.day, d.car_id, d.enterprise_id, d.summary.points, _ms_time(d.summary.first_ms),
             _ms_time(d.summary.last_ms), d.summary.mileage_km, thresholds.park_speed_kmh, thresholds.radius_m,
             resolution_s, *_array_params(d.summary.kept), _items_param(d.summary.kept))
            for device_id, d in device_days])


def summarise_day(conn: Connection[Any], day: date, *, device_ids: Sequence[int] | None = None, force: bool = False,
                  thresholds: StopThresholds | None = None, resolution_s: int | None = None) -> int:
    """Summaries of ``day`` for every device with fixes that day (or ``device_ids``); without ``force``
    only those that have none. One transaction (committed); returns the summaries written."""
    th = thresholds or StopThresholds.from_settings()
    settings = TrackDaySettings()
    resolution = resolution_s or settings.resolution_s
    where: list[sql.Composable] = [sql.SQL("TRUE")]
    params = _fixes_params(day, settings.lookback_s)
    if device_ids is not None:
        where.append(sql.SQL("device_id = ANY(%(devices)s::bigint[])"))
        params["devices"] = list(device_ids)
    if not force:  # a summary without alarm_items predates migration 0023: made again
        where.append(sql.SQL("NOT EXISTS (SELECT 1 FROM track_day t WHERE t.device_id = g.device_id AND t.day = %(day)s"
                             " AND t.alarm_items IS NOT NULL)"))
    query = _fixes_sql(sql.SQL(" AND ").join(where))
    written, batch = 0, []
    with conn.cursor(name="track_day_fixes", binary=True) as cur:
        cur.itersize = 200
        cur.execute(query, params)
        for row in cur:
            batch.append((int(row[0]), _stored(day, row, th, resolution)))
            if len(batch) >= 1000:
                written += len(batch)
                _upsert(conn, batch, th, resolution)
                batch = []
    _upsert(conn, batch, th, resolution)
    conn.commit()
    return written + len(batch)


def summarise_days(url: str, days: Iterable[date] | None = None, *, force: bool = False) -> dict[date, int]:
    """``summarise_day`` for each of ``days`` (default: the ``catch_up_days`` closed days before today,
    oldest first); a day not yet closed is skipped. Returns the summaries written per day."""
    from warehouse.db import connect

    now = today()
    if days is None:
        back = TrackDaySettings().catch_up_days
        days = [now - timedelta(days=k) for k in range(back, 0, -1)]
    done: dict[date, int] = {}
    with connect(url) as conn:
        conn.execute("SET jit = off")
        for day in days:
            if day >= now:
                log.warning("track days: %s is not closed yet; skipped", day)
                continue
            done[day] = summarise_day(conn, day, force=force)
    return done


# --- reads -------------------------------------------------------------------------------------------

def _matches(stored_value: float, wanted: float) -> bool:
    return abs(stored_value - wanted) <= 1e-4 * max(1.0, abs(wanted))


def load_days(conn: Connection[Any], device_id: int, days: Sequence[date], thresholds: StopThresholds,
              resolution_s: int) -> dict[date, StoredDay]:
    """The stored summaries of ``days`` (closed days) for the device; missing ones (or made with other
    thresholds, or before alarm items were kept) are summarised from gps now and stored."""
    if not days:
        return {}
    found: dict[date, StoredDay] = {}
    with conn.cursor(binary=True) as cur:
        set_json_loads(orjson.loads, cur)  # alarm_items: several times faster than the json module
        cur.execute(sql.SQL("SELECT day, car_id, enterprise_id, points, mileage_km, park_speed_kmh, radius_m, resolution_s,"
                            " alarm_items, {} FROM track_day WHERE device_id = %s AND day = ANY(%s::date[])").format(
            sql.SQL(", ").join(map(sql.Identifier, ARRAY_COLUMNS))), [device_id, list(days)])
        for day, car, ent, points, mileage, speed, radius, resolution, items, *arrays in cur:
            if resolution != resolution_s or not _matches(speed, thresholds.park_speed_kmh) or not _matches(
                    radius, thresholds.radius_m) or items is None:
                continue
            kept = _with_items(TrackColumns.of(arrays), items)
            first = kept.times[0] if kept.times else None
            last = kept.times[-1] if kept.times else None
            found[day] = StoredDay(day, car, ent, DaySummary(points, first, last, mileage, kept))
    missing = [d for d in days if d not in found]
    if missing:
        made = _summarise_now(conn, device_id, missing, thresholds, resolution_s)
        found.update(made)
    return found


def _summarise_now(conn: Connection[Any], device_id: int, days: list[date], thresholds: StopThresholds,
                   resolution_s: int) -> dict[date, StoredDay]:
    made: dict[date, StoredDay] = {}
    query = _fixes_sql(sql.SQL("device_id = %(device)s"))
    lookback_s = TrackDaySettings().lookback_s
    with conn.cursor(binary=True) as cur:
        for day in days:
            cur.execute(query, {**_fixes_params(day, lookback_s), "device": device_id})
            row = cur.fetchone()
            made[day] = (_stored(day, row, thresholds, resolution_s) if row is not None
                         else StoredDay(day, None, None, summarise(TrackColumns(), thresholds, resolution_s)))
    _upsert(conn, [(device_id, d) for d in made.values()], thresholds, resolution_s)
    return made


_RAW = """
SELECT array_agg(round(date_part('epoch', fix_at) * 1000)::bigint ORDER BY fix_at), array_agg(lng ORDER BY fix_at),
       array_agg(lat ORDER BY fix_at), array_agg(speed_kmh::text::float8 ORDER BY fix_at),
       array_agg(direction_deg::int ORDER BY fix_at), array_agg(altitude_m::text::float8 ORDER BY fix_at),
       array_agg(mileage_km ORDER BY fix_at), array_agg(fuel_l::text::float8 ORDER BY fix_at),
       array_agg(alarm_flags ORDER BY fix_at), array_agg(status_flags ORDER BY fix_at), array_agg({items} ORDER BY fix_at)
FROM gps WHERE device_id = %s AND fix_at >= %s AND fix_at < %s AND quality = 0 AND {where}"""


def raw_columns(conn: Connection[Any], device_id: int, start: datetime, end: datetime,
                where: sql.Composable | None = None, params: Sequence[Any] = ()) -> TrackColumns:
    """Every fix of [start, end) of the device (and ``where``: SQL on gps' columns, with ``params``)."""
    query = sql.SQL(_RAW).format(where=where if where is not None else sql.SQL("TRUE"), items=sql.SQL(items_sql("extras")))
    with conn.cursor(binary=True) as cur:
        cur.execute(query, [device_id, start, end, *params])
        row = cur.fetchone()
    return TrackColumns() if row is None or row[0] is None else TrackColumns.of(row)


@dataclass
class RangeColumns:
    """A range's fixes as the summaries keep them (``kept``, time order) and the count of every fix."""

    kept: TrackColumns
    total: int
    summarised_days: int


def plan_parts(start: datetime, end: datetime, now_day: date) -> list[tuple[datetime, datetime, date | None]]:
    """[start, end) cut into closed whole UTC days (with their day) and the rest (None), in order;
    adjacent rest parts merged."""
    parts: list[tuple[datetime, datetime, date | None]] = []
    day = start.astimezone(UTC).date()
    while day_start(day) < end:
        lo, hi = max(start, day_start(day)), min(end, day_start(day) + DAY)
        whole = lo == day_start(day) and hi == day_start(day) + DAY and day < now_day
        if not whole and parts and parts[-1][2] is None and parts[-1][1] == lo:
            parts[-1] = (parts[-1][0], hi, None)
        else:
            parts.append((lo, hi, day if whole else None))
        day += DAY
    return parts


def track_columns(conn: Connection[Any], device_id: int, start: datetime, end: datetime, *,
                  thresholds: StopThresholds, resolution_s: int | None = None,
                  accept: Callable[[StoredDay], bool] | None = None,
                  where: sql.Composable | None = None, params: Sequence[Any] = ()) -> RangeColumns:
    """The kept fixes of [start, end): summaries for closed whole days (those ``accept`` answers True
    for; default every one), every fix from ``gps`` for the rest (``where``/``params`` filter those reads,
    see raw_columns). Stop detection over the result gives the stops of every fix."""
    resolution = resolution_s or TrackDaySettings().resolution_s
    parts = plan_parts(start, end, today())
    stored = load_days(conn, device_id, [d for _lo, _hi, d in parts if d is not None], thresholds, resolution)
    out, total, used = TrackColumns(), 0, 0
    candidates: list[int] = []  # what track_points would collapse: every raw fix, each summary's ends
    for lo, hi, day in parts:
        summary = stored.get(day) if day is not None else None
        if summary is not None and (accept is None or accept(summary)):
            kept = summary.summary.kept
            if len(kept):
                candidates += (len(out), len(out) + len(kept) - 1)
            out.extend(kept)
            total += summary.summary.points
            used += 1
            continue
        raw = raw_columns(conn, device_id, lo, hi, where, params)
        candidates += range(len(out), len(out) + len(raw))
        out.extend(raw)
        total += len(raw)
    return RangeColumns(collapse_parked(out, thresholds, candidates), total, used)


# --- the daily run in `fleet up` ------------------------------------------------------------------------

class DailySummariser:
    """``fleet up``'s background summariser: the missing closed days at start (``catch_up_days`` back),
    then once a day ``after_midnight_s`` after UTC midnight. Errors are logged and retried next time."""

    def __init__(self, url: str, settings: TrackDaySettings | None = None) -> None:
        self.url = url
        self.settings = settings or TrackDaySettings()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="track-day-summariser", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                written = summarise_days(self.url)
                log.info("track days: %d summaries in %.1f s", sum(written.values()), time.monotonic() - started)
            except Exception:  # a database outage: log, try at the next run
                log.exception("track days: summarising failed")
            self._stop.wait(seconds_until_next_run(datetime.now(UTC), self.settings.after_midnight_s))


def seconds_until_next_run(now: datetime, after_midnight_s: int) -> float:
    """Seconds from ``now`` to the next UTC midnight + ``after_midnight_s``."""
    due = day_start(now.astimezone(UTC).date()) + timedelta(seconds=after_midnight_s)
    if due <= now:
        due += DAY
    return (due - now).total_seconds()


@click.command("summarise-days")
@click.option("--day", "day_text", default=None, metavar="YYYY-MM-DD", help="that closed UTC day only (default: the last catch_up_days closed days)")
@click.option("--force", is_flag=True, help="recompute summaries that exist already")
@click.option("--database-url", default=None, help="libpq URL; default: the configured database")
def summarise_days_command(day_text: str | None, force: bool, database_url: str | None) -> None:
    """Write the track day summaries of closed UTC days (idempotent: only missing ones unless --force)."""
    from fleet.settings import database_url as configured_url

    days: list[date] | None = None
    if day_text is not None:
        try:
            days = [date.fromisoformat(day_text)]
        except ValueError:
            raise click.BadParameter(f"not a date (YYYY-MM-DD): {day_text!r}", param_hint="--day") from None
        if days[0] >= today():
            raise click.BadParameter(f"{day_text} is not a closed UTC day yet", param_hint="--day")
    started = time.monotonic()
    written = summarise_days(database_url or configured_url(), days, force=force)
    for day, count in written.items():
        click.echo(f"{day}: {count} summaries")
    click.echo(f"{sum(written.values())} summaries in {time.monotonic() - started:.1f} s")
