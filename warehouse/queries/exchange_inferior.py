"""SQL of fleetwatch as a JT/T 809 superior platform (migration 0048, exchange/superior): the inferior platforms
that may log in, the exchange vehicles and positions they report, their links' state, the frames logged and the
operators' requests (0x9301 inspections, 0x9302 messages) with their answers.
Named parameters; no identifiers are built from input. The password is read here only to check a 0x1001 login
(``enabled_inferior_platforms``); no API path reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


@dataclass(frozen=True)
class InferiorPlatform:
    """One inferior platform row, as the superior service checks its login (the password included)."""

    id: int
    enterprise_id: int
    user_id: int
    password: str
    centre_id: int
    version: str
    encrypted: bool
    m1: int
    ia1: int
    ic1: int
    encrypt_key: int
    allowed_hosts: tuple[str, ...]
    video_hosts: tuple[str, ...] = ()  # where its 0x1801 / 0x1A01 may send our media server (migration 0067)


_PLATFORMS = """
SELECT id, enterprise_id, user_id, password, centre_id, version, encrypted, m1, ia1, ic1, encrypt_key, allowed_hosts,
       video_hosts
FROM inferior_platform WHERE enabled ORDER BY id"""


def enabled_inferior_platforms(conn: Connection[Any]) -> list[InferiorPlatform]:
    out = []
    for row in conn.cursor(row_factory=dict_row).execute(_PLATFORMS).fetchall():
        hosts = row.pop("allowed_hosts") or []
        video = row.pop("video_hosts") or []
        out.append(InferiorPlatform(**row, allowed_hosts=tuple(str(h) for h in hosts),
                                    video_hosts=tuple(str(h) for h in video)))
    return out


def any_enabled(conn: Connection[Any]) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM inferior_platform WHERE enabled)").fetchone() == (True,)


# -- vehicles and positions ------------------------------------------------------------------------

_VEHICLE = """
INSERT INTO exchange_vehicle (inferior_platform_id, enterprise_id, plate, plate_colour)
VALUES (%(platform_id)s, %(enterprise_id)s, %(plate)s, %(colour)s)
ON CONFLICT (inferior_platform_id, plate, plate_colour) DO UPDATE SET enterprise_id = EXCLUDED.enterprise_id
RETURNING id"""


def vehicle_id(conn: Connection[Any], platform_id: int, enterprise_id: int, plate: str, colour: int) -> int:
    """The exchange vehicle (platform, plate, colour), made on first sight."""
    row = conn.execute(_VEHICLE, {"platform_id": platform_id, "enterprise_id": enterprise_id, "plate": plate,
                                  "colour": colour}).fetchone()
    assert row is not None
    return int(row[0])


_REGISTER = """
UPDATE exchange_vehicle SET registered_at = now(), platform_code = %(platform_code)s, producer_id = %(producer_id)s,
       terminal_model = %(terminal_model)s, imei = %(imei)s, terminal_id = %(terminal_id)s, sim = %(sim)s
WHERE id = %(id)s"""


def register_vehicle(conn: Connection[Any], vehicle: int, registration: dict[str, str]) -> None:
    """0x1201: keys platform_code, producer_id, terminal_model, imei, terminal_id, sim."""
    conn.execute(_REGISTER, {"id": vehicle, **registration})


_POSITION = """
INSERT INTO exchange_position (vehicle_id, fix_at, received_at, backfilled, lat, lng, speed_kmh, direction_deg,
                               altitude_m, mileage_km, status, alarm)
VALUES (%(vehicle_id)s, %(fix_at)s, %(received_at)s, %(backfilled)s, %(lat)s, %(lng)s, %(speed_kmh)s,
        %(direction_deg)s, %(altitude_m)s, %(mileage_km)s, %(status)s, %(alarm)s)
ON CONFLICT (vehicle_id, fix_at) DO NOTHING"""

# The latest fix of each vehicle in the batch becomes its last position unless a later one is already there
# (a back-fill arriving after real-time positions does not move the vehicle back on the map).
_LAST = """
UPDATE exchange_vehicle SET last_fix_at = %(fix_at)s, last_received_at = %(received_at)s, last_lat = %(lat)s,
       last_lng = %(lng)s, last_speed_kmh = %(speed_kmh)s, last_direction_deg = %(direction_deg)s,
       last_altitude_m = %(altitude_m)s, last_status = %(status)s, last_alarm = %(alarm)s
