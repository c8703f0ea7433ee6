"""SQL of the GB/T 32960 forwarding (migration 0061, exchange/gb32960): the enabled superior platforms with
their exchanged vehicles, and each platform's link state. Named parameters; no identifiers are built from
input. The password and the AES key are read here only for the link itself (``enabled_platforms``); no API
path reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row


@dataclass(frozen=True)
class Gb32960Superior:
    """One gb32960 superior platform row, as the link service uses it (the password included)."""

    id: int
    enterprise_id: int
    name: str
    host: str
    port: int
    username: str
    password: str
    encryption: int
    version: str
    car_ids: frozenset[int]
    updated_at: datetime
    aes_key: str | None = None  # the AES-128 key and IV agreed with the platform, hex (migration 0068)
    aes_iv: str | None = None


# updated_at also moves when the vehicle list changes (the newest row of gb32960_exchange_car), so the link
# service restarts a platform whose vehicles changed, as it does for any other change of the row.
_PLATFORMS = """
SELECT p.id, p.enterprise_id, p.name, p.host, p.port, p.username, p.password, p.encryption, p.version,
       p.aes_key, p.aes_iv, COALESCE(array_agg(c.car_id) FILTER (WHERE c.car_id IS NOT NULL), '{}') AS car_ids,
       GREATEST(p.updated_at, max(c.created_at)) AS updated_at
FROM gb32960_superior_platform p LEFT JOIN gb32960_exchange_car c ON c.platform_id = p.id
WHERE p.enabled
GROUP BY p.id
ORDER BY p.id
"""


def enabled_platforms(conn: Connection[Any]) -> list[Gb32960Superior]:
    rows = conn.cursor(row_factory=dict_row).execute(_PLATFORMS).fetchall()
    return [Gb32960Superior(**{**row, "car_ids": frozenset(int(i) for i in row["car_ids"])}) for row in rows]


def save_link_state(conn: Connection[Any], platform_id: int, state: dict[str, Any]) -> None:
    conn.execute(
        """INSERT INTO gb32960_link_state (platform_id, state, since, last_heartbeat_at, sent, backfilled, skipped,
                                           last_error, updated_at)
           VALUES (%(platform_id)s, %(state)s, %(since)s, %(last_heartbeat_at)s, %(sent)s, %(backfilled)s,
                   %(skipped)s, %(last_error)s, now())
           ON CONFLICT (platform_id) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since,
               last_heartbeat_at = EXCLUDED.last_heartbeat_at, sent = EXCLUDED.sent,
               backfilled = EXCLUDED.backfilled, skipped = EXCLUDED.skipped, last_error = EXCLUDED.last_error,
               updated_at = now()""",
        {"platform_id": platform_id, **state})
