"""Which vehicle a GB/T 32960 / GB 17691 / HJ 1239 terminal speaks for (the GB gateway, gateway/gb/).

Those terminals carry no phone and no auth code: the frame header's VIN names the vehicle. A VIN is
accepted when a live car has it and a live, enabled device of one of the port's protocols is attached to
that car (``device.car_id``); the car's master device first when it qualifies. ``car.vin`` is unique per
enterprise only, so a VIN may name cars of several enterprises: every match is returned and the
gateway refuses an ambiguous VIN rather than guess a tenant (gateway/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection, Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

DISABLED_STATE = 5  # fleet.enums.DeviceState.DISABLED

_VEHICLE_TERMINALS = (
    "SELECT DISTINCT ON (c.id) d.id AS device_id, d.phone, d.protocol, d.protocol_version, c.id AS car_id, "
    "d.enterprise_id, c.vin "
    "FROM car c JOIN device d ON d.car_id = c.id AND d.record_state = 1 AND d.state <> %(disabled)s "
    "AND d.protocol = ANY(%(protocols)s) "
    "WHERE c.vin = %(vin)s AND c.record_state = 1 "
    "ORDER BY c.id, (d.id = c.master_device_id) DESC, d.id "
    "LIMIT 5"
)


# Many VINs at once (a burst of logins: gateway/lookup_batch.py), at most 5 cars per VIN.
_MANY_VEHICLE_TERMINALS = "SELECT t.* FROM unnest(%(vins)s::text[]) AS w(vin) CROSS JOIN LATERAL (ONE) t".replace(
    "ONE", _VEHICLE_TERMINALS.replace("WHERE c.vin = %(vin)s", "WHERE c.vin = w.vin"))


async def many_vehicle_terminals_async(conn: AsyncConnection[Any], vins: Sequence[str],
                                       protocols: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """For each of many distinct VINs, one row per live car with that VIN that has a live device of ``protocols``
    (its master device when that qualifies, else its lowest id): {device_id, phone, protocol, protocol_version,
    car_id, enterprise_id, vin}, at most 5 per VIN (more than one: the VIN is ambiguous), in one query:
    VIN -> its rows, for the VINs found."""
    found: dict[str, list[dict[str, Any]]] = {}
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_MANY_VEHICLE_TERMINALS, {"vins": list(vins), "protocols": list(protocols),
                                                    "disabled": DISABLED_STATE})
        for row in await cur.fetchall():
            found.setdefault(row["vin"], []).append(row)
    return found


# A GB/T 32960 inferior platform (migration 0061) relays the frames of its vehicles: a VIN it sends is looked up
# among the cars of its enterprise tree only (platform-spec §2, the gb32960 exchange's inferiorPlatform).
_TREE_VEHICLE_TERMINALS = _VEHICLE_TERMINALS.replace(
    "WHERE c.vin = %(vin)s AND c.record_state = 1 ",
    "WHERE c.vin = %(vin)s AND c.record_state = 1 AND c.enterprise_id IN (SELECT e.id FROM enterprise e "
    "JOIN enterprise o ON o.id = %(owner)s WHERE e.id = o.id OR (o.path <> '' AND e.path LIKE o.path || '%%')) ")


async def tree_vehicle_terminals_async(conn: AsyncConnection[Any], vin: str, protocols: Sequence[str],
                                       owner: int) -> list[dict[str, Any]]:
    """The rows of ``vin`` (as ``many_vehicle_terminals_async``) among the cars of enterprise ``owner``'s tree."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_TREE_VEHICLE_TERMINALS, {"vin": vin, "protocols": list(protocols),
                                                    "disabled": DISABLED_STATE, "owner": owner})
        return await cur.fetchall()


async def inferior_platform_async(conn: AsyncConnection[Any], username: str) -> dict[str, Any] | None:
    """The gb32960 inferior platform of ``username``: {id, enterprise_id, name, password, enabled, aes_key,
    aes_iv}, or None (a disabled one is returned so that its refused login is shown on its row)."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("SELECT id, enterprise_id, name, password, enabled, aes_key, aes_iv "
                          "FROM gb32960_inferior_platform WHERE username = %(username)s", {"username": username})
        return await cur.fetchone()


# -- inferior platforms' links (migration 0062, gateway/gb/inferior_links.py) ----------------------------------

# Counts are increments; a NULL state / since / vehicles / last_error means "nothing new": the row keeps its own.
_LINK_STATE = """
INSERT INTO gb32960_inferior_link_state AS s (platform_id, gateway_id, state, since, peer, last_frame_at, logins,
                                              frames, refused, vehicles, last_error, last_error_at, updated_at)