WHERE id = %(vehicle_id)s AND (last_fix_at IS NULL OR last_fix_at < %(fix_at)s)"""


def store_positions(conn: Connection[Any], rows: list[dict[str, Any]]) -> None:
    """Rows with vehicle_id, fix_at, received_at, backfilled, lat, lng, speed_kmh, direction_deg, altitude_m,
    mileage_km, status, alarm. Idempotent: a (vehicle, fix time) stored before is left as it was."""
    if not rows:
        return
    latest: dict[int, dict[str, Any]] = {}
    for row in rows:
        seen = latest.get(row["vehicle_id"])
        if seen is None or seen["fix_at"] < row["fix_at"]:
            latest[row["vehicle_id"]] = row
    with conn.cursor() as cur:
        cur.executemany(_POSITION, rows)
        cur.executemany(_LAST, list(latest.values()))


def prune_positions(conn: Connection[Any], days: int) -> None:
    conn.execute("DELETE FROM exchange_position WHERE fix_at < now() - make_interval(days => %(days)s)",
                 {"days": days})


# -- links and frames ------------------------------------------------------------------------------

_STATE = """
INSERT INTO inferior_link_state (inferior_platform_id, link, state, since, peer, last_heartbeat_at, sent_count,
                                 received_count, positions_count, last_error, updated_at)
VALUES (%(platform_id)s, %(link)s, %(state)s, %(since)s, %(peer)s, %(last_heartbeat_at)s, %(sent)s, %(received)s,
        %(positions)s, %(last_error)s, now())
ON CONFLICT (inferior_platform_id, link) DO UPDATE
   SET state = EXCLUDED.state, since = EXCLUDED.since, peer = EXCLUDED.peer,
       last_heartbeat_at = EXCLUDED.last_heartbeat_at,
       sent_count = inferior_link_state.sent_count + EXCLUDED.sent_count,
       received_count = inferior_link_state.received_count + EXCLUDED.received_count,
       positions_count = inferior_link_state.positions_count + EXCLUDED.positions_count,
       last_error = EXCLUDED.last_error, updated_at = now()"""


def save_link_state(conn: Connection[Any], platform_id: int, link: str, state: dict[str, Any]) -> None:
    """Upsert a link's state; the counts in ``state`` are increments since the last save."""
    conn.execute(_STATE, {"platform_id": platform_id, "link": link, **state})


_LINK_STATES = """
SELECT s.inferior_platform_id AS "platformId", s.link, s.state, s.since, s.peer,
       s.last_heartbeat_at AS "lastHeartbeatAt", s.sent_count AS "sentCount", s.received_count AS "receivedCount",
       s.positions_count AS "positionsCount", s.last_error AS "lastError", s.updated_at AS "updatedAt"
FROM inferior_link_state s WHERE s.inferior_platform_id = %(platform_id)s ORDER BY s.link"""


