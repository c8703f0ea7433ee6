"""The live log (platform-spec §2 logs: live, with detail) and the traffic-control alarms' rows, over the demo's
seeded sessions and night alarms (warehouse/demo_events_seed.py) in the real PostgreSQL: the ``liveLog`` list and
its detail ``GET /api/log/live/{id}.json`` answer the database's values inside the caller's scope only, the
writes are idempotent, and the alarm list's condition ``key.eq p_night`` finds the seeded alarm."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from protocols.china_time import CHINA_TZ
from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect
from warehouse.demo_events_seed import seed_live_sessions, seed_night_alarms
from warehouse.queries import live_sessions

Login = Callable[[str], dict[str, str]]
NOW = datetime(2026, 2, 11, 4, 0, tzinfo=UTC)  # 12:00 UTC+8: the demo sessions are on 2026-02-10 (UTC+8)


@pytest.fixture(scope="module")
def seeded(pg_url: str, demo: Demo) -> Iterator[dict[str, Any]]:
    night_fix = datetime(2026, 2, 11, 3, 10, tzinfo=CHINA_TZ)  # inside the night window before NOW
    with connect(pg_url) as conn:
        inserted = conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                                " VALUES (%s, %s, %s, %s, 113.3, 23.1, 61) ON CONFLICT DO NOTHING RETURNING 1",
                                (demo.a.device_id, night_fix, demo.a.car_id, demo.a.enterprise_id)).fetchone()
        first = seed_live_sessions(conn, NOW), seed_night_alarms(conn, NOW)
        again = seed_live_sessions(conn, NOW), seed_night_alarms(conn, NOW)
        conn.commit()
        sessions = conn.execute(
            "SELECT s.id, s.enterprise_id, s.bytes_in, s.duration_s, s.user_name, c.plate_number FROM live_session s"
            " JOIN car c ON c.id = s.car_id WHERE s.request_time >= %s AND s.request_time < %s ORDER BY s.id",
            (NOW - timedelta(days=2), NOW)).fetchall()
    yield {"first": first, "again": again, "sessions": sessions, "night_fix": night_fix}
    if inserted:  # the module's night fix leaves the shared demo track as it found it (other files count its points)
        with connect(pg_url) as conn:
            conn.execute("DELETE FROM gps WHERE device_id = %s AND fix_at = %s", (demo.a.device_id, night_fix))
            conn.commit()


def _rows(client: FlaskClient, headers: dict[str, str], body: dict[str, Any]) -> list[dict[str, Any]]:
    reply = client.post("/api/common/query/liveLog.json", headers=headers, json=body)
    assert reply.status_code == 200, reply.json
    return list(reply.json["data"]["list"])  # type: ignore[index]


def _day() -> dict[str, Any]:
    return {"requestTime.gte": (NOW - timedelta(days=2)).isoformat(), "requestTime.lt": NOW.isoformat()}


def test_the_demo_seed_writes_sessions_and_night_alarms_once(seeded: dict[str, Any], demo: Demo) -> None:
    sessions, alarms = seeded["first"]
    assert sessions >= 3 and alarms >= 1
    assert seeded["again"] == (0, 0)
    assert demo.enterprises["a"] in {row[1] for row in seeded["sessions"]}  # A has the demo's video vehicles


def test_live_log_lists_the_callers_sessions_with_their_values(client: FlaskClient, login: Login, demo: Demo,
                                                               seeded: dict[str, Any]) -> None:
    rows = _rows(client, login("admin_a"), _day())
    mine = [s for s in seeded["sessions"] if s[1] == demo.enterprises["a"]]
    assert sorted(r["id"] for r in rows) == sorted(s[0] for s in mine)
    by_id = {r["id"]: r for r in rows}
    for session_id, _, bytes_in, duration_s, user_name, plate in mine:
        row = by_id[session_id]
        assert (row["bytesIn"], row["durationS"], row["userName"], row["plateNumber"]) == (
            bytes_in, duration_s, user_name, plate)
        assert row["endReason"] == "user" and row["kind"] == "live" and row["viewers"] == 1
        assert row["bytesSent"] == bytes_in  # the one viewer got every byte
    newest_first = [r["requestTime"] for r in rows]
    assert newest_first == sorted(newest_first, reverse=True)


def test_live_log_of_another_enterprise_is_not_listed_and_its_detail_is_404(
        client: FlaskClient, login: Login, demo: Demo, seeded: dict[str, Any]) -> None:
    a_ids = {s[0] for s in seeded["sessions"] if s[1] == demo.enterprises["a"]}
    assert not a_ids & {r["id"] for r in _rows(client, login("admin_b"), _day())}
    reply = client.get(f"/api/log/live/{min(a_ids)}.json", headers=login("admin_b"))
    assert reply.status_code == 404 and reply.json["code"] == 404  # type: ignore[index]
    # the parent enterprise sees its subsidiaries' sessions
    assert a_ids <= {r["id"] for r in _rows(client, login("admin"), _day())}


def test_live_log_needs_the_video_log_permission(client: FlaskClient, pg_url: str, demo: Demo,
                                                 seeded: dict[str, Any]) -> None:
    session_id = next(s[0] for s in seeded["sessions"] if s[1] == demo.enterprises["a"])
    without = make_user(pg_url, demo.enterprises["a"], {"car": ["query"]})
    headers = bearer(client, without.name)
    assert client.post("/api/common/query/liveLog.json", headers=headers, json=_day()).status_code == 403
    assert client.get(f"/api/log/live/{session_id}.json", headers=headers).status_code == 403
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"videoLog": ["query"]}).name)
    assert client.post("/api/common/query/liveLog.json", headers=lister, json=_day()).status_code == 200
    assert client.get(f"/api/log/live/{session_id}.json", headers=lister).status_code == 403  # the detail: get
    allowed = bearer(client, make_user(pg_url, demo.enterprises["a"], {"videoLog": ["query", "get"]}).name)
    assert client.get(f"/api/log/live/{session_id}.json", headers=allowed).status_code == 200


def test_live_log_detail_is_the_sessions_timeline(client: FlaskClient, login: Login, demo: Demo,
                                                  seeded: dict[str, Any]) -> None:
    session_id = next(s[0] for s in seeded["sessions"] if s[1] == demo.enterprises["a"])
    reply = client.get(f"/api/log/live/{session_id}.json", headers=login("admin_a"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    session = data["session"]
    assert session["id"] == session_id and session["endReason"] == "user"
    assert [c["msgId"] for c in data["commands"]] == [0x9101, 0x9102]
    assert all(c["state"] == "answered" for c in data["commands"])
    assert len(data["viewers"]) == 1 and data["viewers"][0]["bytesSent"] == session["bytesIn"]
    events = [e["event"] for e in data["timeline"]]
    assert events[:4] == ["requested", "command", "answered", "firstFrame"]
    assert "ended" in events and events.count("command") == 2 and "viewerJoined" in events
    assert "viewerLeft" in events and "lastHeartbeat" in events
    times = [e["time"] for e in data["timeline"]]
    assert times == sorted(times)


def test_live_log_detail_of_a_missing_session_is_404(client: FlaskClient, login: Login) -> None:
    assert client.get("/api/log/live/999999999.json", headers=login("admin_a")).status_code == 404
    # beyond bigint: a clear client error, never a 500
    assert client.get(f"/api/log/live/{2**70}.json", headers=login("admin_a")).status_code in (400, 404)


def test_a_replayed_or_late_write_never_blanks_nor_lowers_a_session(pg_url: str, demo: Demo) -> None:
    start = datetime(2026, 1, 5, 1, 0, tzinfo=UTC)
    row = {"session_key": "00000000-0000-4000-8000-000000000056", "enterprise_id": demo.a.enterprise_id,
           "device_id": demo.a.device_id, "car_id": demo.a.car_id, "user_id": None, "stream_id": "x-1-live",
           "kind": "live", "channel": 1, "data_type": 0, "stream_type": 1, "request_time": start,
           "first_frame_time": None, "end_time": None, "duration_s": None, "bytes_in": 0, "frames": 0,
           "heartbeats": 0, "last_heartbeat_time": None, "peak_viewers": 0, "end_reason": None}
    ended = {**row, "first_frame_time": start + timedelta(seconds=1), "end_time": start + timedelta(seconds=61),
             "duration_s": 60, "bytes_in": 5000, "frames": 1500, "heartbeats": 12, "peak_viewers": 2,
             "end_reason": "idle"}
    with connect(pg_url) as conn:
        live_sessions.record(conn, ended)
        live_sessions.record(conn, row)  # the start, arriving late
        live_sessions.record(conn, ended)  # and the end replayed
        found = conn.execute("SELECT count(*), max(bytes_in), max(duration_s), max(end_reason), max(peak_viewers),"
                             " bool_and(first_frame_time IS NOT NULL) FROM live_session WHERE session_key = %s",
                             (row["session_key"],)).fetchone()
        conn.rollback()
    assert found == (1, 5000, 60, "idle", 2, True)


def test_the_traffic_control_list_condition_finds_the_night_alarm_in_scope_only(
        client: FlaskClient, login: Login, demo: Demo, seeded: dict[str, Any]) -> None:
    body = {"key.eq": "p_night", "deviceId.eq": demo.a.device_id}
    reply = client.post("/api/common/query/alarm.json", headers=login("admin_a"), json=body)
    assert reply.status_code == 200, reply.json
    rows = reply.json["data"]["list"]  # type: ignore[index]
    fix = seeded["night_fix"].astimezone(UTC)
    matched = [r for r in rows if datetime.fromisoformat(r["startTime"].replace("Z", "+00:00")) == fix]
    assert len(matched) == 1 and (matched[0]["type"], matched[0]["state"]) == (3, 0) and matched[0]["plateNumber"]
    other = client.post("/api/common/query/alarm.json", headers=login("admin_b"), json=body)
    assert other.json["data"]["list"] == []  # type: ignore[index]
