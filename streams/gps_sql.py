"""SQL and parameter building for the positions sink. Pure: no connection here.

Both statements are fixed text taking one array per column (``unnest``), so a batch of any size is
one round trip with no SQL assembled from data. Idempotency lives in the SQL:

- ``gps``: ON CONFLICT (device_id, fix_at) DO NOTHING: a replayed or resent position adds nothing.
- ``device_last``: upsert guarded by ``WHERE device_last.fix_at < EXCLUDED.fix_at``: an older
  (replayed, backlog) fix never replaces a newer one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, date
from typing import Any

from streams.messages import Fix

COLUMNS = (
    "device_id", "fix_at", "car_id", "enterprise_id", "lng", "lat", "altitude_m", "speed_kmh",
    "direction_deg", "mileage_km", "fuel_l", "alarm_flags", "status_flags", "extras", "received_at",
)

_UNNEST = """
FROM unnest(%s::bigint[], %s::timestamptz[], %s::bigint[], %s::bigint[], %s::float8[], %s::float8[],
            %s::real[], %s::real[], %s::smallint[], %s::float8[], %s::real[], %s::bigint[], %s::bigint[],
            %s::text[], %s::timestamptz[])
  AS t(device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg,
       mileage_km, fuel_l, alarm_flags, status_flags, extras, received_at)
"""

_SELECT = """
SELECT device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh, direction_deg,
       mileage_km, fuel_l, alarm_flags, status_flags, extras::jsonb, received_at
"""

_INSERT_INTO = """(device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,
 direction_deg, mileage_km, fuel_l, alarm_flags, status_flags, extras, received_at)"""

INSERT_GPS = "INSERT INTO gps " + _INSERT_INTO + _SELECT + _UNNEST + "ON CONFLICT (device_id, fix_at) DO NOTHING"

UPSERT_DEVICE_LAST = (
    "INSERT INTO device_last " + _INSERT_INTO + _SELECT + _UNNEST
    + """ON CONFLICT (device_id) DO UPDATE SET
  car_id = EXCLUDED.car_id, enterprise_id = EXCLUDED.enterprise_id, fix_at = EXCLUDED.fix_at,
  lng = EXCLUDED.lng, lat = EXCLUDED.lat, altitude_m = EXCLUDED.altitude_m,
  speed_kmh = EXCLUDED.speed_kmh, direction_deg = EXCLUDED.direction_deg,
  mileage_km = EXCLUDED.mileage_km, fuel_l = EXCLUDED.fuel_l, alarm_flags = EXCLUDED.alarm_flags,
  status_flags = EXCLUDED.status_flags, extras = EXCLUDED.extras, received_at = EXCLUDED.received_at
WHERE device_last.fix_at < EXCLUDED.fix_at"""
)


def unique_fixes(fixes: Iterable[Fix]) -> list[Fix]:
    """First fix per (device, fix time), input order kept. A batch may repeat a resent position."""
    seen: set[tuple[int, Any]] = set()
    out: list[Fix] = []
    for fix in fixes:
        key = (fix.device_id, fix.fix_at)
        if key not in seen:
            seen.add(key)
            out.append(fix)
    return out


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


def column_arrays(fixes: Sequence[Fix]) -> list[list[Any]]:
    """One list per column of COLUMNS, the parameters of INSERT_GPS and UPSERT_DEVICE_LAST."""
    return [
        [f.device_id for f in fixes],
        [f.fix_at for f in fixes],
        [f.car_id for f in fixes],
        [f.enterprise_id for f in fixes],
        [f.lng for f in fixes],
        [f.lat for f in fixes],
        [f.altitude_m for f in fixes],
        [f.speed_kmh for f in fixes],
        [f.direction_deg for f in fixes],
        [f.mileage_km for f in fixes],
        [f.fuel_l for f in fixes],
        [f.alarm_flags for f in fixes],
        [f.status_flags for f in fixes],
        [json.dumps(f.extras, separators=(",", ":"), sort_keys=True) for f in fixes],
        [f.received_at for f in fixes],
    ]
