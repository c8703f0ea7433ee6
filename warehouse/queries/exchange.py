"""SQL of the JT/T 809 link service (migration 0045, exchange/link): the superior platforms to link to, the
vehicles they may see, each link's state and counters, the exchange message log and the inspections.
Named parameters; no identifiers are built from input. The password is read here only for the 0x1001 login
(``enabled_platforms``); no API path reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from warehouse.queries.exchange_video import videos_to_answer


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


_VEHICLES = """
SELECT c.id, c.plate_number, c.plate_color, COALESCE(d.phone, ''), COALESCE(d.device_sn, '')
FROM unnest(%(cars)s::bigint[], %(devices)s::bigint[]) AS w(car_id, device_id)
JOIN car c ON c.id = w.car_id
LEFT JOIN device d ON d.id = w.device_id"""


def vehicles(conn: Connection[Any], wanted: dict[int, int]) -> dict[int, ExchangedVehicle]:
    """``vehicle`` for many cars (car id -> the device that reported) in one query; a car that does not exist
    is absent from the answer."""
    rows = conn.execute(_VEHICLES, {"cars": list(wanted), "devices": list(wanted.values())}).fetchall()
    return {int(r[0]): ExchangedVehicle(int(r[0]), r[1], int(r[2]), r[3], r[4]) for r in rows}


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


# --- positions sent, per second (migration 0047): what the first 0x9101 after a restart is reconciled with ---

_SENT = """
INSERT INTO exchange_sent_count (platform_id, second, positions) VALUES (%(platform_id)s, %(second)s, %(positions)s)
ON CONFLICT (platform_id, second) DO UPDATE SET positions = exchange_sent_count.positions + EXCLUDED.positions"""


def save_sent_counts(conn: Connection[Any], platform_id: int, counts: dict[int, int], oldest_second: int) -> None:
    """Add ``counts`` ({UTC second: positions sent}) and drop the seconds before ``oldest_second``."""
    if counts:
        conn.cursor().executemany(_SENT, [{"platform_id": platform_id, "second": s, "positions": n}
                                          for s, n in counts.items()])
    conn.execute("DELETE FROM exchange_sent_count WHERE platform_id = %(p)s AND second < %(oldest)s",
                 {"p": platform_id, "oldest": oldest_second})


def sent_counts(conn: Connection[Any], platform_id: int, oldest_second: int) -> dict[int, int]:
    rows = conn.execute("SELECT second, positions FROM exchange_sent_count WHERE platform_id = %(p)s AND "
                        "second >= %(oldest)s", {"p": platform_id, "oldest": oldest_second}).fetchall()
    return {int(r[0]): int(r[1]) for r in rows}


# --- urgings (0x9401) and the handling of alarms (0x1401 / 0x1403) ------------------------------------------

# The alarms an urging may name: of the car with that plate and colour in the exchanged enterprises, started
# within ``slack`` of the urging's WARN_TIME (whole UTC seconds on the wire), nearest first. The caller keeps
# those whose key has the urging's upper-platform alarm type (exchange.link.forwarding.upper_alarm_type).
_URGED_ALARMS = """
SELECT a.id, a.key, a.state, a.start_time FROM alarm a JOIN car c ON c.id = a.car_id
WHERE c.plate_number = %(plate)s AND c.plate_color = %(colour)s AND c.enterprise_id = ANY(%(enterprises)s)
  AND a.start_time >= %(at)s - %(slack)s AND a.start_time < %(at)s + %(slack)s
ORDER BY abs(extract(epoch FROM a.start_time - %(at)s)), a.id LIMIT 50"""


def urged_alarm_candidates(conn: Connection[Any], enterprises: list[int], plate: str, colour: int, at: datetime,
                           slack: timedelta) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(_URGED_ALARMS, {
        "plate": plate, "colour": colour, "enterprises": enterprises, "at": at, "slack": slack}).fetchall()


_URGING = """
INSERT INTO exchange_urging (platform_id, enterprise_id, alarm_id, source_sn, supervision_id, plate, plate_colour,
                             warn_src, warn_type, warn_time, deadline, level, supervisor, supervisor_tel,
                             supervisor_email)
VALUES (%(platform_id)s, %(enterprise_id)s, %(alarm_id)s, %(source_sn)s, %(supervision_id)s, %(plate)s,
        %(plate_colour)s, %(warn_src)s, %(warn_type)s, %(warn_time)s, %(deadline)s, %(level)s, %(supervisor)s,
        %(supervisor_tel)s, %(supervisor_email)s)
