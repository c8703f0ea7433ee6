"""SQL and parameter building for the positions sink. Pure: no connection here.

Both statements are fixed text taking one array per column (``unnest``), so a batch of any size is
one round trip with no SQL assembled from data. The arrays are ``SqlArray`` lists, sent as one array
literal each, built with ``str.join`` (psycopg's generic list dumper adapts element by element in
Python: it was ~14% of the worker's CPU, docs/performance.md). Idempotency lives in the SQL:

- ``gps``: ON CONFLICT (device_id, fix_at) DO NOTHING: a replayed or resent position adds nothing. The
  track keeps one fix per device and second (the first stored); a later fix of that second that says
  something else (a 0x0704 item, a 0x0201 answer: the command keeps that one in its reply) is counted
  in ``gps_reject_day`` as ``same_second`` and logged, never dropped silently.
- ``device_last``: upsert guarded by ``WHERE device_last.fix_at < EXCLUDED.fix_at``: an older
  (replayed, backlog) fix never replaces a newer one; a fix flagged implausible (``quality``, migration
  0038) never reaches it (streams.positions.write_fixes).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

import orjson
import psycopg
from psycopg.adapt import Dumper

from streams.messages import Fix


class SqlArray(list[Any]):
    """A list sent as a PostgreSQL array literal (text); the SQL casts it (``%s::bigint[]``)."""

    __slots__ = ()

    def literal(self) -> str:
        raise NotImplementedError


class IntArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        if None in self:
            return "{" + ",".join("NULL" if v is None else str(int(v)) for v in self) + "}"
        return "{" + ",".join(map(str, map(int, self))) + "}"


class FloatArray(SqlArray):
    """repr() is the shortest text that reads back as the same double (what psycopg sends too)."""

    __slots__ = ()

    def literal(self) -> str:
        if None in self:
            return "{" + ",".join("NULL" if v is None else repr(float(v)) for v in self) + "}"
        return "{" + ",".join(map(repr, map(float, self))) + "}"


class TimeArray(SqlArray):
    """Aware datetimes as ISO 8601 with their offset (no character needs quoting in an array)."""

    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join("NULL" if v is None else v.isoformat() for v in self) + "}"


class TextArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join("NULL" if v is None else
                              '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in self) + "}"


class DateArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join(v.isoformat() for v in self) + "}"


class _SqlArrayDumper(Dumper):
    def dump(self, obj: SqlArray) -> bytes:
        return obj.literal().encode()


psycopg.adapters.register_dumper(SqlArray, _SqlArrayDumper)

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


def dirty_report_days(fixes: Iterable[Fix], local_midnight: datetime, zone: tzinfo) -> list[SqlArray]:
    """The (local day, enterprise) pairs of fixes before ``local_midnight`` (today's start in the report
    zone), as MARK_DIRTY_DAYS' parameters; empty for a batch of today's fixes (one comparison per fix)."""
    pairs = {(fix.fix_at.astimezone(zone).date(), fix.enterprise_id) for fix in fixes if fix.fix_at < local_midnight}
    if not pairs:
        return []
    return [DateArray([day for day, _ in pairs]), IntArray([enterprise for _, enterprise in pairs])]


def reject_counts(counts: dict[tuple[date, int, str, int], int]) -> list[SqlArray]:
    """COUNT_REJECTS' parameters from {(local day, device, reason class, enterprise): n}."""
    keys = list(counts)
    return [DateArray([k[0] for k in keys]), IntArray([k[1] for k in keys]), TextArray([k[2] for k in keys]),
            IntArray([k[3] for k in keys]), IntArray([counts[k] for k in keys])]


def closed_days(fixes: Iterable[Fix], today: date) -> list[SqlArray]:
    """The (device, UTC day) pairs of fixes older than ``today``, as INVALIDATE_TRACK_DAYS' parameters;
    empty (nothing to run) for a batch of today's fixes, the usual case."""
    pairs = {(fix.device_id, day) for fix in fixes if (day := fix.fix_at.astimezone(UTC).date()) < today}
    if not pairs:
        return []
    return [IntArray([device for device, _ in pairs]), DateArray([day for _, day in pairs])]


def unique_fixes(fixes: Iterable[Fix]) -> list[Fix]:
    """First fix per (device, fix time), input order kept. A batch may repeat a resent position."""
    return split_same_second(fixes)[0]


def same_position(a: Fix, b: Fix) -> bool:
    """Whether two fixes of one device and second say the same (a resend or replay), not two fixes."""
    return (abs(a.lat - b.lat) < 1e-6 and abs(a.lng - b.lng) < 1e-6 and abs(a.speed_kmh - b.speed_kmh) < 0.05
            and a.direction_deg == b.direction_deg and a.alarm_flags == b.alarm_flags
            and a.status_flags == b.status_flags)


def split_same_second(fixes: Iterable[Fix]) -> tuple[list[Fix], list[Fix]]:
    """(first fix per device and second, input order kept; the later fixes of a second that say something
    else). The track keeps one fix a second (gps' key); a repeat saying the same is a resend and not counted."""
    first: dict[tuple[int, Any], Fix] = {}
    out: list[Fix] = []
    other: list[Fix] = []
    for fix in fixes:
        key = (fix.device_id, fix.fix_at)
        kept = first.get(key)
        if kept is None:
            first[key] = fix
            out.append(fix)
        elif not same_position(kept, fix):
            other.append(fix)
    return out, other


# The stored fixes of the (device, second) pairs a batch could not insert: a replay when they say the
# same, else a second fix of that second that the track does not keep (counted, logged).
STORED_AT = """SELECT g.device_id, g.fix_at, g.lat, g.lng, g.speed_kmh, g.direction_deg, g.alarm_flags, g.status_flags
FROM gps g JOIN unnest(%s::bigint[], %s::timestamptz[]) AS k(device_id, fix_at)
  ON g.device_id = k.device_id AND g.fix_at = k.fix_at"""


def newest_per_device(fixes: Iterable[Fix]) -> list[Fix]:
    """The newest fix of each device (first one wins a tie). One upsert may touch a row only once."""
    newest: dict[int, Fix] = {}
    for fix in fixes:
        current = newest.get(fix.device_id)
        if current is None or fix.fix_at > current.fix_at:
            newest[fix.device_id] = fix
    return list(newest.values())


def days_touched(fixes: Iterable[Fix]) -> set[date]:
    """UTC days of the fixes: the gps partitions a batch needs."""
    return {fix.fix_at.astimezone(UTC).date() for fix in fixes}


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


def copy_data(fixes: Sequence[Fix]) -> bytes:
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


def column_arrays(fixes: Sequence[Fix]) -> list[SqlArray]:
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
