"""Users, their permissions, refresh tokens and login failures (tables of 0001 and 0002)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row


@dataclass(frozen=True)
class UserAccount:
    user_id: int
    user_name: str
    password_hash: str
    enterprise_id: int
    enterprise_path: str
    active: bool  # user and enterprise both enabled


_ACCOUNT_SQL = """
SELECT u.id, u.user_name, u.password_hash, u.enterprise_id, e.path,
       (u.state = 1 AND e.state = 1) AS active
FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id
"""


def _account(row: tuple[Any, ...] | None) -> UserAccount | None:
    if row is None:
        return None
    return UserAccount(int(row[0]), str(row[1]), str(row[2]), int(row[3]), str(row[4]), bool(row[5]))


def account_by_user_name(conn: Connection[Any], user_name: str) -> UserAccount | None:
    with conn.cursor() as cur:
        cur.execute(_ACCOUNT_SQL + " WHERE u.user_name = %s", (user_name,))
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
            JOIN role r ON r.id = ur.role_id AND r.state = 1
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
            "SELECT user_id, family, expires_at, used_at, revoked_at FROM api_refresh_token"
            " WHERE token_hash = %s FOR UPDATE",
            (token_hash,),
        )
        row = cur.fetchone()
        if row is None or row["revoked_at"] is not None or row["expires_at"] <= now:
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


# --- login failures -------------------------------------------------------------------------


def login_failure_state(
    conn: Connection[Any], user_name: str, *, for_update: bool = False
) -> tuple[int, datetime, datetime | None] | None:
    """(failures, first_failed_at, locked_until) for the name, or None."""
    query = "SELECT failures, first_failed_at, locked_until FROM api_login_failure WHERE user_name = %s"
    if for_update:
        query = "SELECT failures, first_failed_at, locked_until FROM api_login_failure WHERE user_name = %s FOR UPDATE"
    with conn.cursor() as cur:
        cur.execute(query, (user_name,))
        row = cur.fetchone()
        return None if row is None else (int(row[0]), row[1], row[2])


def lock_login_failure_row(conn: Connection[Any], user_name: str, now: datetime) -> None:
    """Creates the name's row if missing, so concurrent failures serialise on its row lock."""
    conn.execute(
        "INSERT INTO api_login_failure (user_name, failures, first_failed_at) VALUES (%s, 0, %s)"
        " ON CONFLICT (user_name) DO NOTHING",
        (user_name, now),
    )


def save_login_failure_state(
    conn: Connection[Any], user_name: str, failures: int, first_failed_at: datetime, locked_until: datetime | None
) -> None:
    conn.execute(
        "UPDATE api_login_failure SET failures = %s, first_failed_at = %s, locked_until = %s WHERE user_name = %s",
        (failures, first_failed_at, locked_until, user_name),
    )


def clear_login_failures(conn: Connection[Any], user_name: str) -> None:
    conn.execute("DELETE FROM api_login_failure WHERE user_name = %s", (user_name,))
