"""The demo's live log and traffic-control alarms (``fleet up`` after the generated history), so both screens
have rows before anyone opens a live video or drives at night:

- ``seed_live_sessions``: for the first video vehicles of each enterprise, a live video session yesterday
  (UTC+8) as the media server records it (migration 0056: ``live_session`` with its 0x9101 / 0x9102 command
  rows and its viewers' ``video_log`` rows), opened by the enterprise's first user, stopped by that user.
- ``seed_night_alarms``: for each enterprise's first vehicles moving in last night's window (02:30-04:30 UTC+8, inside the rule's
  02:00-05:00), a night driving alarm (``p_night``, the platform's time-restriction rule: the traffic-control
  alarms of platform-spec §2) at their first moving fix there, unhandled.

Both are idempotent: a session has a key derived from its vehicle and day (its rows are written once, with the
session), an alarm the alarm table's natural key (device, key, start). The caller commits.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from psycopg import Connection

from fleet.alarm_catalog import AlarmKind
from fleet.platform_alarm_rules import DEFAULT_RULES
from protocols.china_time import CHINA_TZ
from protocols.jt808 import catalogue as jt808_catalogue
from warehouse.queries import live_sessions

SESSION_NAMESPACE = uuid.UUID("8d6e1f0c-6a0e-4b55-9c8e-1078a1b2c3d4")
VEHICLES_PER_ENTERPRISE = 3
NIGHT_VEHICLES = 2  # per enterprise: each one's traffic-control list has rows
BYTES_PER_S = 48_000  # a sub stream's ~384 kbit/s
MOVING_KMH = 5.0  # the rule fires on moving fixes only (streams/platform_alarms.py MOVING_KMH)


def _video_devices(conn: Connection[Any]) -> list[tuple[Any, ...]]:
    return conn.execute(
        """SELECT d.id, d.enterprise_id, d.car_id, d.phone,
                  (SELECT u.id FROM app_user u WHERE u.enterprise_id = d.enterprise_id AND u.record_state = 1
                   ORDER BY u.id LIMIT 1)
           FROM (SELECT d.*, row_number() OVER (PARTITION BY d.enterprise_id ORDER BY d.id) AS n
                 FROM device d WHERE d.has_video = 1 AND d.record_state = 1 AND d.car_id IS NOT NULL) d
           WHERE d.n <= %s ORDER BY d.id""", (VEHICLES_PER_ENTERPRISE,)).fetchall()


def seed_live_sessions(conn: Connection[Any], now: datetime) -> int:
    """Yesterday's demo live sessions; returns how many were new."""
    day = (now.astimezone(CHINA_TZ) - timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)
    new = 0
    for n, (device_id, enterprise_id, car_id, phone, user_id) in enumerate(_video_devices(conn)):
        key = str(uuid.uuid5(SESSION_NAMESPACE, f"{device_id}:{day.date().isoformat()}"))
        if conn.execute("SELECT 1 FROM live_session WHERE session_key = %s", (key,)).fetchone():
            continue
        channel, watched_s = 1 + n % 2, 120 + 45 * n
        requested = day + timedelta(minutes=17 * n)
        first_frame = requested + timedelta(seconds=2)
        ended = first_frame + timedelta(seconds=watched_s)
        stream_id = f"{device_id}-{channel}-live"
        live_sessions.record(conn, {
            "session_key": key, "enterprise_id": enterprise_id, "device_id": device_id, "car_id": car_id,
            "user_id": user_id, "stream_id": stream_id, "kind": "live", "channel": channel, "data_type": 0,
            "stream_type": 1, "request_time": requested, "first_frame_time": first_frame, "end_time": ended,
            "duration_s": watched_s, "bytes_in": BYTES_PER_S * watched_s, "frames": 25 * watched_s,
            "heartbeats": watched_s // 5, "last_heartbeat_time": ended - timedelta(seconds=3), "peak_viewers": 1,
            "end_reason": "user"})
        user_name = conn.execute("SELECT COALESCE(name, user_name) FROM app_user WHERE id = %s",
                                 (user_id,)).fetchone()
        for msg_id, at, payload in (
                (jt808_catalogue.REALTIME_AV_REQUEST, requested, {"channelId": channel, "dataType": 0, "streamType": 1, "streamId": stream_id}),
                (jt808_catalogue.AV_TRANSMISSION_CONTROL, ended, {"channelId": channel, "command": 0, "commadType": 0, "streamType": 0,
                                 "streamId": stream_id})):
            conn.execute(
                """INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, payload, created_by,
                                        created_by_name, state, result, created_at, sent_at, answered_at, updated_at)
                   VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s, 'answered', 0, %s, %s, %s, %s)""",
                (enterprise_id, car_id, device_id, phone, msg_id, _json(payload), user_id,
                 user_name[0] if user_name else None, at, at + timedelta(milliseconds=40),
                 at + timedelta(milliseconds=400), at + timedelta(milliseconds=400)))
        conn.execute(
            """INSERT INTO video_log (enterprise_id, device_id, car_id, user_id, user_name, stream_id, kind, channel,
                                      data_type, stream_type, transport, client, start_time, end_time, duration_s,
                                      bytes_sent, end_reason, session_key)
               VALUES (%s, %s, %s, %s, %s, %s, 'live', %s, 0, 1, 'ws', '127.0.0.1:51000', %s, %s, %s, %s,
                       'stopped by the user', %s)""",
            (enterprise_id, device_id, car_id, user_id, user_name[0] if user_name else None, stream_id, channel,
             first_frame, ended, watched_s, BYTES_PER_S * watched_s, key))
        new += 1
    return new


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value)


