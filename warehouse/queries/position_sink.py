"""The positions sink's statements (gps, device_last, and what a late or refused fix marks: track_day,
report_dirty_day, gps_reject_day), the binary rows they read, and an async function per step for the
streams' positions writer (streams/positions.py, which holds the batch logic and the transaction).

The hot path of ingest (docs/performance.md): each statement is fixed text, so psycopg prepares it like
any other after its first uses; the rows travel as one binary COPY stream or one array per column
(``unnest``), so a batch of any size is one round trip per statement with no SQL assembled from data.
Idempotency lives in the SQL:

- ``gps``: ON CONFLICT (device_id, fix_at) DO NOTHING: a replayed or resent position adds nothing. The
  track keeps one fix per device and second (the first stored); the writer counts a later fix of that
  second that says something else (``stored_fixes_async`` reads the kept one back).
- ``device_last``: upsert guarded by ``WHERE device_last.fix_at < EXCLUDED.fix_at``: an older
  (replayed, backlog) fix never replaces a newer one. This is the one writer of ``device_last`` besides
  the history loader (warehouse/history.py, bulk demo history).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

import orjson
import psycopg

from warehouse.queries.arrays import DateArray, FloatArray, IntArray, SqlArray, TextArray, TimeArray


class PositionRow(Protocol):
    """What the rows of a batch carry (streams.messages.Fix fits): one gps row each."""

    @property
    def device_id(self) -> int: ...
    @property
    def car_id(self) -> int | None: ...
    @property
    def enterprise_id(self) -> int: ...
    @property
    def fix_at(self) -> datetime: ...
    @property
    def lat(self) -> float: ...
    @property
    def lng(self) -> float: ...
    @property
    def altitude_m(self) -> float: ...
    @property
    def speed_kmh(self) -> float: ...
    @property
    def direction_deg(self) -> int: ...
    @property
    def alarm_flags(self) -> int: ...
    @property
    def status_flags(self) -> int: ...
    @property
    def mileage_km(self) -> float | None: ...
    @property
    def fuel_l(self) -> float | None: ...
    @property
    def extras(self) -> dict[str, Any]: ...
    @property
    def received_at(self) -> datetime: ...
    @property
    def quality(self) -> int: ...

COLUMNS = (
    "device_id", "fix_at", "car_id", "enterprise_id", "lng", "lat", "altitude_m", "speed_kmh",
    "direction_deg", "mileage_km", "fuel_l", "alarm_flags", "status_flags", "extras", "received_at", "quality",
)

_UNNEST = """
FROM unnest(%s::bigint[], %s::timestamptz[], %s::bigint[], %s::bigint[], %s::float8[], %s::float8[],
            %s::real[], %s::real[], %s::smallint[], %s::float8[], %s::real[], %s::bigint[], %s::bigint[],
            %s::text[], %s::timestamptz[], %s::smallint[])
  AS t(device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg,
       mileage_km, fuel_l, alarm_flags, status_flags, extras, received_at, quality)
"""

_SELECT = """
SELECT device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg,
       mileage_km, fuel_l, alarm_flags, status_flags, extras::jsonb, received_at, quality
"""

_INSERT_INTO = """(device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,
 direction_deg, mileage_km, fuel_l, alarm_flags, status_flags, extras, received_at)"""

INSERT_GPS = ("INSERT INTO gps " + _INSERT_INTO[:-1] + ", quality)" + _SELECT + _UNNEST + "ON CONFLICT (device_id, fix_at) DO NOTHING "
              "RETURNING device_id, fix_at")

# device_last from the same binary rows as gps: COPY into this session's temporary table (emptied at every
# commit), then one upsert from it. The array literals it replaced cost the worker ~3 µs a position
# (docs/performance.md, "Throughput, third stage"); PostgreSQL's share is the same either way.
CREATE_DEVICE_LAST_IN = """CREATE TEMP TABLE IF NOT EXISTS device_last_in (
  device_id bigint, fix_at timestamptz, car_id bigint, enterprise_id bigint, lng float8, lat float8,
  altitude_m real, speed_kmh real, direction_deg smallint, mileage_km float8, fuel_l real,
  alarm_flags bigint, status_flags bigint, extras jsonb, received_at timestamptz, quality smallint)
  ON COMMIT DELETE ROWS"""
COPY_DEVICE_LAST_IN = "COPY device_last_in (" + ", ".join(COLUMNS) + ") FROM STDIN (FORMAT BINARY)"

UPSERT_DEVICE_LAST = "INSERT INTO device_last " + _INSERT_INTO + """
SELECT """ + ", ".join(COLUMNS[:-1]) + """
FROM device_last_in
ON CONFLICT (device_id) DO UPDATE SET
  car_id = EXCLUDED.car_id, enterprise_id = EXCLUDED.enterprise_id, fix_at = EXCLUDED.fix_at,
  lng = EXCLUDED.lng, lat = EXCLUDED.lat, altitude_m = EXCLUDED.altitude_m,
  speed_kmh = EXCLUDED.speed_kmh, direction_deg = EXCLUDED.direction_deg,
  mileage_km = EXCLUDED.mileage_km, fuel_l = EXCLUDED.fuel_l, alarm_flags = EXCLUDED.alarm_flags,
  status_flags = EXCLUDED.status_flags, extras = EXCLUDED.extras, received_at = EXCLUDED.received_at
