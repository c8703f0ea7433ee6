"""SQL of the ``alarm`` table family. The streams' writes (new episodes, their ends, the open episodes
and the platform rules a restarted worker starts from) are at the end. The alarm API (api/routes/alarms.py): handling an alarm (confirm / ignore and its
record), the alarm reports of platform-spec §7 (distinct devices, sums per alarm key), the dashboard counts,
the alarm dashboard's figures (``dashboard_board``)
and the caller's notification settings (the unhandled count is a fleet figure: fleet_figures.py).

Every read takes a ``Scope`` (the tenant column is the alarm's enterprise). Alarm keys reach SQL only as
parameters; the API checks them against the catalogue first.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row

from fleet.alarm_catalog import rule_key
from fleet.platform_alarm_rules import RULE_COLUMNS
from warehouse.queries.scope import Scope

ACTIVE_SAFETY_TYPES = (5, 6, 7, 8)


def lock_alarm(conn: Connection[Any], scope: Scope, alarm_id: int) -> dict[str, Any] | None:
    """The alarm inside ``scope``, locked for handling; None when absent or outside."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    statement = sql.SQL(
        """SELECT id, enterprise_id, device_id, car_id, plate_number, type, key, level, alarm_flags, message_seq, state
           FROM alarm WHERE id = %s AND {} FOR UPDATE"""
    ).format(where)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(statement, [alarm_id, *params]).fetchone()


def handle(conn: Connection[Any], alarm: dict[str, Any], *, state: int, opinion: str | None, now: datetime,
           user_id: int | None, user_name: str | None, alarm_type: int, alarm_desc: str) -> int:
    """Sets the alarm's handling and writes its confirm record; the record's id."""
    conn.execute(
        """UPDATE alarm SET state = %s, opinion = %s, confirm_time = %s, confirm_user_id = %s, confirm_name = %s,
                  updated_at = %s WHERE id = %s""",
        (state, opinion, now, user_id, user_name, now, alarm["id"]),
    )
    row = conn.execute(
        """INSERT INTO alarm_confirm_record (alarm_id, message_seq, device_id, plate_number, enterprise_id,
               alarm_type, alarm_desc, state, opinion, confirm_time, confirm_user_id, confirm_name)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id""",
        (alarm["id"], alarm["message_seq"], alarm["device_id"], alarm["plate_number"], alarm["enterprise_id"],
         alarm_type, alarm_desc, state, opinion, now, user_id, user_name),
    ).fetchone()
    assert row is not None
    return int(row[0])


def set_record_command(conn: Connection[Any], record_id: int, command_id: int) -> None:
    conn.execute("UPDATE alarm_confirm_record SET command_id = %s WHERE id = %s", (command_id, record_id))


def _time_filter(since: datetime | None, until: datetime | None) -> tuple[sql.Composable, list[Any]]:
    parts: list[sql.Composable] = []
    params: list[Any] = []
    if since is not None:
        parts.append(sql.SQL(" AND start_time >= %s"))
        params.append(since)
    if until is not None:
        parts.append(sql.SQL(" AND start_time < %s"))
        params.append(until)
    return sql.Composed(parts), params


def distinct_count(conn: Connection[Any], scope: Scope, distinct: str, *, since: datetime | None,
                   until: datetime | None, keys: list[str]) -> int:
    """How many distinct ``distinct`` (device_id or car_id) raised an alarm in the window (of ``keys``
    when given: any of them)."""
    if distinct not in ("device_id", "car_id"):
        raise ValueError(distinct)
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    window, window_params = _time_filter(since, until)
    key_filter = sql.SQL(" AND key = ANY(%s)") if keys else sql.SQL("")
    statement = sql.SQL("SELECT count(DISTINCT {col}) FROM alarm WHERE {where}{window}{keys}").format(
        col=sql.Identifier(distinct), where=where, window=window, keys=key_filter)
    row = conn.execute(statement, [*params, *window_params, *([keys] if keys else [])]).fetchone()
    return int(row[0]) if row else 0


