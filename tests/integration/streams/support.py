"""Helpers for the streams integration tests: devices in the database, a worker subprocess, Kafka I/O."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psycopg

from fleet.settings import REPO_ROOT
from fleet.topics import DEVICE_SESSIONS, GB32960_UPLINK, JT808_SENT, JT808_UPLINK
from streams.payloads import Terminal
from tests.support.processes import ServiceProcess

WORKER_TOPICS = (JT808_UPLINK, DEVICE_SESSIONS, JT808_SENT, GB32960_UPLINK)


def insert_terminals(db_url: str, count: int, *, enterprise_name: str = "streams-test") -> list[Terminal]:
    """An enterprise with ``count`` cars, each with one device (unique phones). Minimal rows only."""
    tag = secrets.token_hex(3)
    with psycopg.connect(db_url, autocommit=True) as conn:
        ent_id = conn.execute(
            "INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
            (f"{enterprise_name} {tag}", enterprise_name)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent_id}/", ent_id))
        out = []
        for index in range(count):
            car_id = conn.execute(
                "INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                (ent_id, f"T{tag}{index:03d}")).fetchone()[0]  # type: ignore[index]
            phone = f"9{int(tag, 16):08d}{index:03d}"[-12:]
            device_id = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn, state) VALUES (%s, %s, %s, %s, 2)"
                " RETURNING id", (ent_id, car_id, phone, f"SN{tag}{index}")).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device_id, car_id))
            out.append(Terminal(phone, device_id, car_id, ent_id))
        return out


def commit_group_at_end(bootstrap: str, group_id: str, topics: Iterable[str] = WORKER_TOPICS) -> None:
    """Make ``group_id`` start at the current end of ``topics`` (a new worker skips older tests' data)."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group_id, enable_auto_commit=False)
    try:
        tps = [TopicPartition(t, p) for t in topics for p in sorted(consumer.partitions_for_topic(t) or ())]
        ends = consumer.end_offsets(tps)
        consumer.commit({tp: OffsetAndMetadata(off, "", -1) for tp, off in ends.items()})
    finally:
        consumer.close()


class Producer:
    def __init__(self, bootstrap: str) -> None:
        from kafka import KafkaProducer

        self._producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)

    def send(self, topic: str, key: str, value: dict[str, Any] | bytes) -> None:
        raw = value if isinstance(value, bytes) else json.dumps(value).encode()
        self._producer.send(topic, key=key.encode(), value=raw)

    def flush(self) -> None:
        self._producer.flush(timeout=30)

    def close(self) -> None:
        self._producer.close(timeout=10)


class TopicReader:
    """Reads a topic from its current end (created before the action under test)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        from kafka import KafkaConsumer, TopicPartition

        self._consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        tps = [TopicPartition(topic, p) for p in sorted(self._consumer.partitions_for_topic(topic) or ())]
        self._consumer.assign(tps)
        self._consumer.seek_to_end(*tps)
        for tp in tps:
            self._consumer.position(tp)

    def read_until(self, done: Callable[[list[dict[str, Any]]], bool], timeout_s: float = 30) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not done(records):
            for batch in self._consumer.poll(timeout_ms=500).values():
                records.extend(json.loads(r.value) for r in batch)
        return records

    def close(self) -> None:
        self._consumer.close()


class Worker(ServiceProcess):
    """``python -m streams worker`` as a subprocess with its own consumer group and data dir."""

    def __init__(self, env: dict[str, str], tmp: Path, app_id: str, **settings: Any) -> None:
        self.log_file = tmp / f"{app_id}.log"
        self.env = {
            **env,
            "FLEET_STREAMS_APP_ID": app_id,
            "FLEET_STREAMS_DATA_DIR": str(tmp / "faust"),
            "FLEET_STREAMS_WEB_ENABLED": "false",
            "FLEET_STREAMS_LOG_LEVEL": "info",
            "FLEET_STREAMS_LOG_FILE": str(self.log_file),
            **{f"FLEET_STREAMS_{k.upper()}": str(v) for k, v in settings.items()},
        }

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "streams", "worker"], cwd=REPO_ROOT, env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def wait_for(predicate: Callable[[], Any], timeout_s: float, what: str, worker: Worker | None = None) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    detail = f"\n--- worker log ---\n{worker.log_tail()}" if worker else ""
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}{detail}")


def query(db_url: str, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()

