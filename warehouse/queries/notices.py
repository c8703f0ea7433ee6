"""The bell's notices (migration 0053): an announcement's read mark per user, and a licence application's
decision (bizType 1). The notice list itself is the API's declared entity over ``notice_view``."""

from __future__ import annotations

from typing import Any

from psycopg import Connection


def mark_read(conn: Connection[Any], announcement_id: int, user_id: int) -> None:
    """Records that ``user_id`` read the announcement; reading it again changes nothing."""
    conn.execute("INSERT INTO announcement_read (announcement_id, user_id) VALUES (%s, %s)"
                 " ON CONFLICT (user_id, announcement_id) DO NOTHING", (announcement_id, user_id))


def decide_application(conn: Connection[Any], application_id: int, state: int, handled_by: str,
                       opinion: str | None) -> dict[str, Any] | None:
    """Approves (1) or rejects (2) a pending licence application; the decided row, or None when it is not
    pending (missing or decided before: a decision is never overwritten)."""
    row = conn.execute(
        "UPDATE licence_application SET state = %s, handled_by = %s, handled_at = now(), opinion = %s"
        " WHERE id = %s AND state = 0 RETURNING id, state, handled_by, handled_at, opinion",
        (state, handled_by, opinion, application_id)).fetchone()
    if row is None:
        return None
    return dict(zip(("id", "state", "handled_by", "handled_at", "opinion"), row, strict=True))
