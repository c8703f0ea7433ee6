"""The alarms step in the real worker (Kafka + PostgreSQL): 0x0200 uplinks with the emergency bit rising
and falling and an ADAS item become one alarm row each, pushes 2 / 13 on console.events.v1, a 0x9208
command row + downlink; replaying the same uplinks and restarting the worker duplicates and loses nothing."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from fleet.topics import CONSOLE_EVENTS, JT808_DOWNLINK, JT808_UPLINK
from protocols.jt808 import AlarmAttachmentUploadRequest
from streams import payloads
from streams.alarm_commands import REDACTED_NUMBER
from streams.console import iso

from .conftest import start_worker
from .support import Producer, TopicReader, Worker, commit_group_at_end, insert_terminals, query


def adas_item(at: datetime) -> dict[str, Any]:
    return {"alarm_id": 9, "flag": 0, "type": 1, "level": 1, "speed_kmh": 42.0, "altitude_m": 50.0, "lat": 39.91,
            "lng": 116.39, "time": iso(at), "vehicle_status": 1,
            "alarm_no": {"terminal_id": "T123456", "time": iso(at), "seq": 3, "attachments": 2}}


def report(t: payloads.Terminal, at: datetime, flags: int, seq: int, **extras: Any) -> dict[str, Any]:
    record = payloads.location_report(t, fix_at=at, speed_kmh=42.0, alarm_flags=flags, seq=seq)
    record["message"]["body"]["extras"].update(extras)
    return record


def test_episodes_events_pushes_9208_and_no_duplicates_after_replay_and_restart(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    t = insert_terminals(pg_url, 1, enterprise_name="alarms-test")[0]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET state = 3 WHERE id = %s", (t.device_id,))  # online: 0x9208 is sent
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    first = [report(t, t0, 1, 11, adas_alarm=adas_item(t0)), report(t, t0 + timedelta(seconds=10), 1, 12)]
    app_id = f"streams-alarms-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)
    pushes, downlinks = TopicReader(kafka_bootstrap, CONSOLE_EVENTS), TopicReader(kafka_bootstrap, JT808_DOWNLINK)
    seen: list[dict[str, Any]] = []

    def mine(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r["push"] for r in records if r.get("kind") == "push" and r["push"]["type"] in (2, 13)
                and r["push"]["data"].get("deviceId") == t.device_id]

    def read_until_key(key: str, worker: Worker) -> None:
        if not any(p["data"]["key"] == key for p in seen):  # it may have come in an earlier read's batch
            found = pushes.read_until(lambda rs: any(p["data"]["key"] == key for p in mine(rs)), 90)
            seen.extend(mine(found))
        assert any(p["data"]["key"] == key for p in seen), f"no push for {key}\n{worker.log_tail(60)}"

    def rows() -> list[tuple[Any, ...]]:
        return query(pg_url, "SELECT key, type, level, start_time, end_time, backlog, message_seq, warn_uuid,"
                     " attachment_count, plate_number, id FROM alarm WHERE device_id = %s ORDER BY key, start_time",
                     (t.device_id,))

    producer = Producer(kafka_bootstrap)
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        for record in first:
            producer.send(JT808_UPLINK, t.phone, record)
        producer.flush()
        read_until_key("adas_1", worker)
        read_until_key("a0", worker)
        for record in first:  # replayed: the same rows, no pushes; a2 rising after them proves they were handled
            producer.send(JT808_UPLINK, t.phone, record)
        producer.send(JT808_UPLINK, t.phone, report(t, t0 + timedelta(seconds=15), 0b101, 13))
        producer.flush()
        read_until_key("a2", worker)
    finally:
        worker.stop()

    again = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:  # the open a0 / a2 episodes are rebuilt from their rows: the fall ends them, nothing starts twice
        producer.send(JT808_UPLINK, t.phone, first[0])
        producer.send(JT808_UPLINK, t.phone, report(t, t0 + timedelta(seconds=20), 0, 14))
        producer.send(JT808_UPLINK, t.phone, report(t, t0 + timedelta(seconds=30), 0b1000, 15))
        producer.flush()
        read_until_key("a3", again)
    finally:
        again.stop()
        producer.close()

    got = rows()
    assert [(k, ty, lv, s, e, b, seq) for k, ty, lv, s, e, b, seq, *_ in got] == [
        ("a0", 1, None, t0, t0 + timedelta(seconds=20), False, 11),
        ("a2", 1, None, t0 + timedelta(seconds=15), t0 + timedelta(seconds=20), False, 13),
        ("a3", 1, None, t0 + timedelta(seconds=30), None, False, 15),
        ("adas_1", 5, 1, t0, t0, False, 11),
    ]
    adas = got[3]
    warn_uuid, plate, adas_id = adas[7], adas[9], adas[10]
    assert len(warn_uuid) == 32 and adas[8] == 2 and plate.startswith("T")
    assert sorted((p["type"], p["data"]["key"]) for p in seen) == [(2, "a0"), (2, "a2"), (2, "a3"), (2, "adas_1"),
                                                                   (13, "adas_1")]
    adas_push = next(p["data"] for p in seen if p["type"] == 13)
    assert (adas_push["alarmId"], adas_push["warnUuid"], adas_push["plateNumber"], adas_push["level"],
            adas_push["desc"], adas_push["startTime"]) == (
        adas_id, warn_uuid, plate, 1, "一级 前向碰撞报警", int(t0.timestamp() * 1000))

    # 0x9208 through the command path: one command row (by the platform) and its downlink, not repeated
    commands = query(pg_url, "SELECT id, msg_id, created_by, created_by_name, payload, body_hex FROM command"
                     " WHERE device_id = %s", (t.device_id,))
    assert len(commands) == 1
    command_id, msg_id, created_by, by_name, payload, body_hex = commands[0]
    assert (msg_id, created_by, by_name, payload["alarmUuid"], payload["alarmId"], payload["tcpPort"]) == (
        0x9208, None, "平台", warn_uuid, adas_id, 7613)
    request = AlarmAttachmentUploadRequest.decode(bytes.fromhex(body_hex), "2013")
    assert (request.server_ip, request.tcp_port, request.alarm_uuid, request.alarm_no.terminal_id,
            request.alarm_no.seq, request.alarm_no.attachments, request.alarm_no.time) == (
        "127.0.0.1", 7613, REDACTED_NUMBER, "T123456", 3, 2, t0)  # the row does not keep the one-time number
    mine_down = downlinks.read_until(lambda rs: any(r.get("command_id") == str(command_id) for r in rs), 30)
    [down] = [r for r in mine_down if r.get("command_id") == str(command_id)]
    assert (down["msg_id"], down["phone"]) == (0x9208, t.phone.lstrip("0"))
    sent = AlarmAttachmentUploadRequest.decode(bytes.fromhex(down["body_hex"]), "2013")
    assert sent == replace(request, alarm_uuid=sent.alarm_uuid)  # the terminal gets the number, not the uuid
    assert sent.alarm_uuid not in (warn_uuid, REDACTED_NUMBER) and len(sent.alarm_uuid) == 32
    assert query(pg_url, "SELECT count(*) FROM alarm_attachment_request WHERE alarm_id = %s AND device_id = %s"
                 " AND number_sha256 = sha256(%s::bytea) AND expires_at > now()",
                 (adas_id, t.device_id, sent.alarm_uuid.encode())) == [(1,)]
    pushes.close()
    downlinks.close()


def test_0x9208_asks_a_terminal_heard_from_just_now_whose_row_is_not_online_yet(
        worker: Worker, producer: Producer, kafka_bootstrap: str, pg_url: str) -> None:
    """A terminal that logs in and reports an ADAS alarm at once: its row is still offline (the sessions
    agent has not stored its login yet; here it never gets one), but the uplink that raised the alarm proves
    the connection, so its evidence is asked for."""
    t = insert_terminals(pg_url, 1, enterprise_name="alarms-heard")[0]  # state 2: offline, as before the login
    at = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=5)
    downlinks = TopicReader(kafka_bootstrap, JT808_DOWNLINK)
    try:
        producer.send(JT808_UPLINK, t.phone, report(t, at, 0, 31, adas_alarm=adas_item(at)))
        producer.flush()
        phone = t.phone.lstrip("0")
        found = downlinks.read_until(lambda rs: any(r.get("phone") == phone for r in rs), 60)
    finally:
        downlinks.close()
    [down] = [r for r in found if r.get("phone") == phone]
    [(alarm_id, warn_uuid)] = query(pg_url, "SELECT id, warn_uuid FROM alarm WHERE device_id = %s", (t.device_id,))
    assert query(pg_url, "SELECT id, msg_id, payload->>'alarmUuid' FROM command WHERE device_id = %s",
                 (t.device_id,)) == [(int(down["command_id"]), 0x9208, warn_uuid)], worker.log_tail(40)
    number = AlarmAttachmentUploadRequest.decode(bytes.fromhex(down["body_hex"]), "2013").alarm_uuid
    assert number != warn_uuid and query(pg_url, "SELECT alarm_id FROM alarm_attachment_request WHERE number_sha256"
                                         " = sha256(%s::bytea)", (number.encode(),)) == [(alarm_id,)]
    assert down["msg_id"] == 0x9208 and alarm_id