def link_states(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(_LINK_STATES, {"platform_id": platform_id}).fetchall()


_LOG = """
INSERT INTO exchange_message (inferior_platform_id, platform_kind, direction, link, msg_id, data_type, decoded,
                              raw_hex)
VALUES (%(platform_id)s, 'inferior', %(direction)s, %(link)s, %(msg_id)s, %(data_type)s, %(decoded)s, %(raw_hex)s)"""


def save_authorize_codes(conn: Connection[Any], platform_id: int, report: dict[str, Any]) -> None:
    """An inferior platform's latest 0x1701 (``platform_code``, ``code_1``, ``code_2``, ``at``), on its row
    (migration 0065); an older report than the one kept is left out."""
    conn.execute(
        "UPDATE inferior_platform SET authorize_platform_code = %(platform_code)s, authorize_code_1 = %(code_1)s,"
        " authorize_code_2 = %(code_2)s, authorize_reported_at = %(at)s"
        " WHERE id = %(id)s AND (authorize_reported_at IS NULL OR authorize_reported_at <= %(at)s)",
        {**report, "id": platform_id})


def authorize_codes(conn: Connection[Any], platform_id: int) -> dict[str, Any]:
    """The platform's latest 0x1701 as the console reads it (every value None before its first report)."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            'SELECT authorize_platform_code AS "platformCode", authorize_code_1 AS "code1",'
            ' authorize_code_2 AS "code2", authorize_reported_at AS "reportedAt" FROM inferior_platform'
            " WHERE id = %s", (platform_id,)).fetchone()
    return row or {"platformCode": None, "code1": None, "code2": None, "reportedAt": None}


def log_messages(conn: Connection[Any], rows: list[dict[str, Any]]) -> None:
    """Rows of (platform_id: the inferior platform, direction 'up'/'down', link, msg_id, data_type, decoded,
    raw_hex)."""
    if rows:
        conn.cursor().executemany(_LOG, [{**r, "decoded": Jsonb(r["decoded"])} for r in rows])


_IN_SCOPE = """
SELECT p.id, p.enterprise_id, p.centre_id FROM inferior_platform p JOIN enterprise e ON e.id = p.enterprise_id
WHERE p.id = %(id)s AND e.path LIKE %(prefix)s"""


def platform_in_scope(conn: Connection[Any], platform_id: int, path_prefix: str) -> dict[str, Any] | None:
    """id, enterprise_id, centre_id of the platform when it lies in the scope of ``path_prefix`` (a LIKE prefix,
    warehouse.queries.scope.like_prefix), else None."""
    return conn.cursor(row_factory=dict_row).execute(_IN_SCOPE, {"id": platform_id, "prefix": path_prefix}).fetchone()


# -- operators' requests ---------------------------------------------------------------------------

# A request waits its answer_minutes; a message (no answer time in the standard) waits MESSAGE_WAIT_MINUTES for
# its 0x1302. Counted from now until it is sent, then from sending (mark_request_sent); past it: expired.
MESSAGE_WAIT_MINUTES = 10

_QUEUE = """
INSERT INTO inferior_request (inferior_platform_id, enterprise_id, kind, object_type, object_id, content,
                              answer_minutes, created_by, deadline)
VALUES (%(platform_id)s, %(enterprise_id)s, %(kind)s, %(object_type)s, %(object_id)s, %(content)s,
        %(answer_minutes)s, %(created_by)s, now() + make_interval(mins => COALESCE(%(answer_minutes)s::int,
                                                                               %(wait_minutes)s)))
RETURNING id"""


def queue_request(conn: Connection[Any], row: dict[str, Any]) -> int:
    found = conn.execute(_QUEUE, {"wait_minutes": MESSAGE_WAIT_MINUTES, **row}).fetchone()
    assert found is not None
    return int(found[0])


_QUEUED = """
SELECT id, kind, object_type, object_id, content, answer_minutes FROM inferior_request
WHERE inferior_platform_id = %(platform_id)s AND state = 'queued' AND (deadline IS NULL OR deadline > now())
ORDER BY id"""


def queued_requests(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(_QUEUED, {"platform_id": platform_id}).fetchall()


def mark_request_sent(conn: Connection[Any], request_id: int, link: str, sn: int, sent_at: datetime) -> None:
    """The answer time counts from sending: the deadline moves by the time the request waited in the queue."""
    conn.execute("UPDATE inferior_request SET state = 'sent', link = %(link)s, sn = %(sn)s, sent_at = %(at)s, "
                 "deadline = %(at)s + (deadline - created_at) WHERE id = %(id)s AND state = 'queued'",
                 {"id": request_id, "link": link, "sn": sn, "at": sent_at})


_EXPIRE = """
UPDATE inferior_request SET state = 'expired'
WHERE state IN ('queued', 'sent') AND deadline <= %(at)s
RETURNING id, inferior_platform_id, kind"""


def expire_requests(conn: Connection[Any], at: datetime) -> list[tuple[int, int, str]]:
    """Requests queued or sent and unanswered at their deadline become ``expired``: (id, platform id, kind) each."""
    return [(int(r[0]), int(r[1]), str(r[2])) for r in conn.execute(_EXPIRE, {"at": at}).fetchall()]


# An answer names its request by INFO_ID (2011, and every 0x1302; INFO_ID is the request's id) or by the
# request's SN (a 2019 0x1301's SOURCE_MSG_SN). Only a sent request of that platform and kind is answered, once,
# and only before its deadline (an answer after it matches nothing: the request has expired).
_ANSWER = """
UPDATE inferior_request SET state = 'answered', answer = %(answer)s, responder = %(responder)s,
       answered_at = %(at)s, latency_ms = GREATEST(0, (extract(epoch FROM %(at)s - sent_at) * 1000)::int)
WHERE inferior_platform_id = %(platform_id)s AND kind = %(kind)s AND state = 'sent'
  AND (deadline IS NULL OR deadline > %(at)s)
  AND ((%(sn)s::bigint IS NOT NULL AND sn = %(sn)s) OR (%(sn)s::bigint IS NULL AND id = %(info_id)s))
RETURNING id, latency_ms"""


def answer_request(conn: Connection[Any], platform_id: int, kind: str, *, info_id: int | None, sn: int | None,
                   answer: str | None, responder: str | None, at: datetime) -> tuple[int, int] | None:
    """(request id, latency in ms) of the request answered, or None when none matches."""
    row = conn.execute(_ANSWER, {"platform_id": platform_id, "kind": kind, "info_id": info_id, "sn": sn,
                                 "answer": answer, "responder": responder, "at": at}).fetchone()
    return None if row is None else (int(row[0]), int(row[1]))


# -- live video of exchange vehicles (migration 0066) --------------------------------------------------------------

_VEHICLE_IN_SCOPE = """
SELECT v.id, v.inferior_platform_id, v.enterprise_id, v.plate, v.plate_colour FROM exchange_vehicle v
JOIN enterprise e ON e.id = v.enterprise_id WHERE v.id = %(id)s AND e.path LIKE %(prefix)s"""


def vehicle_in_scope(conn: Connection[Any], vehicle_id: int, path_prefix: str) -> dict[str, Any] | None:
    return conn.cursor(row_factory=dict_row).execute(_VEHICLE_IN_SCOPE, {"id": vehicle_id,
                                                                         "prefix": path_prefix}).fetchone()


_QUEUE_VIDEO = """
INSERT INTO exchange_video_pull (inferior_platform_id, enterprise_id, vehicle_id, kind, channel, av_type, start_time,
                                 end_time, stream_type, mem_type, created_by, deadline)
VALUES (%(platform_id)s, %(enterprise_id)s, %(vehicle_id)s, %(kind)s, %(channel)s, %(av_type)s, %(start)s, %(end)s,
        %(stream_type)s, %(mem_type)s, %(created_by)s, now() + make_interval(secs => %(wait_s)s))
RETURNING id"""


def queue_video(conn: Connection[Any], row: dict[str, Any]) -> int:
    """``row``: platform_id, enterprise_id, vehicle_id, channel, av_type, created_by, wait_s (until it expires); a
    playback's kind, start, end, stream_type and mem_type (a live request's default to live, none and 0)."""
    found = conn.execute(_QUEUE_VIDEO, {"kind": "live", "start": None, "end": None, "stream_type": 0, "mem_type": 0,
                                        **row}).fetchone()
    assert found is not None
    return int(found[0])


# the columns every statement below answers (exchange/superior/video.py reads them by these names)
_VIDEOS_IN_STATE = """
SELECT r.id, r.inferior_platform_id AS platform_id, r.enterprise_id, r.vehicle_id, v.plate, v.plate_colour, r.kind,
r.channel, r.av_type, r.start_time, r.end_time, r.stream_type, r.mem_type, r.state, r.stream_id,
p.authorize_code_1 AS code
FROM exchange_video_pull r JOIN exchange_vehicle v ON v.id = r.vehicle_id
JOIN inferior_platform p ON p.id = r.inferior_platform_id
WHERE (%(every)s OR r.inferior_platform_id = ANY(%(platforms)s)) AND r.state = %(state)s
  AND (r.state <> 'queued' OR r.deadline > now())