def counts_by_key(conn: Connection[Any], scope: Scope, *, since: datetime | None, until: datetime | None,
                  keys: list[str] | None = None) -> dict[str, int]:
    """{alarm key: alarms} in the window (only ``keys`` when given)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    window, window_params = _time_filter(since, until)
    key_filter = sql.SQL(" AND key = ANY(%s)") if keys else sql.SQL("")
    statement = sql.SQL("SELECT key, count(*) FROM alarm WHERE {where}{window}{keys} GROUP BY key").format(
        where=where, window=window, keys=key_filter)
    rows = conn.execute(statement, [*params, *window_params, *([keys] if keys else [])]).fetchall()
    return {str(key): int(count) for key, count in rows}


def dashboard_counts(conn: Connection[Any], scope: Scope, since_day: date) -> dict[str, Any]:
    """{alarmingVehicles, activeSafety, byKey: {key: count}} of the alarms of the UTC+8 days from
    ``since_day`` on, from the rollups of migration 0021 (alarm_day_count, alarm_device_latest): a month is
    at most days x keys rows per enterprise, whatever the number of alarms (vehicles: distinct devices)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    statement = sql.SQL(
        """SELECT key, sum(total) AS total, sum(total) FILTER (WHERE type BETWEEN 5 AND 8) AS safety
           FROM alarm_day_count WHERE {} AND day >= %s GROUP BY key HAVING sum(total) > 0"""
    ).format(where)
    rows = conn.execute(statement, [*params, since_day]).fetchall()
    vehicles = conn.execute(
        sql.SQL("SELECT count(DISTINCT device_id) FROM alarm_device_latest WHERE {} AND last_day >= %s").format(where),
        [*params, since_day]).fetchone()
    return {
        "alarmingVehicles": int(vehicles[0]) if vehicles else 0,
        "activeSafety": sum(int(r[2] or 0) for r in rows),
        "byKey": {str(r[0]): int(r[1]) for r in rows},
    }


BOARD_TOP = 10  # the alarm dashboard's top vehicles and enterprises


