"""What the operator console needs about its user and the fleet: the user's record and profile,
password change, and the enterprise counters of the dashboard (platform-spec §7 enterprise reports).

User functions take the caller's own id (the API never lets one user read or change another here).
Fleet counters take a ``Scope``; a car counts in the scope of the car's enterprise. The figures shown
on several screens (online, alarming, today's mileage and alarms, unhandled) are defined once, in
``warehouse.queries.fleet_figures``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from fleet.enums import DeviceState
from warehouse.queries.scope import Scope

# Keys of app_user.profile the console edits (the rest of the jsonb is kept as it is).
PROFILE_KEYS = ("profile", "country", "province", "city", "address")


def user_record(conn: Connection[Any], user_id: int) -> dict[str, Any] | None:
    """The user with the enterprise name; None when missing or the user or enterprise is disabled."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT u.id, u.user_name AS "userName", u.name, u.nick_name AS "nickName",
                      u.enterprise_id AS "enterpriseId", e.name AS "enterpriseName",
                      e.short_name AS "enterpriseShortName", u.email, u.phone, u.avatar,
                      u.profile AS "profileData"
               FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id
               WHERE u.id = %s AND u.state = 1 AND u.record_state = 1 AND e.state = 1""",
            (user_id,),
        )
        return cur.fetchone()


def update_profile(conn: Connection[Any], user_id: int, columns: dict[str, str], profile: dict[str, str]) -> None:
    """Sets the given columns (whitelisted: email, nick_name, phone) and merges ``profile`` into the jsonb."""
    allowed = {"email", "nick_name", "phone"}
    unknown = set(columns) - allowed
    if unknown:
        raise ValueError(f"not an editable user column: {sorted(unknown)}")
    assignments: list[sql.Composable] = [sql.SQL("{} = %s").format(sql.Identifier(name)) for name in columns]
    assignments.append(sql.SQL("profile = profile || %s"))
    query = sql.SQL("UPDATE app_user SET {} WHERE id = %s").format(sql.SQL(", ").join(assignments))
    conn.execute(query, [*columns.values(), Jsonb(profile), user_id])


def password_hash_of(conn: Connection[Any], user_id: int) -> str | None:
    row = conn.execute("SELECT password_hash FROM app_user WHERE id = %s", (user_id,)).fetchone()
    return None if row is None else str(row[0])


def set_password(conn: Connection[Any], user_id: int, password_hash: str, now: datetime) -> int:
    """Stores the new hash and revokes every live refresh token of the user; returns how many."""
    conn.execute(
        "UPDATE app_user SET password_hash = %s, password_changed_at = %s WHERE id = %s",
        (password_hash, now, user_id),
    )
    cur = conn.execute(
        "UPDATE api_refresh_token SET revoked_at = %s WHERE user_id = %s AND revoked_at IS NULL",
        (now, user_id),
    )
    return cur.rowcount


# --- enterprise counters ------------------------------------------------------------------------


def cars_online_since(conn: Connection[Any], scope: Scope, since: datetime) -> int:
    """Cars of the fleet (``fleet_figures``: the live cars) whose master device is online now or came
    online at or after ``since``."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = (
        sql.SQL(
            """SELECT count(*) FROM car c JOIN device d ON d.id = c.master_device_id
               WHERE c.record_state = 1 AND (d.state = %s OR d.online_time >= %s
                      OR EXISTS (SELECT 1 FROM device_online_log o
                                 WHERE o.device_id = d.id AND o.state = 1 AND o.at >= %s))
                 AND """
        )
        + where
    )
    row = conn.execute(query, [int(DeviceState.ONLINE), since, since, *params]).fetchone()
    return 0 if row is None else int(row[0])
