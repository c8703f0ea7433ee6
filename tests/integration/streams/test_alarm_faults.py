"""The alarms step failing on a batch in the real worker (Kafka + PostgreSQL) loses no alarm.

The fault is a trigger on ``alarm`` for this test's device only:
- refused as data (check_violation): the step dead-letters the device's uplinks (agent ``alarms``), the other
  steps store the fix; once the trigger is gone, ``fleet deadletters replay --step alarms --since`` stores
  the alarm, once (a second replay adds nothing);
- an outage (the server refusing with admin_shutdown): the step retries and stores the alarm once the
  database is back, nothing dead-lettered.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from click.testing import CliRunner

from fleet.cli import main as fleet_cli
from fleet.topics import DEAD_LETTER, JT808_UPLINK
from streams import payloads

from .support import Producer, TopicReader, Worker, insert_terminals, query, wait_for


def _fault(pg_url: str, device_id: int, errcode: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"""
            CREATE FUNCTION alarm_fault_{device_id}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.device_id = {device_id} THEN
                    RAISE EXCEPTION 'injected fault' USING ERRCODE = '{errcode}';
                END IF;
                RETURN NEW;
            END $$""")
        conn.execute(f"CREATE TRIGGER alarm_fault_{device_id} BEFORE INSERT ON alarm"
                     f" FOR EACH ROW EXECUTE FUNCTION alarm_fault_{device_id}()")


def _heal(pg_url: str, device_id: int) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP TRIGGER IF EXISTS alarm_fault_{device_id} ON alarm")
        conn.execute(f"DROP FUNCTION IF EXISTS alarm_fault_{device_id}()")


@pytest.fixture
def terminal(pg_url: str) -> Iterator[payloads.Terminal]:
    t = insert_terminals(pg_url, 1, enterprise_name="alarm-faults")[0]
    yield t
    _heal(pg_url, t.device_id)


def _alarms(pg_url: str, device_id: int) -> list[tuple[str, datetime]]:
    return [(key, start) for key, start in query(
        pg_url, "SELECT key, start_time FROM alarm WHERE device_id = %s ORDER BY start_time", (device_id,))]


def _report(t: payloads.Terminal, at: datetime, flags: int, seq: int) -> dict[str, object]:
    return payloads.location_report(t, fix_at=at, speed_kmh=30.0, alarm_flags=flags, seq=seq)


def test_alarms_refused_by_the_database_are_dead_lettered_and_the_replay_command_stores_them(
        worker: Worker, producer: Producer, terminal: payloads.Terminal, pg_url: str, kafka_bootstrap: str,
        stack_env: dict[str, str]) -> None:
    t = terminal
    since = datetime.now(UTC) - timedelta(seconds=1)
    at = since.replace(microsecond=0) - timedelta(minutes=5)
    _fault(pg_url, t.device_id, "23514")  # check_violation: data the database refuses
    letters = TopicReader(kafka_bootstrap, DEAD_LETTER)
    producer.send(JT808_UPLINK, t.phone, _report(t, at, 1, 1))  # the emergency bit (a0) rises
    producer.flush()

    def mine(records: list[dict[str, object]]) -> list[dict[str, object]]:
        return [r for r in records if r.get("agent") == "alarms" and t.phone in str(r.get("value"))]

    parked = mine(letters.read_until(lambda rs: bool(mine(rs)), 60))
    letters.close()
    assert len(parked) == 1, worker.log_tail(60)
    assert "injected fault" in str(parked[0]["error"])
    wait_for(lambda: query(pg_url, "SELECT 1 FROM gps WHERE device_id = %s", (t.device_id,)), 30,
             "the fix stored by the positions step", worker)
    assert _alarms(pg_url, t.device_id) == []

    _heal(pg_url, t.device_id)
    env = {k: v for k, v in stack_env.items() if k.startswith("FLEET_")}
    args = ["deadletters", "replay", "--step", "alarms", "--since", since.isoformat()]
    result = CliRunner().invoke(fleet_cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert "replayed 1 dead letters of step alarms" in result.output
    wait_for(lambda: _alarms(pg_url, t.device_id), 60, "the replayed alarm", worker)
    assert _alarms(pg_url, t.device_id) == [("a0", at)]

    again = CliRunner().invoke(fleet_cli, args, env=env)  # replaying twice stores it once
    assert again.exit_code == 0, again.output
    producer.send(JT808_UPLINK, t.phone, _report(t, at + timedelta(seconds=5), 0b101, 2))  # a2 after the replay
    producer.flush()
    wait_for(lambda: len(_alarms(pg_url, t.device_id)) == 2, 60, "a2 after the second replay", worker)
    assert [key for key, _ in _alarms(pg_url, t.device_id)] == ["a0", "a2"]


def test_a_database_outage_in_the_alarms_step_stores_the_alarm_once_it_is_back(
        worker: Worker, producer: Producer, terminal: payloads.Terminal, pg_url: str, kafka_bootstrap: str) -> None:
    t = terminal
    at = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    _fault(pg_url, t.device_id, "57P01")  # admin_shutdown: the server going away, an outage
    letters = TopicReader(kafka_bootstrap, DEAD_LETTER)
    producer.send(JT808_UPLINK, t.phone, _report(t, at, 1, 1))
    producer.flush()
    wait_for(lambda: "database unavailable" in worker.log_tail(200) or "unavailable" in worker.log_tail(200),
             60, "the alarms step retrying", worker)
    time.sleep(1.0)
    assert _alarms(pg_url, t.device_id) == []
    _heal(pg_url, t.device_id)
    wait_for(lambda: _alarms(pg_url, t.device_id), 60, "the alarm once the database is back", worker)
    assert _alarms(pg_url, t.device_id) == [("a0", at)]
    parked = [r for r in letters.read_until(lambda rs: False, 2) if t.phone in str(r.get("value"))]
    letters.close()
    assert parked == []