def seed_night_alarms(conn: Connection[Any], now: datetime) -> int:
    """Last night's demo night driving alarms at fixes of the generated history; returns how many were new."""
    night = now.astimezone(CHINA_TZ).replace(hour=DEFAULT_RULES.night_start_hour, minute=30, second=0,
                                             microsecond=0)
    if night > now:
        night -= timedelta(days=1)
    fixes = conn.execute(
        """SELECT device_id, car_id, enterprise_id, phone, plate_number, fix_at, lng, lat, speed_kmh FROM (
               SELECT first_fix.*, row_number() OVER (PARTITION BY enterprise_id ORDER BY device_id) AS nth FROM (
                   SELECT DISTINCT ON (g.device_id) g.device_id, g.car_id, g.enterprise_id, d.phone,
                          c.plate_number, g.fix_at, g.lng, g.lat, g.speed_kmh
                   FROM gps g JOIN device d ON d.id = g.device_id AND d.record_state = 1
                   LEFT JOIN car c ON c.id = g.car_id
                   WHERE g.fix_at >= %s AND g.fix_at < %s AND g.speed_kmh > %s
                   ORDER BY g.device_id, g.fix_at) first_fix) numbered
           WHERE nth <= %s ORDER BY device_id""",
        (night, night + timedelta(hours=2), MOVING_KMH, NIGHT_VEHICLES)).fetchall()
    new = 0
    details = _json({"startHour": DEFAULT_RULES.night_start_hour, "endHour": DEFAULT_RULES.night_end_hour})
    for device_id, car_id, enterprise_id, phone, plate, at, lng, lat, speed in fixes:
        row = conn.execute(
            """INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, start_time,
                                  end_time, lng, lat, speed, state, details)
               VALUES (%s, %s, %s, %s, %s, %s, 'p_night', %s, %s, %s, %s, %s, 0, %s::jsonb)
               ON CONFLICT (device_id, key, start_time) DO NOTHING RETURNING id""",
            (enterprise_id, device_id, car_id, plate, phone, int(AlarmKind.PLATFORM), at,
             at + timedelta(minutes=25), lng, lat, speed, details)).fetchone()
        new += row is not None
    return new