def _top(found: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The ``BOARD_TOP`` (count, id, ...) rows with most alarms, the smaller id first on a tie."""
    return sorted(found, key=lambda r: (-int(r[0]), int(r[1])))[:BOARD_TOP]


def dashboard_board(conn: Connection[Any], scope: Scope, since: datetime, *, by_hour: bool) -> dict[str, Any]:
    """The alarm dashboard's figures of the alarms raised since ``since`` (console-spec §1, platform-spec §2
    dashboard alarm): {total, unhandled, handled, byLevel: {level | None: n}, trend: [(bucket start, n)] per
    UTC+8 hour (``by_hour``) or day, topVehicles, topEnterprises (the ``BOARD_TOP`` with most alarms)}.
    ``total`` counts the same alarms as ``dashboard_counts``'s byKey (alarm_day_count is kept by trigger
    from these rows); ``unhandled`` here is of the range only (the bell's figure is fleet_figures.unhandled).
    One pass over the range's alarms (grouping sets): a month of a large fleet is read once, not once a figure."""
    where, params = scope.clause(sql.Identifier("a", "enterprise_id"))
    bucket = sql.SQL("date_trunc({}, a.start_time AT TIME ZONE 'Asia/Shanghai')").format(
        sql.Literal("hour" if by_hour else "day"))
    statement = sql.SQL(
        """SELECT CASE WHEN GROUPING(a.level) = 0 THEN 'level' WHEN GROUPING(a.car_id) = 0 THEN 'car'
                       WHEN GROUPING(a.enterprise_id) = 0 THEN 'enterprise' ELSE 'bucket' END AS kind,
                  a.level, a.car_id, a.enterprise_id, {bucket} AS bucket, count(*) AS n,
                  count(*) FILTER (WHERE a.state = 0) AS unhandled, max(a.plate_number) AS plate
           FROM alarm a WHERE {where} AND a.start_time >= %s
           GROUP BY GROUPING SETS ((a.level), (a.car_id), (a.enterprise_id), ({bucket}))"""
    ).format(bucket=bucket, where=where)
    rows = conn.execute(statement, [*params, since]).fetchall()
    of = {kind: [r for r in rows if r[0] == kind] for kind in ("level", "car", "enterprise", "bucket")}
    vehicles = _top([(r[5], r[2], r[6], r[7]) for r in of["car"] if r[2] is not None])
    enterprises = _top([(r[5], r[3], r[6]) for r in of["enterprise"]])
    names = dict(conn.execute("SELECT id, name FROM enterprise WHERE id = ANY(%s)",
                              [[int(r[1]) for r in enterprises]]).fetchall()) if enterprises else {}
    total = sum(int(r[5]) for r in of["level"])
    unhandled = sum(int(r[6]) for r in of["level"])
    return {
        "total": total, "unhandled": unhandled, "handled": total - unhandled,
        "byLevel": {(None if r[1] is None else int(r[1])): int(r[5]) for r in of["level"]},
        "trend": sorted((r[4], int(r[5])) for r in of["bucket"]),
        "topVehicles": [{"carId": int(car), "plateNumber": plate, "count": int(n), "unhandled": int(open_)}
                        for n, car, open_, plate in vehicles],
        "topEnterprises": [{"enterpriseId": int(ent), "enterpriseName": names.get(ent), "count": int(n),
                            "unhandled": int(open_)} for n, ent, open_ in enterprises],
    }

# --- the caller's notification settings (tables of migration 0019) -------------------------------------

_RULE_COLUMNS = ("disabled", "window_enable", "voice_enable", "voice", "start_hour", "end_hour")
SWITCH_COLUMNS = ("car_state_change_window_enable", "car_resp_cmd_window_enable", "upload_file_window_enable")
# The built-in rule of a key without a user's or an enterprise's rule (the columns' defaults, migration
# 0019): a window, no voice, all day. The console has the same default (features/alarm/api.ts).
DEFAULT_NOTIFY_RULE: dict[str, Any] = {"disabled": False, "window_enable": True, "voice_enable": False, "voice": None,
                                       "start_hour": 0, "end_hour": 24}

# A user's rules, then for the keys without one the enterprise's default rule (platform_alarm_notify_rule):
# the newest live row of the key among the user's enterprise and its ancestors, the nearest enterprise
# first (its path '/1/3/' lists the ancestors root first). An enterprise rule has no mute and no text.
_EFFECTIVE_RULES = """
WITH own AS (
    SELECT s.alarm_key, s.disabled, s.window_enable, s.voice_enable, s.voice, s.start_hour, s.end_hour,
           'user'::text AS source, s.id AS source_id, s.enterprise_id AS source_enterprise_id, s.updated_at
    FROM alarm_user_setting s WHERE s.user_id = %(user_id)s
), lineage AS (
    SELECT a.id::bigint AS id, a.depth
    FROM enterprise e, unnest(string_to_array(trim(BOTH '/' FROM e.path), '/')) WITH ORDINALITY AS a(id, depth)
    WHERE e.id = %(enterprise_id)s AND a.id <> ''
    UNION ALL
    SELECT %(enterprise_id)s, 2147483647  -- the enterprise itself, whatever its path says
), inherited AS (
    SELECT DISTINCT ON (r.alarm_key) r.alarm_key, false AS disabled, r.window_enable, r.voice_enable,
           NULL::text AS voice, r.start_hour, r.end_hour, 'enterprise'::text AS source, r.id AS source_id,
           r.enterprise_id AS source_enterprise_id, r.updated_at
    FROM platform_alarm_notify_rule r
    JOIN lineage l ON l.id = r.enterprise_id
    WHERE r.record_state = 1 AND NOT EXISTS (SELECT 1 FROM own o WHERE o.alarm_key = r.alarm_key)
    ORDER BY r.alarm_key, l.depth DESC, r.updated_at DESC, r.id DESC
)
SELECT * FROM own UNION ALL SELECT * FROM inherited ORDER BY alarm_key
"""


def effective_rules(conn: Connection[Any], user_id: int, enterprise_id: int,
                    keys: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """THE notification rule of each alarm key for a user (console-spec §3, §6): the user's own rule
    (``source`` "user"), else the enterprise's newest live ``platform_alarm_notify_rule`` of the key, from
    ``enterprise_id`` or else its nearest ancestor that has one ("enterprise"), else the built-in
    ``DEFAULT_NOTIFY_RULE`` ("default").

    Without ``keys``: the rule keys that have a user's or an enterprise's rule (any other key follows the
    default); with ``keys``: exactly those keys, alarm keys or rule keys, each resolved to the rule of its
    ``fleet.alarm_catalog.rule_key`` (a fence alarm ``fence:12:enter`` follows the rule of its kind,
    ``fence_enter``). Each rule: the ``_RULE_COLUMNS``, ``source``, ``source_id`` (the user-setting or
    enterprise rule row, None for the default), ``source_enterprise_id``, ``updated_at``, ``alarm_key``
    (the key of the rule) and, with ``keys``, ``rule_key`` (the same: the rule that applies).
    """
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(_EFFECTIVE_RULES, {"user_id": user_id, "enterprise_id": enterprise_id}).fetchall()
    found = {row["alarm_key"]: row for row in rows}
    if keys is None:
        return found
    default = {**DEFAULT_NOTIFY_RULE, "source": "default", "source_id": None, "source_enterprise_id": None,
               "updated_at": None}
    resolved = {key: rule_key(key) for key in keys}
    return {key: {**(found.get(rule) or {"alarm_key": rule, **default}), "rule_key": rule}
            for key, rule in resolved.items()}


def enterprise_rules(conn: Connection[Any], enterprise_id: int) -> dict[str, dict[str, Any]]:
    """The enterprise default rule of each rule key that has one for ``enterprise_id`` (its own newest live
    ``platform_alarm_notify_rule``, else its nearest ancestor's): ``effective_rules`` without a user."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(_EFFECTIVE_RULES, {"user_id": None, "enterprise_id": enterprise_id}).fetchall()
    return {row["alarm_key"]: row for row in rows}


def put_user_rule(conn: Connection[Any], user_id: int, enterprise_id: int, key: str, rule: dict[str, Any] | None) -> None:
    """Replaces the user's rule of ``key``; None removes it (the enterprise default applies again)."""
    if rule is None:
        conn.execute("DELETE FROM alarm_user_setting WHERE user_id = %s AND alarm_key = %s", (user_id, key))
        return
    conn.execute(
        """INSERT INTO alarm_user_setting (user_id, enterprise_id, alarm_key, disabled, window_enable, voice_enable,
               voice, start_hour, end_hour) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
           ON CONFLICT (user_id, alarm_key) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id,
               disabled = EXCLUDED.disabled, window_enable = EXCLUDED.window_enable,
               voice_enable = EXCLUDED.voice_enable, voice = EXCLUDED.voice, start_hour = EXCLUDED.start_hour,
               end_hour = EXCLUDED.end_hour, updated_at = now()""",
        (user_id, enterprise_id, key, *(rule[c] for c in _RULE_COLUMNS)),
    )


def enterprise_switches(conn: Connection[Any], enterprise_id: int) -> dict[str, bool]:
    """The enterprise's notification switches (every one on when never set)."""
    statement = sql.SQL("SELECT {} FROM enterprise_notify_setting WHERE enterprise_id = %s").format(
        sql.SQL(", ").join(map(sql.Identifier, SWITCH_COLUMNS)))
    row = conn.execute(statement, (enterprise_id,)).fetchone()
    return {c: True if row is None else bool(v) for c, v in zip(SWITCH_COLUMNS, row or (True,) * 3, strict=True)}


def put_enterprise_switches(conn: Connection[Any], enterprise_id: int, values: dict[str, bool]) -> None:
    current = enterprise_switches(conn, enterprise_id)
    current.update(values)
    conn.execute(
        """INSERT INTO enterprise_notify_setting (enterprise_id, car_state_change_window_enable,
               car_resp_cmd_window_enable, upload_file_window_enable) VALUES (%s, %s, %s, %s)
           ON CONFLICT (enterprise_id) DO UPDATE SET
               car_state_change_window_enable = EXCLUDED.car_state_change_window_enable,
               car_resp_cmd_window_enable = EXCLUDED.car_resp_cmd_window_enable,
               upload_file_window_enable = EXCLUDED.upload_file_window_enable, updated_at = now()""",
        (enterprise_id, *(current[c] for c in SWITCH_COLUMNS)),
    )



# The streams' alarm rows (streams/alarm_model.py builds the column arrays; the alarms step and the platform
# rules call these). Plate, driver and phone are copied from the car / device at insert time; enterprise and
# car are the uplink's when given, else the device row's. ``level``: the terminal's (ADAS/DSM), else the
# ``alarm_level`` of the alarm's rule key (``rule_key``, fleet.alarm_catalog.rule_key: a fence alarm's is
# its kind's) of the alarm's enterprise or its nearest ancestor (migration 0022), evaluated only for rows
# without one. ON CONFLICT (device_id, key, start_time) DO NOTHING: a replayed uplink adds
# nothing and returns nothing.
_INSERT_EPISODES = """
WITH src AS (
    SELECT * FROM unnest(%(device_id)s::bigint[], %(enterprise_id)s::bigint[], %(car_id)s::bigint[],
        %(type)s::smallint[], %(key)s::text[], %(level)s::smallint[], %(start_time)s::timestamptz[],
        %(end_time)s::timestamptz[], %(lat)s::float8[], %(lng)s::float8[], %(speed)s::real[],
        %(altitude)s::real[], %(alarm_flags)s::bigint[], %(message_seq)s::int[], %(warn_uuid)s::text[],
        %(alarm_no)s::text[], %(attachment_count)s::smallint[], %(backlog)s::boolean[], %(details)s::text[],
        %(rule_key)s::text[]) WITH ORDINALITY
      AS s(device_id, enterprise_id, car_id, type, key, level, start_time, end_time, lat, lng, speed, altitude,
           alarm_flags, message_seq, warn_uuid, alarm_no, attachment_count, backlog, details, rule_key, n)
), ins AS (
    INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, driver_id, driver_name, phone, type, key,
        level, start_time, end_time, lat, lng, speed, altitude, alarm_flags, message_seq, warn_uuid, alarm_no,
        attachment_count, backlog, details)
    SELECT COALESCE(s.enterprise_id, d.enterprise_id), s.device_id, c.id, c.plate_number, dr.id, dr.name,
        d.phone, s.type, s.key,
        -- no level from the terminal: the enterprise's (alarm_level; evaluated only then)
        COALESCE(s.level, (
            SELECT l.level
            FROM enterprise e
            CROSS JOIN LATERAL unnest(string_to_array(trim(BOTH '/' FROM e.path), '/'))
                WITH ORDINALITY AS lineage(id, depth)
            JOIN alarm_level l ON l.enterprise_id = lineage.id::bigint
            WHERE e.id = COALESCE(s.enterprise_id, d.enterprise_id) AND lineage.id <> ''
              AND l.alarm_key = s.rule_key AND l.record_state = 1
            ORDER BY lineage.depth DESC, l.updated_at DESC, l.id DESC
            LIMIT 1)),
        s.start_time, s.end_time, s.lat, s.lng, s.speed, s.altitude,
        s.alarm_flags, s.message_seq, s.warn_uuid, s.alarm_no::jsonb, s.attachment_count, s.backlog,
        COALESCE(s.details::jsonb, '{}'::jsonb)
    FROM src s
    JOIN device d ON d.id = s.device_id
    LEFT JOIN car c ON c.id = COALESCE(s.car_id, d.car_id)
    LEFT JOIN driver dr ON dr.id = c.driver_id
    -- ids in the episodes' order whatever join the planner picks: the rows come back (and are pushed to the
    -- console) in that order, an entry before the exit that followed it
    ORDER BY s.n
    ON CONFLICT (device_id, key, start_time) DO NOTHING
    RETURNING *
)
SELECT ins.*, e.path AS enterprise_path FROM ins JOIN enterprise e ON e.id = ins.enterprise_id
ORDER BY ins.id
"""

_END_EPISODES = """
UPDATE alarm SET end_time = %(end)s, updated_at = now()
WHERE device_id = %(device_id)s AND key = ANY(%(keys)s) AND end_time IS NULL AND start_time <= %(end)s
  AND (%(backlog)s::boolean IS NULL OR backlog = %(backlog)s)
"""


async def insert_episodes_async(conn: AsyncConnection[Any], columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Insert the rows given as one array per column (the ``%(name)s`` of the statement above); the NEW rows
    (``RETURNING *`` plus ``enterprise_path``), by id. Raises psycopg.IntegrityError for an unknown device."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_INSERT_EPISODES, columns)
        return list(await cur.fetchall())


async def end_episodes_async(conn: AsyncConnection[Any], device_id: int, keys: list[str], end: datetime,
                             backlog: bool | None) -> int:
    """Set ``end_time`` of the device's open rows of ``keys`` that started by ``end`` (``backlog``: only rows
    with that flag; None: all); how many were ended."""
    cur = await conn.execute(_END_EPISODES, {"device_id": device_id, "keys": keys, "end": end, "backlog": backlog})
    return cur.rowcount


async def open_terminal_alarms_async(conn: AsyncConnection[Any]) -> list[tuple[Any, ...]]:
    """(device_id, key, newest start_time) of the open live episodes of the terminal's alarm and video bits
    (types 1 and 2; one query on the partial index alarm_open)."""
    cur = await conn.execute(
        "SELECT device_id, key, max(start_time) FROM alarm WHERE end_time IS NULL AND NOT backlog"
        " AND type IN (1, 2) GROUP BY device_id, key")
    return list(await cur.fetchall())


async def open_alarm_keys_async(conn: AsyncConnection[Any], alarm_type: int) -> list[tuple[Any, ...]]:
    """(device_id, key) of the open live episodes of one alarm type."""
    cur = await conn.execute(
        "SELECT device_id, key FROM alarm WHERE end_time IS NULL AND NOT backlog AND type = %s", (alarm_type,))
    return list(await cur.fetchall())


async def live_platform_rules_async(conn: AsyncConnection[Any]) -> list[dict[str, Any]]:
    """Each enterprise's rule in effect (migration 0019: its newest live ``platform_alarm_rule``), as
    {enterprise_id, <the columns of fleet.platform_alarm_rules.RULE_COLUMNS>}."""
    statement = sql.SQL("SELECT DISTINCT ON (enterprise_id) enterprise_id, {} FROM platform_alarm_rule"
                        " WHERE record_state = 1 ORDER BY enterprise_id, updated_at DESC, id DESC").format(
        sql.SQL(", ").join(map(sql.Identifier, RULE_COLUMNS)))
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(statement)
        return list(await cur.fetchall())