RETURNING id"""


def store_urging(conn: Connection[Any], row: dict[str, Any]) -> int:
    found = conn.execute(_URGING, row).fetchone()
    assert found is not None
    return int(found[0])


_TO_ANSWER = """
SELECT u.id, u.supervision_id, u.source_sn, u.plate, u.plate_colour, a.state
FROM exchange_urging u JOIN alarm a ON a.id = u.alarm_id
WHERE u.platform_id = %(p)s AND u.answered_at IS NULL AND a.state <> 0 ORDER BY u.id"""


def urgings_to_answer(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    """The platform's urgings not answered yet (0x1401 not sent) whose alarm has been handled, with its state."""
    return conn.cursor(row_factory=dict_row).execute(_TO_ANSWER, {"p": platform_id}).fetchall()


def mark_urging_answered(conn: Connection[Any], urging_id: int, result: int) -> None:
    conn.execute("UPDATE exchange_urging SET result = %(r)s, answered_at = now() WHERE id = %(id)s",
                 {"r": result, "id": urging_id})


def handling_cursor(conn: Connection[Any], platform_id: int) -> int:
    """The last alarm_confirm_record id reported to the platform. A platform seen for the first time starts
    at the newest record: handlings from before it was linked are not reported."""
    row = conn.execute("SELECT last_record_id FROM exchange_handling_cursor WHERE platform_id = %(p)s",
                       {"p": platform_id}).fetchone()
    if row is not None:
        return int(row[0])
    newest = conn.execute("SELECT COALESCE(max(id), 0) FROM alarm_confirm_record").fetchone()
    last = int(newest[0]) if newest else 0
    set_handling_cursor(conn, platform_id, last)
    return last


def set_handling_cursor(conn: Connection[Any], platform_id: int, last_record_id: int) -> None:
    conn.execute(
        "INSERT INTO exchange_handling_cursor (platform_id, last_record_id) VALUES (%(p)s, %(last)s) "
        "ON CONFLICT (platform_id) DO UPDATE SET last_record_id = EXCLUDED.last_record_id, updated_at = now()",
        {"p": platform_id, "last": last_record_id})


# Handlings (confirm / ignore, api/routes/alarms.py) after the cursor, oldest first; ``in_scope`` says whether
# the alarm's vehicle is one the platform exchanges (the others only move the cursor).
_HANDLINGS = """
SELECT r.id AS record_id, r.alarm_id, r.state, a.key, a.car_id, c.plate_number AS plate, c.plate_color AS colour,
       (c.id IS NOT NULL AND a.enterprise_id = ANY(%(enterprises)s)) AS in_scope
FROM alarm_confirm_record r JOIN alarm a ON a.id = r.alarm_id LEFT JOIN car c ON c.id = a.car_id
WHERE r.id > %(after)s ORDER BY r.id LIMIT %(limit)s"""


def handlings_after(conn: Connection[Any], after: int, enterprises: list[int], limit: int = 500) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(
        _HANDLINGS, {"after": after, "enterprises": enterprises, "limit": limit}).fetchall()


# --- static information (0x9601 -> 0x1601) ---------------------------------------------------------------

_STATIC = """
SELECT c.plate_number AS plate, c.plate_color AS plate_colour, e.id AS enterprise_id, e.name AS enterprise_name,
       COALESCE(e.phone, '') AS enterprise_phone, d.name AS driver_name, COALESCE(d.phone, '') AS driver_phone
FROM car c JOIN enterprise e ON e.id = c.enterprise_id LEFT JOIN driver d ON d.id = c.driver_id
WHERE c.plate_number = %(plate)s AND c.plate_color = %(colour)s AND c.enterprise_id = ANY(%(enterprises)s)
  AND c.record_state = 1
ORDER BY c.id LIMIT 1"""


def static_vehicle(conn: Connection[Any], enterprises: list[int], plate: str, colour: int) -> dict[str, Any] | None:
    """The car with that plate and colour among the exchanged enterprises, with its enterprise and driver."""
    return conn.cursor(row_factory=dict_row).execute(
        _STATIC, {"plate": plate, "colour": colour, "enterprises": enterprises}).fetchone()


# --- vehicle control (0x9501-0x9505 -> terminal commands -> 0x1501-0x1505) ---------------------------------

# The car's master device (else its first live device), in the shape of the API's command target
# (warehouse.queries.commands), for a car with that plate and colour in the exchanged enterprises.
_CONTROL_TARGET = """
SELECT d.id AS "deviceId", d.car_id AS "carId", d.enterprise_id AS "enterpriseId", d.phone, d.state,
       d.protocol_version AS "protocolVersion", c.plate_number AS "plateNumber"
FROM car c JOIN device d ON d.car_id = c.id AND d.record_state = 1
WHERE c.plate_number = %(plate)s AND c.plate_color = %(colour)s AND c.enterprise_id = ANY(%(enterprises)s)
  AND c.record_state = 1
ORDER BY (d.id = c.master_device_id) DESC NULLS LAST, d.id LIMIT 1"""