ORDER BY r.id"""


def _videos_in_state(conn: Connection[Any], platform_ids: list[int] | None, state: str) -> list[dict[str, Any]]:
    """The requests of those platforms (None: of every platform) in ``state`` (a queued one only before its
    deadline), oldest first."""
    return conn.cursor(row_factory=dict_row).execute(_VIDEOS_IN_STATE, {
        "every": platform_ids is None, "platforms": platform_ids or [], "state": state}).fetchall()


def queued_videos(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    """The platform's queued video requests with the vehicle's plate and colour and the code to present."""
    return _videos_in_state(conn, [platform_id], "queued")


def mark_video_sent(conn: Connection[Any], request_id: int, link: str, sn: int, sent_at: datetime) -> None:
    conn.execute("UPDATE exchange_video_pull SET state = 'sent', link = %(link)s, sn = %(sn)s, sent_at = %(at)s"
                 " WHERE id = %(id)s AND state = 'queued'", {"id": request_id, "link": link, "sn": sn, "at": sent_at})


# 0x1801 (0x1A01) names no request: it answers the oldest sent, unanswered live (playback) request of that platform
# for that vehicle.
_ANSWER_VIDEO = """
UPDATE exchange_video_pull r SET answered_at = %(at)s, result = %(result)s, server_ip = %(ip)s,
       server_port = %(port)s
