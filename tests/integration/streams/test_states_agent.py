from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg

from fleet.topics import CONSOLE_EVENTS, DEVICE_SESSIONS, JT808_UPLINK
from streams import payloads
from warehouse.queries.terminal_session import terminal_session_address

from .support import Producer, TopicReader, Worker, insert_terminals, query, wait_for


def test_sessions_acc_and_business_state_reach_the_database_and_the_console(
        worker: Worker, producer: Producer, pg_url: str, kafka_bootstrap: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    reader = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    t0 = datetime.now(UTC).replace(microsecond=0)
    try:
        producer.send(DEVICE_SESSIONS, term.phone, payloads.session(term, online=True, at=t0, connection_id="c9"))
        producer.flush()
        wait_for(lambda: query(pg_url, "SELECT state FROM device WHERE id = %s", (term.device_id,)) == [(3,)],
                 30, "device online", worker)
        for i, (speed, acc) in enumerate([(30.0, True), (35.0, True), (0.0, True), (0.0, False)]):
            producer.send(JT808_UPLINK, term.phone, payloads.location_report(
                term, fix_at=t0 + timedelta(seconds=i + 1), speed_kmh=speed, acc_on=acc))
        producer.flush()
        acc_log = "SELECT create_time, state FROM acc_state_log WHERE device_id = %s ORDER BY create_time"
        wait_for(lambda: len(query(pg_url, acc_log, (term.device_id,))) == 2, 30, "ACC transitions", worker)
        producer.send(DEVICE_SESSIONS, term.phone, payloads.session(
            term, online=False, at=t0 + timedelta(seconds=10), connection_id="c9", reason="logout"))
        producer.flush()
        wait_for(lambda: query(pg_url, "SELECT state FROM device WHERE id = %s", (term.device_id,)) == [(2,)],
                 30, "device offline", worker)
        events = reader.read_until(lambda rs: any(
            r["kind"] == "push" and r["push"]["type"] == 6 and r["push"]["data"]["deviceId"] == term.device_id
            and r["push"]["data"]["bizState"] == 0 for r in rs), timeout_s=20)
    finally:
        reader.close()

    assert query(pg_url, acc_log, (term.device_id,)) == [(t0 + timedelta(seconds=1), 1), (t0 + timedelta(seconds=4), 0)]
    biz = query(pg_url, "SELECT state FROM biz_state_log WHERE device_id = %s ORDER BY create_time", (term.device_id,))
    assert [s for (s,) in biz] == [4, 1, 2, 3, 0]  # no signal, driving, parked, engine off, offline
    assert query(pg_url, "SELECT state, reason, connection_id FROM device_online_log WHERE device_id = %s"
                         " ORDER BY at", (term.device_id,)) == [(1, "auth", "c9"), (0, "logout", "c9")]
    assert query(pg_url, "SELECT online_time, offline_time, acc, biz_state FROM device WHERE id = %s",
                 (term.device_id,)) == [(t0, t0 + timedelta(seconds=10), 0, 0)]

    mine = [r for r in events if r["enterprise_id"] == term.enterprise_id]
    assert all(r["enterprise_path"] == f"/{term.enterprise_id}/" for r in mine)
    pushes = [r["push"] for r in mine if r["kind"] == "push"]
    assert [p["data"]["state"] for p in pushes if p["type"] == 1] == [1, 0]
    assert pushes[0]["data"]["plateNumber"].startswith("T")
    assert [p["data"]["bizState"] for p in pushes if p["type"] == 6] == [4, 1, 2, 3, 0]
    live = [dict(zip(r["fields"], row, strict=True)) for r in mine if r["kind"] == "positions" for row in r["rows"]]
    assert live and all(p["deviceId"] == term.device_id and isinstance(p["sentAt"], int) and p["sentAt"] > 0 for p in live)


def test_online_session_address_is_kept_for_the_media_servers_and_cleared_offline(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    t0 = datetime.now(UTC).replace(microsecond=0)

    def address() -> str | None:
        with psycopg.connect(pg_url) as conn:
            return terminal_session_address(conn, term.device_id)

    producer.send(DEVICE_SESSIONS, term.phone, payloads.session(
        term, online=True, at=t0, connection_id="c1", peer="203.0.113.9:50123"))
    producer.flush()
    wait_for(lambda: address() == "203.0.113.9", 30, "session address kept", worker)
    producer.send(DEVICE_SESSIONS, term.phone, payloads.session(
        term, online=False, at=t0 + timedelta(seconds=5), connection_id="c1", reason="closed"))
    producer.flush()
    wait_for(lambda: address() is None, 30, "session address cleared", worker)
