"""Users, their permissions, refresh tokens, login throttling and audit, session state (0001, 0002, 0004)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection, Connection
from psycopg.rows import dict_row


@dataclass(frozen=True)
class UserAccount:
    user_id: int
    user_name: str
    password_hash: str
    enterprise_id: int
    enterprise_path: str
    active: bool  # user enabled and live, its enterprise and every ancestor enabled and live
    session_epoch: int = 0  # bumped by triggers when the user's sessions must end (0004)


# Active: the user and every enterprise from the root down to the user's own are enabled and
# live (disabling an enterprise disables its whole subtree; migration 0009). Same test in session_state.
_ACCOUNT_SQL = """
SELECT u.id, u.user_name, u.password_hash, u.enterprise_id, e.path,
       (u.state = 1 AND u.record_state = 1 AND NOT EXISTS (
           SELECT 1 FROM enterprise a WHERE a.path <> '' AND starts_with(e.path, a.path)
           AND (a.state <> 1 OR a.record_state <> 1))) AS active,
       u.session_epoch
FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id
"""


def _account(row: tuple[Any, ...] | None) -> UserAccount | None:
    if row is None:
        return None
    return UserAccount(int(row[0]), str(row[1]), str(row[2]), int(row[3]), str(row[4]), bool(row[5]), int(row[6]))


def account_by_user_name(conn: Connection[Any], user_name: str) -> UserAccount | None:
    with conn.cursor() as cur:
        cur.execute(_ACCOUNT_SQL + " WHERE u.user_name = %s AND u.record_state = 1", (user_name,))
        return _account(cur.fetchone())


def account_by_id(conn: Connection[Any], user_id: int) -> UserAccount | None:
    with conn.cursor() as cur:
        cur.execute(_ACCOUNT_SQL + " WHERE u.id = %s", (user_id,))
        return _account(cur.fetchone())


def permissions_of(conn: Connection[Any], user_id: int) -> dict[str, set[str]]:
    """Union of the actions granted by the user's enabled roles, per permission code."""
    with conn.cursor() as cur:
        cur.execute(
            """
            SELECT rp.permission_code, rp.actions
            FROM user_role ur
            JOIN role r ON r.id = ur.role_id AND r.state = 1 AND r.record_state = 1
            JOIN role_permission rp ON rp.role_id = r.id
            WHERE ur.user_id = %s
            """,
            (user_id,),
        )
        granted: dict[str, set[str]] = {}
        for code, actions in cur.fetchall():
            granted.setdefault(code, set()).update(actions or [])
        return granted


# --- refresh tokens -------------------------------------------------------------------------


def store_refresh_token(
    conn: Connection[Any], token_hash: str, user_id: int, family: str, expires_at: datetime
) -> None:
    conn.execute(
        "INSERT INTO api_refresh_token (token_hash, user_id, family, expires_at) VALUES (%s, %s, %s, %s)",
        (token_hash, user_id, family, expires_at),
    )


def consume_refresh_token(conn: Connection[Any], token_hash: str, now: datetime) -> tuple[int, str] | None:
    """Marks an unused, unexpired, unrevoked token used; returns (user_id, family), else None.

    Presenting an already-used token revokes its whole family: either the client replayed an old
    token or someone stole it, and in both cases the chain is no longer trustworthy.
    """
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "SELECT t.user_id, t.family, t.expires_at, t.used_at, t.revoked_at,"
            " t.created_at < u.password_changed_at AS before_password_change"
            " FROM api_refresh_token t JOIN app_user u ON u.id = t.user_id"
            " WHERE t.token_hash = %s FOR UPDATE OF t",
            (token_hash,),
        )
        row = cur.fetchone()
        if row is None or row["revoked_at"] is not None or row["expires_at"] <= now:
            return None
        if row["before_password_change"]:  # the password changed since (also in SQL, by an admin)
            return None
        if row["used_at"] is not None:
            cur.execute(
                "UPDATE api_refresh_token SET revoked_at = %s WHERE family = %s AND revoked_at IS NULL",
                (now, row["family"]),
            )
            return None
        cur.execute("UPDATE api_refresh_token SET used_at = %s WHERE token_hash = %s", (now, token_hash))
        cur.execute("DELETE FROM api_refresh_token WHERE expires_at < %s", (now,))
        return int(row["user_id"]), str(row["family"])