def control_target(conn: Connection[Any], enterprises: list[int], plate: str, colour: int) -> dict[str, Any] | None:
    return conn.cursor(row_factory=dict_row).execute(
        _CONTROL_TARGET, {"plate": plate, "colour": colour, "enterprises": enterprises}).fetchone()


_CONTROL = """
INSERT INTO exchange_control (platform_id, data_type, source_sn, plate, plate_colour, data_hex, command_id, outcome,
                              answered_at)
VALUES (%(platform_id)s, %(data_type)s, %(source_sn)s, %(plate)s, %(plate_colour)s, %(data_hex)s, %(command_id)s,
        %(outcome)s, CASE WHEN %(outcome)s::text IS NULL THEN NULL ELSE now() END)
RETURNING id"""


def store_control(conn: Connection[Any], row: dict[str, Any]) -> int:
    """A control request; with ``outcome`` set it is stored as answered."""
    found = conn.execute(_CONTROL, row).fetchone()
    assert found is not None
    return int(found[0])


_CONTROLS_DONE = """
SELECT x.id, x.data_type, x.source_sn, x.plate, x.plate_colour, x.data_hex, m.state, m.result
FROM exchange_control x JOIN command m ON m.id = x.command_id
WHERE x.platform_id = %(p)s AND x.answered_at IS NULL AND m.state IN ('answered', 'timed_out', 'failed')
ORDER BY x.id"""


def controls_to_answer(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    """The platform's unanswered control requests whose command has an outcome (answered, timed out, failed)."""
    return conn.cursor(row_factory=dict_row).execute(_CONTROLS_DONE, {"p": platform_id}).fetchall()


def mark_control_answered(conn: Connection[Any], control_id: int, outcome: str) -> None:
    conn.execute("UPDATE exchange_control SET outcome = %(o)s, answered_at = now() WHERE id = %(id)s",
                 {"o": outcome, "id": control_id})


def pending_answers(conn: Connection[Any], platform_id: int, after: int, enterprises: list[int]) -> dict[str, Any]:
    """What the link service's poll answers, in one connection: inspections answered in the API, urgings of
    handled alarms, alarm handlings after the cursor, control and video requests whose command has an outcome."""
    return {"inspections": answered_inspections(conn, platform_id), "urgings": urgings_to_answer(conn, platform_id),
            "handlings": handlings_after(conn, after, enterprises), "controls": controls_to_answer(conn, platform_id),
            "videos": videos_to_answer(conn, platform_id)}


# --- notices (0x9302 messages, 0x9402 warning tips) --------------------------------------------------------

_NOTICE = """
INSERT INTO exchange_notice (platform_id, enterprise_id, data_type, source_sn, info_id, object_type, object_id,
                             car_id, plate, plate_colour, warn_src, warn_type, warn_time, content)
VALUES (%(platform_id)s, COALESCE((SELECT c.enterprise_id FROM car c WHERE c.plate_number = %(plate)s
                                   AND c.plate_color = %(plate_colour)s AND c.enterprise_id = ANY(%(enterprises)s)
                                   AND c.record_state = 1 ORDER BY c.id LIMIT 1), %(owner)s),
        %(data_type)s, %(source_sn)s, %(info_id)s, %(object_type)s, %(object_id)s,
        (SELECT c.id FROM car c WHERE c.plate_number = %(plate)s AND c.plate_color = %(plate_colour)s
         AND c.enterprise_id = ANY(%(enterprises)s) AND c.record_state = 1 ORDER BY c.id LIMIT 1),
        %(plate)s, %(plate_colour)s, %(warn_src)s, %(warn_type)s, %(warn_time)s, %(content)s)
RETURNING id"""


def store_notice(conn: Connection[Any], row: dict[str, Any]) -> int:
    """A message or warning tip; one about a vehicle of ``enterprises`` belongs to the vehicle's enterprise,
    anything else to ``owner`` (the platform's)."""
    found = conn.execute(_NOTICE, row).fetchone()
    assert found is not None
    return int(found[0])


def mark_notice_answered(conn: Connection[Any], notice_id: int) -> None:
    conn.execute("UPDATE exchange_notice SET answered_at = now() WHERE id = %(id)s", {"id": notice_id})
