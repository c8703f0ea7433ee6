"""The whole spine on the real Kafka and PostgreSQL: simulated terminals -> gateway -> Kafka ->
Faust worker -> PostgreSQL -> API, and an acknowledged position surviving a Kafka outage."""

from __future__ import annotations

import asyncio
import csv
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fleet.settings import ApiSettings, SimulatorSettings
from tests.integration.streams.support import Worker, wait_for
from tests.support.processes import GatewayProcess
from tests.support.stack import TEST_BROKER_JVM, TEST_BROKER_PROPERTIES

TERMINALS = 50


def _simulator_settings(port: int, tmp: Path) -> SimulatorSettings:
    return SimulatorSettings(gateway_host="127.0.0.1", gateway_port=port, auth_cache=tmp / "auth.json")


def _run_fleet_in_thread(settings: SimulatorSettings, terminals: int, interval_s: float,
                         duration_s: float, sent_log: Path | None = None) -> tuple[threading.Thread, dict[str, Any]]:
    from simulator.fleet import run_fleet

    out: dict[str, Any] = {}

    def target() -> None:
        out["stats"] = asyncio.run(run_fleet(settings, terminals, interval_s, duration_s, sent_log=sent_log,
                                             progress_interval_s=3600))

    thread = threading.Thread(target=target, name="simulated-fleet", daemon=True)
    thread.start()
    return thread, out


@pytest.fixture(scope="module")
def seeded(pg_url: str) -> dict[str, Any]:
    from warehouse.seed import seed_demo

    return seed_demo(pg_url, terminals=TERMINALS)


@pytest.fixture(scope="module")
def pipeline(stack_env: dict[str, str], seeded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory,
             free_port: Any) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("pipeline")
    # "latest": the uplinks earlier tests left in the shared topic are not this test's to replay.
    worker = Worker(stack_env, tmp, app_id="pipeline-test-worker", auto_offset_reset="latest")
    gateway = GatewayProcess(stack_env, free_port(), tmp / "gateway.log", gateway_id="gw-pipeline")
    worker.start()
    gateway.start()
    try:
        wait_for(lambda: "ready" in worker.log_tail(400).lower(), 90, "the worker to be ready", worker)
        yield {"gateway": gateway, "worker": worker, "tmp": tmp}
    finally:
        gateway.stop()
        worker.stop()


@pytest.fixture(scope="module")
def api(pg_url: str, stack_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    from api import create_app

    app = create_app(ApiSettings(token_secret="pipeline-test"), pg_url, var_dir=tmp_path_factory.mktemp("var"))
    return app.test_client()


def _token(client: Any, user: str) -> str:
    from warehouse.seed import DEMO_PASSWORD

    reply = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": user,
                                                            "password": DEMO_PASSWORD}).get_json()
    assert reply["code"] == 0, reply
    return str(reply["data"]["access_token"])


def _device_ids_by_phone(pg_url: str, phones: list[str]) -> dict[str, int]:
    import psycopg

    from fleet.phones import canonical_phone

    header_phone = {canonical_phone(phone): phone for phone in phones}  # device.phone is canonical
    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute("SELECT phone, id FROM device WHERE phone = ANY(%s)", (list(header_phone),)).fetchall()
    return {header_phone[phone]: int(device_id) for phone, device_id in rows}


def test_every_simulated_terminal_has_a_last_position_via_the_api_within_5_s(
    pipeline: dict[str, Any], api: Any, pg_url: str
) -> None:
    phones = [f"0138{i:08d}" for i in range(1, TERMINALS + 1)]
    device_ids = _device_ids_by_phone(pg_url, phones)
    assert len(device_ids) == TERMINALS
    headers = {"Authorization": f"Bearer {_token(api, 'admin')}"}

    settings = _simulator_settings(pipeline["gateway"].port, pipeline["tmp"])
    sent_log = pipeline["tmp"] / "sent-5s.csv"
    thread, out = _run_fleet_in_thread(settings, TERMINALS, interval_s=1.0, duration_s=12, sent_log=sent_log)
    started = time.monotonic()
    first_seen: dict[str, datetime] = {}
    while len(first_seen) < TERMINALS and time.monotonic() - started < 20:
        for phone in sorted(set(phones) - set(first_seen)):
            reply = api.get(f"/api/gps/device/{device_ids[phone]}/last.json?isParent=true", headers=headers)
            body = reply.get_json()
            assert body["code"] == 0, body
            if body["data"] is not None:
                first_seen[phone] = datetime.now(UTC)
        time.sleep(0.1)
    thread.join(timeout=60)
    missing = set(phones) - set(first_seen)
    assert not missing, f"{len(missing)} terminals without a last position: " + \
        pipeline["gateway"].log_tail() + pipeline["worker"].log_tail()
    # From each terminal's first report (its fix time, 1 s resolution, stamped when sent) to the
    # moment the API first answered with a position for it.
    first_sent: dict[str, datetime] = {}
    with sent_log.open() as f:
        for row in csv.DictReader(f):
            first_sent.setdefault(row["phone"], datetime.fromisoformat(row["fix_at"]))
    delays = {phone: (first_seen[phone] - first_sent[phone]).total_seconds() for phone in phones}
    slowest = max(delays, key=lambda phone: delays[phone])
    assert delays[slowest] <= 5.0, f"{slowest} became visible {delays[slowest]:.1f} s after its first report"
    stats = out["stats"]
    assert stats.registrations >= TERMINALS and stats.acked == stats.sent and stats.unacked == 0, stats