SELECT %(platform_id)s, %(gateway_id)s, COALESCE(%(state)s, 'offline'), COALESCE(%(since)s, now()), %(peer)s,
       %(last_frame_at)s, %(logins)s, %(frames)s, %(refused)s, COALESCE(%(vehicles)s, 0), %(last_error)s,
       %(last_error_at)s, now()
WHERE EXISTS (SELECT 1 FROM gb32960_inferior_platform WHERE id = %(platform_id)s)
ON CONFLICT (platform_id, gateway_id) DO UPDATE
   SET state = COALESCE(%(state)s, s.state), since = COALESCE(%(since)s, s.since),
       peer = COALESCE(EXCLUDED.peer, s.peer),
       last_frame_at = GREATEST(s.last_frame_at, EXCLUDED.last_frame_at),
       logins = s.logins + EXCLUDED.logins, frames = s.frames + EXCLUDED.frames,
       refused = s.refused + EXCLUDED.refused, vehicles = COALESCE(%(vehicles)s, s.vehicles),
       last_error = COALESCE(EXCLUDED.last_error, s.last_error),
       last_error_at = COALESCE(EXCLUDED.last_error_at, s.last_error_at), updated_at = now()"""

# link 'main': a GB platform has one connection; the writer never puts a 0x05's password in `decoded`
_LOG = """
INSERT INTO exchange_message (gb32960_inferior_platform_id, platform_kind, time, direction, link, msg_id, decoded,
                              raw_hex)
SELECT %(platform_id)s, 'gb32960_inferior', %(time)s, %(direction)s, 'main', %(msg_id)s, %(decoded)s, %(raw_hex)s
WHERE EXISTS (SELECT 1 FROM gb32960_inferior_platform WHERE id = %(platform_id)s)"""


_UNKNOWN_LOGIN = """
INSERT INTO gb32960_unknown_login AS u (username, address, gateway_id, first_at, last_at, attempts)
VALUES (%(username)s, %(address)s, %(gateway_id)s, %(first_at)s, %(last_at)s, %(attempts)s)
ON CONFLICT (username, address) DO UPDATE SET
       gateway_id = EXCLUDED.gateway_id, first_at = LEAST(u.first_at, EXCLUDED.first_at),
       last_at = GREATEST(u.last_at, EXCLUDED.last_at), attempts = u.attempts + EXCLUDED.attempts"""
# the latest rows kept: attempts from ever new addresses or usernames cannot grow the table without bound
UNKNOWN_LOGINS_KEPT = 1000
_UNKNOWN_TRIM = """
DELETE FROM gb32960_unknown_login WHERE (username, address) IN (
    SELECT username, address FROM gb32960_unknown_login ORDER BY last_at DESC OFFSET %(kept)s)"""


async def save_inferior_links_async(conn: AsyncConnection[Any], states: Sequence[dict[str, Any]],
                                    messages: Sequence[dict[str, Any]], unknown: Sequence[dict[str, Any]] = ()) -> None:
    """One gateway's link rows (keys of ``gb32960_inferior_link_state``), logged frames (platform_id, time,
    direction, msg_id, decoded, raw_hex) and the attempts of unknown usernames (keys of ``gb32960_unknown_login``,
    added up; the ``UNKNOWN_LOGINS_KEPT`` latest kept), in one transaction; a platform deleted meanwhile is
    skipped."""
    async with conn.transaction(), conn.cursor() as cur:
        if states:
            await cur.executemany(_LINK_STATE, states)
        if messages:
            await cur.executemany(_LOG, [{**m, "decoded": Jsonb(m["decoded"])} for m in messages])
        if unknown:
            await cur.executemany(_UNKNOWN_LOGIN, unknown)
            await cur.execute(_UNKNOWN_TRIM, {"kept": UNKNOWN_LOGINS_KEPT})


def unknown_logins(conn: Connection[Any], limit: int) -> list[dict[str, Any]]:
    """The latest ``limit`` unknown usernames' logins (platform-wide: no enterprise owns them), newest first."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            'SELECT username, address, gateway_id AS "gatewayId", first_at AS "firstAt", last_at AS "lastAt",'
            " attempts FROM gb32960_unknown_login ORDER BY last_at DESC, username, address LIMIT %s",
            (limit,)).fetchall()


async def gateway_links_offline_async(conn: AsyncConnection[Any], gateway_id: str) -> None:
    """At a gateway's start: the sessions its previous run left online ended with it."""
    await conn.execute("UPDATE gb32960_inferior_link_state SET state = 'offline', since = now(), updated_at = now() "
                       "WHERE gateway_id = %(gateway_id)s AND state = 'online'", {"gateway_id": gateway_id})
