"""Dictionary look-ups (table ``dictionary``, migration 0007): an enterprise's own entries override
the system-wide ones with the same type and code."""

from __future__ import annotations

import json
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row

from fleet.grade_bands import BANDS_CODE, ENTERPRISE_BANDS_TYPE, SYSTEM_BANDS_TYPE


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


def grade_bands(conn: Connection[Any], enterprise_ids: list[int] | None = None
                ) -> tuple[object, dict[int, tuple[int, object]]]:
    """The grade bands' entries (fleet/grade_bands.py), their content parsed from its JSON text: the system entry
    ``driving_behavior_grade`` of type 98 (None without one) and the own type-50 entry of each enterprise (of
    ``enterprise_ids``, or of all): enterprise id -> (entry id, content). Content that is no JSON reads None
    (the bands next up the tree then apply: a bad entry never stops a day's build)."""
    rows = conn.execute(
        "SELECT DISTINCT ON (system, enterprise_id) system, enterprise_id, id, content FROM dictionary"
        " WHERE code = %s AND record_state = 1 AND ((type = %s AND system = 1)"
        "   OR (type = %s AND system = 0 AND (%s::bigint[] IS NULL OR enterprise_id = ANY(%s::bigint[]))))"
        " ORDER BY system, enterprise_id, id",
        (BANDS_CODE, SYSTEM_BANDS_TYPE, ENTERPRISE_BANDS_TYPE, enterprise_ids, enterprise_ids)).fetchall()
    system: object = None
    own: dict[int, tuple[int, object]] = {}
    for is_system, enterprise_id, entry_id, content in rows:
        try:
            parsed = json.loads(content)
        except ValueError:
            parsed = None
        if is_system:
            system = parsed if system is None else system
        else:
            own[int(enterprise_id)] = (int(entry_id), parsed)
    return system, own