def test_a_subsidiary_user_sees_only_its_own_vehicles_positions(pipeline: dict[str, Any], api: Any,
                                                                 pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT d.id, e.short_name, u.user_name FROM device d JOIN enterprise e ON e.id = d.enterprise_id "
            "JOIN app_user u ON u.enterprise_id = e.id JOIN device_last l ON l.device_id = d.id "
            "WHERE d.phone LIKE '138%%' AND u.user_name IN ('admin_a', 'admin_b')").fetchall()
    by_user: dict[str, list[int]] = {}
    for device_id, _name, user in rows:
        by_user.setdefault(user, []).append(device_id)
    assert by_user.get("admin_a") and by_user.get("admin_b"), "both subsidiaries need reporting vehicles"
    headers_a = {"Authorization": f"Bearer {_token(api, 'admin_a')}"}
    own = api.get(f"/api/gps/device/{by_user['admin_a'][0]}/last.json", headers=headers_a).get_json()
    assert own["code"] == 0 and own["data"] is not None
    other = api.get(f"/api/gps/device/{by_user['admin_b'][0]}/last.json?isParent=true",
                    headers=headers_a).get_json()
    assert other["code"] == 404 and other["data"] is None


def test_no_acknowledged_position_is_lost_when_kafka_stops_for_10_s(
    pg_url: str, seeded: dict[str, Any], tmp_path: Path, free_port: Any
) -> None:
    from kafka import KafkaConsumer, TopicPartition

    from fleet.kafka_admin import ensure_topics
    from fleet.services.kafka import KafkaServer
    from fleet.topics import JT808_UPLINK
    from fleet.uplink_records import split_value

    kafka = KafkaServer(tmp_path / "kafka", free_port(), free_port(), jvm_extra=TEST_BROKER_JVM,
                        properties=TEST_BROKER_PROPERTIES)
    kafka.start()
    env = {**_base_env(), "FLEET_DATABASE_URL": pg_url, "FLEET_KAFKA_BOOTSTRAP": kafka.bootstrap}
    ensure_topics(kafka.bootstrap, 2)
    gateway = GatewayProcess(env, free_port(), tmp_path / "gateway.log", gateway_id="gw-outage")
    sent_log = tmp_path / "sent.csv"
    try:
        gateway.start()
        settings = _simulator_settings(gateway.port, tmp_path)
        thread, out = _run_fleet_in_thread(settings, 10, interval_s=1.0, duration_s=25, sent_log=sent_log)
        time.sleep(5)
        kafka.stop()
        time.sleep(10)
        kafka.start()
        thread.join(timeout=120)
        assert not thread.is_alive(), "the simulated fleet did not finish"
        stats = out["stats"]
        assert stats.unacked == 0, f"positions still unacknowledged after the outage: {stats}"

        with sent_log.open() as f:
            sent = {(row["phone"], datetime.fromisoformat(row["fix_at"])) for row in csv.DictReader(f)}
        # Every acknowledged position was in Kafka before its acknowledgement, so the topic's end offsets,
        # read after the fleet finished, bound what is to read: read up to them (no idle timeout waited out).
        consumer = KafkaConsumer(bootstrap_servers=kafka.bootstrap, group_id=None, enable_auto_commit=False)
        partitions = [TopicPartition(JT808_UPLINK, p) for p in sorted(consumer.partitions_for_topic(JT808_UPLINK))]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        end = consumer.end_offsets(partitions)
        stored: set[tuple[str, str]] = set()
        read_deadline = time.monotonic() + 60
        while any(consumer.position(tp) < end[tp] for tp in partitions):
            assert time.monotonic() < read_deadline, f"the topic was not read to its end offsets {end} in 60 s"
            for records in consumer.poll(timeout_ms=1000).values():
                for record in records:
                    for value in split_value(record.value):  # one uplink, or a gateway's batch of them
                        body = value["message"]["body"]
                        for item in body.get("items") or [body]:
                            if "fix_at" in item:
                                stored.add((value["phone"], datetime.fromisoformat(item["fix_at"])))
        consumer.close()
        assert len(sent) > 100, f"too few positions sent to prove anything: {len(sent)}"
        lost = sent - stored
        assert not lost, f"{len(lost)} of {len(sent)} acknowledged positions are missing from Kafka"
    finally:
        gateway.stop()
        kafka.stop()


def _base_env() -> dict[str, str]:
    import os

    return dict(os.environ)
