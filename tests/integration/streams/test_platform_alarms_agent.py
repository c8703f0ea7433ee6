"""Platform alarm rules in the real worker (Kafka + PostgreSQL): an enterprise's overspeed rule (80 km/h
for 10 s) turns live 0x0200 fixes into one ``p_overspeed`` alarm (type 3) that starts at the fix
completing the duration, is pushed as type 2, and ends at the first fix at or below the limit; a
0x0704 backlog of overspeed adds nothing."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from streams import payloads

from .conftest import start_worker
from .support import Producer, TopicReader, commit_group_at_end, insert_terminals, query, wait_for


def test_overspeed_rule_of_the_enterprise_raises_and_ends_a_platform_alarm(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    t = insert_terminals(pg_url, 1, enterprise_name=f"platform-rules-{secrets.token_hex(3)}")[0]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO platform_alarm_rule (enterprise_id, name, overspeed_enabled, overspeed_limit_kmh,"
            " overspeed_duration_s, fatigue_enabled, fatigue_driving_s, fatigue_rest_s, parking_enabled,"
            " parking_timeout_s, night_enabled, night_start_hour, night_end_hour)"
            " VALUES (%s, 'it', true, 80, 10, true, 14400, 1200, true, 1800, false, 2, 5)", (t.enterprise_id,))
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)

    def fix(seconds: int, speed: float, seq: int) -> dict[str, Any]:
        return payloads.location_report(t, fix_at=t0 + timedelta(seconds=seconds), speed_kmh=speed, seq=seq)

    app_id = f"streams-platform-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)
    pushes = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    producer = Producer(kafka_bootstrap)
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        backlog = [payloads.location_body(fix_at=t0 - timedelta(seconds=s), speed_kmh=120.0) for s in range(60, 0, -5)]
        producer.send(JT808_UPLINK, t.phone, payloads.location_batch(t, backlog, seq=19))
        for seq, (seconds, speed) in enumerate(((0, 90.0), (5, 95.0), (9, 81.0), (10, 85.0), (12, 90.0), (15, 80.0)),
                                               start=20):
            producer.send(JT808_UPLINK, t.phone, fix(seconds, speed, seq))
        producer.flush()
        found = pushes.read_until(lambda rs: any(r.get("kind") == "push" and r["push"]["type"] == 2
                                                 and r["push"]["data"].get("deviceId") == t.device_id for r in rs), 90)
        mine = [r["push"]["data"] for r in found if r.get("kind") == "push" and r["push"]["type"] == 2
                and r["push"]["data"].get("deviceId") == t.device_id]
        assert [(p["key"], p["type"], p["speed"]) for p in mine] == [("p_overspeed", 3, 85.0)], worker.log_tail(60)

        def ended() -> list[tuple[Any, ...]]:
            return query(pg_url, "SELECT key, type, start_time, end_time, backlog, details->>'limitKmh' FROM alarm"
                         " WHERE device_id = %s ORDER BY start_time", (t.device_id,))

        rows = wait_for(lambda: (r := ended()) and r[-1][3] is not None and r, 30, "the overspeed to end", worker)
        assert rows == [("p_overspeed", 3, t0 + timedelta(seconds=10), t0 + timedelta(seconds=15), False, "80")]
    finally:
        worker.stop()
        producer.close()
        pushes.close()
