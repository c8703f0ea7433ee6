"""SQL of the streams' fence step (streams/fences.py): the platform fences (business type 1) and their
bindings as the check needs them, the fence names the terminal's own area alarms carry, the per-vehicle
fence state (``fence_vehicle_state``, migration 0040) and the correction of an interpolated crossing by
the backlog that fills its gap. The alarm rows themselves go through warehouse/queries/alarms.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

PLATFORM = 1  # fence.business_type: checked by the platform

# A cheap fingerprint of what the check is built from: any insert, edit or delete of a fence, and any
# binding made or removed, changes it (count and newest time of each table).
_VERSION = """
SELECT (SELECT count(*) FROM fence), (SELECT max(updated_at) FROM fence),
       (SELECT count(*) FROM fence_binding), (SELECT max(created_at) FROM fence_binding)
"""


async def version_async(conn: AsyncConnection[Any]) -> tuple[Any, ...]:
    """The fingerprint of fences and bindings (changes whenever the check must be rebuilt)."""
    cur = await conn.execute(_VERSION)
    row = await cur.fetchone()
    return tuple(row) if row is not None else ()


async def platform_fences_async(conn: AsyncConnection[Any]) -> list[dict[str, Any]]:
    """Every platform fence (business type 1) with the columns fleet.geofence.stored.fence_from_row reads."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "SELECT id, enterprise_id, name, fence_type, shape, geometry, attributes, start_time, end_time,"
            " daily_start, daily_end, speed_limit, overspeed_duration, night_speed_limit, stay_limit"
            " FROM fence WHERE business_type = %s ORDER BY id", (PLATFORM,))
        return list(await cur.fetchall())


async def platform_bindings_async(conn: AsyncConnection[Any]) -> list[tuple[int, int]]:
    """(device id, fence id) of every device of a car bound to a platform fence."""
    cur = await conn.execute(
        "SELECT d.id, b.fence_id FROM fence_binding b JOIN fence f ON f.id = b.fence_id AND f.business_type = %s"
        " JOIN device d ON d.car_id = b.car_id", (PLATFORM,))
    return [(int(d), int(f)) for d, f in await cur.fetchall()]


async def fence_names_async(conn: AsyncConnection[Any], fence_ids: list[int]) -> dict[int, str]:
    """{fence id: name} of the given ids that exist (a terminal's area id on the wire is the fence's id)."""
    if not fence_ids:
        return {}
    cur = await conn.execute("SELECT id, name FROM fence WHERE id = ANY(%s)", (fence_ids,))
    return {int(i): str(n) for i, n in await cur.fetchall()}


async def vehicle_states_async(conn: AsyncConnection[Any], device_ids: list[int]) -> list[tuple[int, Any]]:
    """(device id, state JSON) of the kept states of the given devices."""
    if not device_ids:
        return []
    cur = await conn.execute("SELECT device_id, state FROM fence_vehicle_state WHERE device_id = ANY(%s)",
                             (device_ids,))
    return [(int(d), s) for d, s in await cur.fetchall()]


# A state only moves forward: a worker replaying an older batch (after a crash) never overwrites the
# newer state another batch committed (fixed_at is the newest fix the state has seen). A vehicle holding no
# fence pair (most of a fleet) comes as its newest fix and its latest gap's JSON (or NULL) with state NULL,
# and its JSON is built here: float8 -> text -> jsonb keeps every digit (fleet.geofence.VehicleState.to_json's
# layout).
_SAVE_STATES = """
INSERT INTO fence_vehicle_state (device_id, state, fixed_at, updated_at)
SELECT d, COALESCE(s::jsonb, jsonb_build_object('last_at', t::text::jsonb, 'lng', x::text::jsonb,
                                                'lat', y::text::jsonb, 'fences', '{}'::jsonb)
                             || CASE WHEN g IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('gap', g::jsonb) END),
       to_timestamp(t), now()
FROM unnest(%s::bigint[], %s::text[], %s::float8[], %s::float8[], %s::float8[], %s::text[]) AS u(d, s, t, x, y, g)
ON CONFLICT (device_id) DO UPDATE SET state = EXCLUDED.state, fixed_at = EXCLUDED.fixed_at, updated_at = now()
WHERE fence_vehicle_state.fixed_at <= EXCLUDED.fixed_at
"""


async def save_vehicle_states_async(conn: AsyncConnection[Any], device_ids: list[int], states: list[str | None],
                                    last_at: list[float], lngs: list[float], lats: list[float],
                                    gaps: list[str | None]) -> None:
    """Upsert the devices' states, one statement: the JSON text of each, or None for a state holding no
    pair, given as its newest fix (``last_at`` epoch seconds, ``lngs``, ``lats``) and its gap's JSON (None:
    none); an older fix time never wins."""
    if device_ids:
        await conn.execute(_SAVE_STATES, (device_ids, states, last_at, lngs, lats, gaps))


# A backlog crossing (0x0704) refines the crossing the live chain interpolated across the gap it fills:
# the row moves to the crossing's own time and place (unless a row of that key already starts there).
_REFINE = """
UPDATE alarm a SET start_time = %(start)s, end_time = %(end)s, lat = %(lat)s, lng = %(lng)s,
    details = a.details || jsonb_build_object('interpolatedAt', %(was)s::timestamptz), updated_at = now()
WHERE a.device_id = %(device_id)s AND a.key = %(key)s AND a.start_time = %(was)s
  AND NOT EXISTS (SELECT 1 FROM alarm b WHERE b.device_id = %(device_id)s AND b.key = %(key)s
                  AND b.start_time = %(start)s)
"""


async def refine_crossing_async(conn: AsyncConnection[Any], *, device_id: int, key: str, was: datetime,
                                start: datetime, end: datetime | None, lat: float, lng: float) -> int:
    """Move the interpolated row (device, key, ``was``) to the backlog's crossing; rows changed (0: none)."""
    cur = await conn.execute(_REFINE, {"device_id": device_id, "key": key, "was": was, "start": start,
                                       "end": end, "lat": lat, "lng": lng})
    return cur.rowcount
