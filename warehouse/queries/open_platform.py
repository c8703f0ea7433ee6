"""Open platform apps (migration 0012): look-ups for the client_credentials grant, the app's session
state for its tokens, the per-minute call counter and a new secret."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import Connection


@dataclass(frozen=True)
class OpenApp:
    app_id: int
    name: str
    app_key: str
    secret_hash: str
    active: bool  # enabled, live, and every enterprise from the root down to its own enabled
    enterprise_id: int
    enterprise_path: str
    apis: tuple[str, ...]
    session_epoch: int


# An app is active when enabled, live, and every enterprise from the root down to its own is enabled and live.


def app_by_key(conn: Connection[Any], app_key: str) -> OpenApp | None:
    """The live app with this key (disabled ones too, ``active`` says), or None."""
    row = conn.execute(
        "SELECT a.id, a.name, a.app_key, a.secret_hash,"
        " (a.state = 1 AND a.record_state = 1 AND NOT EXISTS ("
        " SELECT 1 FROM enterprise x WHERE x.path <> '' AND starts_with(e.path, x.path)"
        " AND (x.state <> 1 OR x.record_state <> 1))),"
        " a.enterprise_id, e.path, a.apis,"
        " a.session_epoch FROM open_app a JOIN enterprise e ON e.id = a.enterprise_id"
        " WHERE a.app_key = %s AND a.record_state = 1",
        (app_key,),
    ).fetchone()
    if row is None:
        return None
    return OpenApp(int(row[0]), row[1], row[2], row[3], bool(row[4]), int(row[5]), row[6],
                   tuple(x for x in (row[7] or "").split(",") if x), int(row[8]))


def app_session_state(conn: Connection[Any], app_id: int) -> tuple[int, bool] | None:
    """(session_epoch, active) of the app, or None when it no longer exists."""
    row = conn.execute(
        "SELECT a.session_epoch,"
        " (a.state = 1 AND a.record_state = 1 AND NOT EXISTS ("
        " SELECT 1 FROM enterprise x WHERE x.path <> '' AND starts_with(e.path, x.path)"
        " AND (x.state <> 1 OR x.record_state <> 1)))"
        " FROM open_app a JOIN enterprise e ON e.id = a.enterprise_id"
        " WHERE a.id = %s",
        (app_id,),
    ).fetchone()
    return None if row is None else (int(row[0]), bool(row[1]))


def mark_token_issued(conn: Connection[Any], app_id: int) -> None:
    conn.execute("UPDATE open_app SET last_token_at = now() WHERE id = %s", (app_id,))


def count_call(conn: Connection[Any], app_id: int) -> tuple[int, int, float]:
    """Counts one call in the app's current minute (a fixed window shared by every process):
    (calls this minute including this one, the app's limit per minute, seconds left in the window)."""
    row = conn.execute(
        "WITH hit AS ("
        " INSERT INTO open_app_rate AS r (app_id, window_start, calls)"
        " VALUES (%s, date_trunc('minute', now()), 1)"
        " ON CONFLICT (app_id) DO UPDATE SET"
        "  calls = CASE WHEN r.window_start = EXCLUDED.window_start THEN r.calls + 1 ELSE 1 END,"
        "  window_start = EXCLUDED.window_start"
        " RETURNING calls, window_start)"
        " SELECT hit.calls, a.rate_limit_per_min,"
        "  extract(epoch FROM hit.window_start + interval '1 minute' - now())::float8"
        " FROM hit, open_app a WHERE a.id = %s",
        (app_id, app_id),
    ).fetchone()
    if row is None:  # the app row is gone: nothing to count against
        return 0, 0, 0.0
    return int(row[0]), int(row[1]), float(row[2])


def calls_this_minute(conn: Connection[Any], app_ids: list[int]) -> dict[int, int]:
    """Calls counted in the current minute per app (absent: none)."""
    rows = conn.execute(
        "SELECT app_id, calls FROM open_app_rate WHERE app_id = ANY(%s) AND window_start = date_trunc('minute', now())",
        (app_ids,),
    ).fetchall()
    return {int(a): int(c) for a, c in rows}


def set_secret_hash(conn: Connection[Any], app_id: int, secret_hash: str) -> None:
    conn.execute("UPDATE open_app SET secret_hash = %s, updated_at = now() WHERE id = %s", (secret_hash, app_id))


def count_token_request(conn: Connection[Any], key: str) -> tuple[int, float]:
    """Counts one token request on ``key`` in the current minute (fixed window, shared by every
    process): (requests this minute including this one, seconds left in the window)."""
    row = conn.execute(
        "INSERT INTO api_token_rate AS r (key, window_start, requests)"
        " VALUES (%s, date_trunc('minute', now()), 1)"
        " ON CONFLICT (key) DO UPDATE SET"
        "  requests = CASE WHEN r.window_start = EXCLUDED.window_start THEN r.requests + 1 ELSE 1 END,"
        "  window_start = EXCLUDED.window_start"
        " RETURNING requests, extract(epoch FROM window_start + interval '1 minute' - now())::float8",
        (key,),
    ).fetchone()
    assert row is not None
    return int(row[0]), float(row[1])


def sweep_token_rate(conn: Connection[Any]) -> None:
    """Drops the rows of past minutes."""
    conn.execute("DELETE FROM api_token_rate WHERE window_start < date_trunc('minute', now())")
