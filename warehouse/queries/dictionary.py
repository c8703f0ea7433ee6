"""Dictionary look-ups (table ``dictionary``, migration 0007): an enterprise's own entries override
the system-wide ones with the same type and code."""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row


def lookup(conn: Connection[Any], enterprise_id: int, type_id: int, code: str | None) -> list[dict[str, Any]]:
    """The live entries of ``type_id`` (and ``code`` when given) that ``enterprise_id`` reads: its own
    first, then the system ones, each group by code then id."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            'SELECT id, enterprise_id AS "enterpriseId", type, code, name, content, system,'
            ' created_at AS "createTime", updated_at AS "updateTime" FROM dictionary'
            " WHERE record_state = 1 AND type = %s AND (%s::text IS NULL OR code = %s)"
            "   AND (enterprise_id = %s OR system = 1)"
            " ORDER BY (enterprise_id = %s) DESC, code, id",
            (type_id, code, code, enterprise_id, enterprise_id),
        ).fetchall()


def upsert_system(conn: Connection[Any], enterprise_id: int, type_id: int, code: str, name: str,
                  content: str) -> None:
    """A system entry of the root enterprise ``enterprise_id``, created when missing (an existing one,
    maybe edited by an administrator, is kept)."""
    conn.execute(
        "INSERT INTO dictionary (enterprise_id, type, code, name, content, system)"
        " SELECT %s, %s, %s, %s, %s, 1"
        " WHERE NOT EXISTS (SELECT 1 FROM dictionary WHERE type = %s AND code = %s AND system = 1 AND record_state = 1)",
        (enterprise_id, type_id, code, name, content, type_id, code),
    )