# --- login throttling, audit, known addresses (0004) --------------------------------------------


def lock_throttle_row(
    conn: Connection[Any], key: str, now: datetime, expires_at: datetime
) -> tuple[int, datetime, datetime | None, int]:
    """Creates the key's row if missing and locks it until the transaction ends; returns
    (failures, window_start, blocked_until, refused). Take several keys in sorted order only."""
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO api_login_throttle AS t (key, failures, window_start, expires_at, refused)"
            " VALUES (%s, 0, %s, %s, 0) ON CONFLICT (key) DO UPDATE SET key = t.key"
            " RETURNING failures, window_start, blocked_until, refused",
            (key, now, expires_at),
        )
        row = cur.fetchone()
        assert row is not None
        return int(row[0]), row[1], row[2], int(row[3])


def save_throttle_row(
    conn: Connection[Any], key: str, failures: int, window_start: datetime, blocked_until: datetime | None,
    refused: int, expires_at: datetime,
) -> None:
    conn.execute(
        "UPDATE api_login_throttle SET failures = %s, window_start = %s, blocked_until = %s, refused = %s,"
        " expires_at = %s WHERE key = %s",
        (failures, window_start, blocked_until, refused, expires_at, key),
    )


def delete_throttle_row(conn: Connection[Any], key: str) -> None:
    conn.execute("DELETE FROM api_login_throttle WHERE key = %s", (key,))


def sweep_login_state(conn: Connection[Any], now: datetime, audit_before: datetime) -> None:
    """Drops throttle rows past their expiry and audit rows older than ``audit_before``."""
    conn.execute("DELETE FROM api_login_throttle WHERE expires_at < %s", (now,))
    conn.execute("DELETE FROM api_login_audit WHERE attempted_at < %s", (audit_before,))


def is_known_address(conn: Connection[Any], user_id: int, address: str) -> bool:
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM api_login_known_address WHERE user_id = %s AND address = %s", (user_id, address))
        return cur.fetchone() is not None


def remember_address(conn: Connection[Any], user_id: int, address: str, now: datetime) -> None:
    conn.execute(
        "INSERT INTO api_login_known_address (user_id, address, last_login_at) VALUES (%s, %s, %s)"
        " ON CONFLICT (user_id, address) DO UPDATE SET last_login_at = EXCLUDED.last_login_at",
        (user_id, address, now),
    )


def audit_login(conn: Connection[Any], now: datetime, user_name: str, address: str, reason: str) -> None:
    conn.execute(
        "INSERT INTO api_login_audit (attempted_at, user_name, address, reason) VALUES (%s, %s, %s, %s)",
        (now, user_name[:128], address[:64], reason),
    )


# --- session state (revocation) -----------------------------------------------------------------


# A session is active while its user and every enterprise above it are enabled and not deleted.
_SESSION_COLUMNS = (
    "u.session_epoch, (u.state = 1 AND u.record_state = 1 AND NOT EXISTS ("
    " SELECT 1 FROM enterprise a WHERE a.path <> '' AND starts_with(e.path, a.path)"
    " AND (a.state <> 1 OR a.record_state <> 1)))"
    " FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id"
)
_SESSION_STATE = "SELECT " + _SESSION_COLUMNS + " WHERE u.id = %s"
_SESSION_STATES = "SELECT u.id, " + _SESSION_COLUMNS + " WHERE u.id = ANY(%s)"


def session_state(conn: Connection[Any], user_id: int) -> tuple[int, bool] | None:
    """(session_epoch, active) of the user, or None when the user no longer exists."""
    row = conn.execute(_SESSION_STATE, (user_id,)).fetchone()
    return None if row is None else (int(row[0]), bool(row[1]))


async def session_states_async(conn: AsyncConnection[Any], user_ids: list[int]) -> dict[int, tuple[int, bool]]:
    """``session_state`` of many users for an asyncio service (the media server closes the viewers
    and talk sockets of revoked sessions): user id -> (session_epoch, active); missing users are absent."""
    rows = await (await conn.execute(_SESSION_STATES, (user_ids,))).fetchall()
    return {int(uid): (int(epoch), bool(active)) for uid, epoch, active in rows}