WHERE device_last.fix_at < EXCLUDED.fix_at"""


# A late fix (0x0704 backlog) for a closed UTC day makes that day's track summary stale
# (warehouse.track_days): deleted in the same transaction; the next read or daily run rebuilds it.
INVALIDATE_TRACK_DAYS = """DELETE FROM track_day t USING unnest(%s::bigint[], %s::date[]) AS s(device_id, day)
WHERE t.device_id = s.device_id AND t.day = s.day"""


# Reports: a late fix of a closed *local* report day marks that day (and enterprise) dirty in the
# same transaction; the late_positions sensor (orchestration/sensors.py) rebuilds the day and its month.
MARK_DIRTY_DAYS = """INSERT INTO report_dirty_day (day, enterprise_id)
SELECT * FROM unnest(%s::date[], %s::bigint[])
ON CONFLICT (day, enterprise_id) DO UPDATE SET marked_at = clock_timestamp()"""

# Refused positions per local day, terminal and reason class: the denominator of 数据合格率 (docs/kpi.md).
# A replayed batch counts its refusals again (the count is a KPI denominator, not a ledger).
COUNT_REJECTS = """INSERT INTO gps_reject_day (day, device_id, reason_class, enterprise_id, n)
SELECT * FROM unnest(%s::date[], %s::bigint[], %s::text[], %s::bigint[], %s::int[])
ON CONFLICT (day, device_id, reason_class) DO UPDATE SET n = gps_reject_day.n + EXCLUDED.n"""


# The stored fixes of the (device, second) pairs a batch could not insert: a replay when they say the
# same, else a second fix of that second that the track does not keep (counted, logged).
STORED_AT = """SELECT g.device_id, g.fix_at, g.lat, g.lng, g.speed_kmh, g.direction_deg, g.alarm_flags, g.status_flags
FROM gps g JOIN unnest(%s::bigint[], %s::timestamptz[]) AS k(device_id, fix_at)
  ON g.device_id = k.device_id AND g.fix_at = k.fix_at"""


# Binary COPY into gps (the normal path: no SQL text to parse, no array literals to build or read back).
# COPY has no ON CONFLICT: a batch that repeats a stored position (a replay after a crash, a resend whose
# ack was lost) fails with a unique violation and is written again with INSERT_GPS, which skips it.
COPY_GPS = "COPY gps (" + ", ".join(COLUMNS) + ") FROM STDIN (FORMAT BINARY)"

_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, header extension length
_TRAILER = b"\xff\xff"
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_NULL = b"\xff\xff\xff\xff"
_HEAD = struct.Struct(">hiqiq")        # 16 fields; device_id, fix_at
_INT8 = struct.Struct(">iq")
_MIDDLE = struct.Struct(">iqididififih")  # enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg
_FLOAT8 = struct.Struct(">id")
_FLOAT4 = struct.Struct(">if")
_FLAGS = struct.Struct(">iqiqi")       # alarm_flags, status_flags, then the jsonb length
_TAIL = struct.Struct(">iqih")         # received_at, quality


def _pg_time(moment: datetime) -> int:
    """Microseconds since 2000-01-01 UTC: a timestamptz in PostgreSQL's binary format."""
    return (moment - _PG_EPOCH) // _US


def copy_data(fixes: Sequence[PositionRow]) -> bytes:
    """The rows as one binary COPY stream (signature, rows, trailer) for COPY_GPS. Raises
    psycopg.DataError for a value out of its column's range (what INSERT would have refused)."""
    parts = [_SIGNATURE]
    append = parts.append
    received_at, received_us = None, 0
    dumps, sort_keys = orjson.dumps, orjson.OPT_SORT_KEYS
    head, int8, middle, float8, float4, flags = _HEAD.pack, _INT8.pack, _MIDDLE.pack, _FLOAT8.pack, _FLOAT4.pack, _FLAGS.pack
    tail = _TAIL.pack
    try:
        for f in fixes:
            if f.received_at is not received_at:
                received_at, received_us = f.received_at, _pg_time(f.received_at)
            extras = dumps(f.extras, option=sort_keys)
            car, mileage, fuel = f.car_id, f.mileage_km, f.fuel_l
            append(head(16, 8, f.device_id, 8, _pg_time(f.fix_at)))
            append(_NULL if car is None else int8(8, car))
            append(middle(8, f.enterprise_id, 8, f.lng, 8, f.lat, 4, f.altitude_m, 4, f.speed_kmh, 2, f.direction_deg))
            append(_NULL if mileage is None else float8(8, mileage))
            append(_NULL if fuel is None else float4(4, fuel))
            append(flags(8, f.alarm_flags, 8, f.status_flags, len(extras) + 1))
            append(b"\x01")  # jsonb binary format version
            append(extras)
            append(tail(8, received_us, 2, f.quality))
    except (struct.error, OverflowError) as exc:
        raise psycopg.DataError(f"gps row out of range: {exc}") from exc
    append(_TRAILER)
    return b"".join(parts)