FROM exchange_vehicle v, inferior_platform p
WHERE r.id = (SELECT x.id FROM exchange_video_pull x JOIN exchange_vehicle y ON y.id = x.vehicle_id
              WHERE x.inferior_platform_id = %(platform_id)s AND y.plate = %(plate)s AND y.plate_colour = %(colour)s
                AND x.kind = %(kind)s AND x.state = 'sent' AND x.answered_at IS NULL AND x.deadline > %(at)s
              ORDER BY x.id LIMIT 1)
  AND v.id = r.vehicle_id AND p.id = r.inferior_platform_id
RETURNING r.id, r.inferior_platform_id AS platform_id, r.enterprise_id, r.vehicle_id, v.plate, v.plate_colour, r.kind,
r.channel, r.av_type, r.start_time, r.end_time, r.stream_type, r.mem_type, r.state, r.stream_id,
p.authorize_code_1 AS code"""


def answer_video(conn: Connection[Any], platform_id: int, plate: str, colour: int, result: int, server_ip: str | None,
                 server_port: int | None, at: datetime, kind: str = "live") -> dict[str, Any] | None:
    """The request a 0x1801 (``kind`` live) or 0x1A01 (playback) answers, with its result and address kept, or
    None when none waits."""
    return conn.cursor(row_factory=dict_row).execute(_ANSWER_VIDEO, {
        "platform_id": platform_id, "plate": plate, "colour": colour, "result": result, "ip": server_ip,
        "port": server_port, "at": at, "kind": kind}).fetchone()


def video_playing(conn: Connection[Any], request_id: int, stream_id: str) -> None:
    conn.execute("UPDATE exchange_video_pull SET state = 'playing', stream_id = %(stream)s WHERE id = %(id)s"
                 " AND state = 'sent'", {"id": request_id, "stream": stream_id})


# exchange_video_pull.error (migration 0067): why a request failed or ended early, a code the console translates
NO_CODE, MEDIA_UNAVAILABLE, ADDRESS_REFUSED, STOPPED = "no_code", "media_unavailable", "address_refused", "stopped"
PLATFORM_DISABLED = "platform_disabled"


def video_closed(conn: Connection[Any], request_id: int, state: str, error: str | None, at: datetime) -> None:
    """A request ``failed`` or ``ended``; ``error`` is None or one of the codes above."""
    conn.execute("UPDATE exchange_video_pull SET state = %(state)s, error = %(error)s, ended_at = %(at)s"
                 " WHERE id = %(id)s AND state IN ('queued', 'sent', 'playing')",
                 {"id": request_id, "state": state, "error": error, "at": at})


def playing_videos(conn: Connection[Any]) -> list[dict[str, Any]]:
    """Every platform's playing requests (a disabled platform's too: their pulls are ended)."""
    return _videos_in_state(conn, None, "playing")


def expire_videos(conn: Connection[Any], at: datetime) -> list[int]:
    """Requests queued or sent and unanswered at their deadline: ``expired`` (their ids)."""
    return [int(r[0]) for r in conn.execute(
        "UPDATE exchange_video_pull SET state = 'expired', ended_at = %(at)s WHERE state IN ('queued', 'sent')"
        " AND answered_at IS NULL AND deadline <= %(at)s RETURNING id", {"at": at}).fetchall()]


_VIDEO_IN_SCOPE = """
SELECT r.id, r.enterprise_id AS "enterpriseId", r.vehicle_id AS "vehicleId", v.plate, v.plate_colour AS "plateColor",
       r.kind, r.channel AS "channelId", r.av_type AS "avItemType", r.start_time AS "startTime",
       r.end_time AS "endTime", r.stream_type AS "streamType", r.mem_type AS "memType", r.state, r.result, r.error, r.stream_id AS "streamId",
       r.server_ip AS "serverIp", r.server_port AS "serverPort",
       r.created_at AS "createdAt", r.sent_at AS "sentAt", r.answered_at AS "answeredAt", r.ended_at AS "endedAt",
       r.deadline
FROM exchange_video_pull r JOIN exchange_vehicle v ON v.id = r.vehicle_id JOIN enterprise e ON e.id = r.enterprise_id
WHERE r.id = %(id)s AND e.path LIKE %(prefix)s"""


def video_in_scope(conn: Connection[Any], request_id: int, path_prefix: str) -> dict[str, Any] | None:
    """A video request as the console reads it, when it lies in the scope of ``path_prefix``."""
    return conn.cursor(row_factory=dict_row).execute(_VIDEO_IN_SCOPE, {"id": request_id,
                                                                       "prefix": path_prefix}).fetchone()
