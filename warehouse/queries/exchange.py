"""SQL of the JT/T 809 link service (migration 0045, exchange/link): the superior platforms to link to, the
vehicles they may see, each link's state and counters, the exchange message log and the inspections.
Named parameters; no identifiers are built from input. The password is read here only for the 0x1001 login
(``enabled_platforms``); no API path reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


@dataclass(frozen=True)
class SuperiorPlatform:
    """One superior platform row, as the link service uses it (the password included)."""

    id: int
    enterprise_id: int
    name: str
    host: str
    port: int
    user_id: int
    password: str
    centre_id: int
    version: str
    encrypted: bool
    m1: int
    ia1: int
    ic1: int
    encrypt_key: int
    down_link_host: str
    down_link_port: int
    position_interval_s: int
    exchanged_enterprise_ids: tuple[int, ...]
    updated_at: datetime


_PLATFORMS = """
SELECT id, enterprise_id, name, host, port, user_id, password, centre_id, version, encrypted, m1, ia1, ic1,
       encrypt_key, down_link_host, down_link_port, position_interval_s, exchanged_enterprise_ids, updated_at
FROM superior_platform WHERE enabled ORDER BY id"""


def enabled_platforms(conn: Connection[Any]) -> list[SuperiorPlatform]:
    rows = conn.cursor(row_factory=dict_row).execute(_PLATFORMS).fetchall()
    out = []
    for row in rows:
        ids = row.pop("exchanged_enterprise_ids") or []
        out.append(SuperiorPlatform(**row, exchanged_enterprise_ids=tuple(int(i) for i in ids)))
    return out


# The enterprises whose vehicles a platform forwards: the subtrees of the listed enterprises that lie in the
# owner's subtree (a listed enterprise outside it exchanges nothing), or the owner's whole subtree.
_SCOPE = """
WITH owner AS (SELECT path FROM enterprise WHERE id = %(owner)s),
     roots AS (SELECT e.path FROM enterprise e, owner o
               WHERE e.id = ANY(%(listed)s) AND e.path LIKE o.path || '%%'
               UNION ALL SELECT o.path FROM owner o WHERE cardinality(%(listed)s::bigint[]) = 0)
SELECT DISTINCT e.id FROM enterprise e JOIN roots r ON e.path LIKE r.path || '%%'"""


def exchanged_enterprises(conn: Connection[Any], platform: SuperiorPlatform) -> frozenset[int]:
    rows = conn.execute(_SCOPE, {"owner": platform.enterprise_id,
                                 "listed": list(platform.exchanged_enterprise_ids)}).fetchall()
    return frozenset(int(r[0]) for r in rows)


@dataclass(frozen=True)
class ExchangedVehicle:
    car_id: int
    plate: str
    plate_colour: int
    phone: str
    device_sn: str


_VEHICLE = """
SELECT c.id, c.plate_number, c.plate_color, COALESCE(d.phone, ''), COALESCE(d.device_sn, '')
FROM car c LEFT JOIN device d ON d.id = %(device)s
WHERE c.id = %(car)s"""


def vehicle(conn: Connection[Any], car_id: int, device_id: int) -> ExchangedVehicle | None:
    row = conn.execute(_VEHICLE, {"car": car_id, "device": device_id}).fetchone()
    return None if row is None else ExchangedVehicle(int(row[0]), row[1], int(row[2]), row[3], row[4])


_STATE = """
INSERT INTO exchange_link_state (platform_id, link, state, since, last_heartbeat_at, sent_count, received_count,
                                 backfilled_count, thinned_count, mismatch_count, last_error, updated_at)
VALUES (%(platform_id)s, %(link)s, %(state)s, %(since)s, %(last_heartbeat_at)s, %(sent)s, %(received)s,
        %(backfilled)s, %(thinned)s, %(mismatches)s, %(last_error)s, now())
ON CONFLICT (platform_id, link) DO UPDATE
   SET state = EXCLUDED.state, since = EXCLUDED.since, last_heartbeat_at = EXCLUDED.last_heartbeat_at,
       sent_count = exchange_link_state.sent_count + EXCLUDED.sent_count,
       received_count = exchange_link_state.received_count + EXCLUDED.received_count,
       backfilled_count = exchange_link_state.backfilled_count + EXCLUDED.backfilled_count,
       thinned_count = exchange_link_state.thinned_count + EXCLUDED.thinned_count,
       mismatch_count = exchange_link_state.mismatch_count + EXCLUDED.mismatch_count,
       last_error = COALESCE(EXCLUDED.last_error, exchange_link_state.last_error), updated_at = now()"""


def save_link_state(conn: Connection[Any], platform_id: int, link: str, state: dict[str, Any]) -> None:
    """Upsert a link's state; the counts in ``state`` are increments since the last save."""
    conn.execute(_STATE, {"platform_id": platform_id, "link": link, **state})


_LINK_STATES = """
SELECT s.platform_id AS "platformId", s.link, s.state, s.since, s.last_heartbeat_at AS "lastHeartbeatAt",
       s.sent_count AS "sentCount", s.received_count AS "receivedCount",
       s.backfilled_count AS "backfilledCount", s.thinned_count AS "thinnedCount",
       s.mismatch_count AS "mismatchCount", s.last_error AS "lastError", s.updated_at AS "updatedAt"
FROM exchange_link_state s WHERE s.platform_id = %(platform_id)s ORDER BY s.link"""