def column_arrays(fixes: Sequence[PositionRow]) -> list[SqlArray]:
    """One list per column of COLUMNS, the parameters of INSERT_GPS."""
    return [
        IntArray([f.device_id for f in fixes]),
        TimeArray([f.fix_at for f in fixes]),
        IntArray([f.car_id for f in fixes]),
        IntArray([f.enterprise_id for f in fixes]),
        FloatArray([f.lng for f in fixes]),
        FloatArray([f.lat for f in fixes]),
        FloatArray([f.altitude_m for f in fixes]),
        FloatArray([f.speed_kmh for f in fixes]),
        IntArray([f.direction_deg for f in fixes]),
        FloatArray([f.mileage_km for f in fixes]),
        FloatArray([f.fuel_l for f in fixes]),
        IntArray([f.alarm_flags for f in fixes]),
        IntArray([f.status_flags for f in fixes]),
        TextArray([orjson.dumps(f.extras, option=orjson.OPT_SORT_KEYS).decode() for f in fixes]),
        TimeArray([f.received_at for f in fixes]),
        IntArray([f.quality for f in fixes]),
    ]


def reject_count_arrays(counts: dict[tuple[date, int, str, int], int]) -> list[SqlArray]:
    """COUNT_REJECTS' parameters from {(local day, device, reason class, enterprise): n}."""
    keys = list(counts)
    return [DateArray([k[0] for k in keys]), IntArray([k[1] for k in keys]), TextArray([k[2] for k in keys]),
            IntArray([k[3] for k in keys]), IntArray([counts[k] for k in keys])]


async def copy_gps_async(conn: psycopg.AsyncConnection[Any], data: bytes) -> None:
    """``data`` (``copy_data``) into gps by binary COPY. Raises psycopg.errors.UniqueViolation when a row is
    stored already (COPY has no ON CONFLICT: write the batch again with ``insert_gps_async``)."""
    async with conn.cursor().copy(COPY_GPS) as copier:
        await copier.write(data)


async def insert_gps_async(conn: psycopg.AsyncConnection[Any], rows: Sequence[PositionRow]) -> set[tuple[int, datetime]]:
    """The rows into gps, skipping the (device, fix time) pairs stored already; the pairs it wrote."""
    cur = await conn.execute(INSERT_GPS, column_arrays(rows))
    return {(device, at) for device, at in await cur.fetchall()}


async def stored_fixes_async(conn: psycopg.AsyncConnection[Any], device_ids: Sequence[int],
                             fix_times: Sequence[datetime]) -> list[tuple[Any, ...]]:
    """The stored gps rows of the (device, fix time) pairs (index-aligned), as (device_id, fix_at, lat, lng,
    speed_kmh, direction_deg, alarm_flags, status_flags)."""
    cur = await conn.execute(STORED_AT, [IntArray(device_ids), TimeArray(fix_times)])
    return list(await cur.fetchall())


async def upsert_device_last_async(conn: psycopg.AsyncConnection[Any], data: bytes) -> None:
    """``data`` (``copy_data`` of at most one row per device) into device_last where it is newer: COPY into
    the session's temporary table (emptied at commit), then one upsert from it. Run inside a transaction."""
    await conn.execute(CREATE_DEVICE_LAST_IN)
    async with conn.cursor().copy(COPY_DEVICE_LAST_IN) as copier:
        await copier.write(data)
    await conn.execute(UPSERT_DEVICE_LAST)


async def invalidate_track_days_async(conn: psycopg.AsyncConnection[Any], pairs: Sequence[SqlArray]) -> None:
    """Delete the track day summaries of the (device ids, UTC days) arrays ``pairs``."""
    await conn.execute(INVALIDATE_TRACK_DAYS, pairs)


async def mark_dirty_days_async(conn: psycopg.AsyncConnection[Any], pairs: Sequence[SqlArray]) -> None:
    """Mark the (local days, enterprise ids) arrays ``pairs`` for the reports' rebuild."""
    await conn.execute(MARK_DIRTY_DAYS, pairs)


async def count_rejects_async(conn: psycopg.AsyncConnection[Any], counts: dict[tuple[date, int, str, int], int]) -> None:
    """Add {(local day, device, reason class, enterprise): n} to gps_reject_day."""
    await conn.execute(COUNT_REJECTS, reject_count_arrays(counts))


# The last stored fix of each device (the teleport check's starting point).
_LAST_FIXES = "SELECT device_id, extract(epoch FROM fix_at), lat, lng FROM device_last WHERE device_id = ANY(%s)"


async def last_fixes_async(conn: psycopg.AsyncConnection[Any], device_ids: Sequence[int]) -> list[tuple[Any, ...]]:
    """(device_id, epoch seconds, lat, lng) of the devices' device_last rows (absent devices: no row)."""
    cur = await conn.execute(_LAST_FIXES, [device_ids])
    return list(await cur.fetchall())