def link_states(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(_LINK_STATES, {"platform_id": platform_id}).fetchall()


_PLATFORM_IN_SCOPE = """
SELECT p.id FROM superior_platform p JOIN enterprise e ON e.id = p.enterprise_id
WHERE p.id = %(id)s AND e.path LIKE %(prefix)s"""


def platform_in_scope(conn: Connection[Any], platform_id: int, path_prefix: str) -> bool:
    """``path_prefix`` is a LIKE prefix of the caller's scope (warehouse.queries.scope.like_prefix)."""
    return conn.execute(_PLATFORM_IN_SCOPE, {"id": platform_id, "prefix": path_prefix}).fetchone() is not None


_LOG = """
INSERT INTO exchange_message (platform_id, direction, link, msg_id, data_type, decoded, raw_hex)
VALUES (%(platform_id)s, %(direction)s, %(link)s, %(msg_id)s, %(data_type)s, %(decoded)s, %(raw_hex)s)"""


def log_messages(conn: Connection[Any], rows: list[dict[str, Any]]) -> None:
    """Rows of (platform_id, direction 'up'/'down', link 'main'/'sub', msg_id, data_type, decoded, raw_hex)."""
    if rows:
        conn.cursor().executemany(_LOG, [{**r, "decoded": Jsonb(r["decoded"])} for r in rows])


def prune_messages(conn: Connection[Any], days: int) -> None:
    conn.execute("DELETE FROM exchange_message WHERE time < now() - make_interval(days => %(days)s)",
                 {"days": days})


_INSPECTION = """
INSERT INTO exchange_inspection (platform_id, enterprise_id, object_type, object_id, info_id, source_sn, question,
                                 deadline)
VALUES (%(platform_id)s, %(enterprise_id)s, %(object_type)s, %(object_id)s, %(info_id)s, %(source_sn)s,
        %(question)s, %(deadline)s)
RETURNING id"""


def store_inspection(conn: Connection[Any], row: dict[str, Any]) -> int:
    found = conn.execute(_INSPECTION, row).fetchone()
    assert found is not None
    return int(found[0])


_INSPECTION_PUSH = """
SELECT e.path, i.id AS "inspectionId", i.platform_id AS "platformId", i.platform_name AS "platformName",
       i.object_type AS "objectType", i.object_id AS "objectId", i.question, i.deadline, i.received_at AS "receivedAt",
       i.state
FROM exchange_inspection_view i JOIN enterprise e ON e.id = i.enterprise_id WHERE i.id = %(id)s"""


def inspection_push(conn: Connection[Any], inspection_id: int) -> dict[str, Any] | None:
    """The owner enterprise's path and the inspection as the console's push 16 carries it (docs/topics.md)."""
    return conn.cursor(row_factory=dict_row).execute(_INSPECTION_PUSH, {"id": inspection_id}).fetchone()


_ANSWERED = """
SELECT id, object_type, object_id, info_id, source_sn, answer
FROM exchange_inspection WHERE platform_id = %(platform_id)s AND state = 'answered' ORDER BY id"""


def answered_inspections(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(_ANSWERED, {"platform_id": platform_id}).fetchall()


def mark_inspection_sent(conn: Connection[Any], inspection_id: int) -> None:
    conn.execute("UPDATE exchange_inspection SET state = 'sent', sent_at = now() WHERE id = %(id)s AND "
                 "state = 'answered'", {"id": inspection_id})


_ANSWER = """
UPDATE exchange_inspection i SET state = 'answered', answer = %(answer)s, answered_by = %(user)s, answered_at = now()
FROM superior_platform p JOIN enterprise e ON e.id = p.enterprise_id
WHERE i.id = %(id)s AND p.id = i.platform_id AND e.path LIKE %(prefix)s AND i.state = 'open'
  AND (i.deadline IS NULL OR i.deadline > now())
RETURNING i.id"""


def answer_inspection(conn: Connection[Any], inspection_id: int, answer: str, user_id: int,
                      path_prefix: str) -> bool:
    """False when the inspection is not in scope, already answered or past its deadline (an answer the
    superior no longer waits for is refused, not sent)."""
    return conn.execute(_ANSWER, {"id": inspection_id, "answer": answer, "user": user_id,
                                  "prefix": path_prefix}).fetchone() is not None


_INSPECTION_STATE = """
SELECT i.state FROM exchange_inspection_view i JOIN enterprise e ON e.id = i.enterprise_id
WHERE i.id = %(id)s AND e.path LIKE %(prefix)s"""


def inspection_state(conn: Connection[Any], inspection_id: int, path_prefix: str) -> str | None:
    """The inspection's state (open, answered, sent, or expired: open past its deadline, migration 0046),
    or None when it is not in the scope of ``path_prefix``."""
    row = conn.execute(_INSPECTION_STATE, {"id": inspection_id, "prefix": path_prefix}).fetchone()
    return None if row is None else str(row[0])
