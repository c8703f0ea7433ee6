"""The session's real servers work: migrations applied, Kafka round trip."""

from __future__ import annotations

import uuid

from fleet import topics


def test_database_is_migrated(pg_conn) -> None:
    row = pg_conn.execute("SELECT to_regclass('public.gps'), to_regclass('public.device')").fetchone()
    assert row == ("gps", "device")
    applied = pg_conn.execute("SELECT migration_id FROM _yoyo_migration").fetchall()
    assert ("0001_core_schema",) in applied


def test_migrations_are_idempotent(pg_url: str) -> None:
    from warehouse.migrate import apply, pending

    assert apply(pg_url) == []
    assert pending(pg_url) == []


def test_connection_pool_serves_queries(pg_url: str) -> None:
    from warehouse.db import pool

    with pool(pg_url, max_size=2) as p, p.connection() as conn:
        assert conn.execute("SELECT current_database()").fetchone() is not None


def test_message_produced_is_consumed(kafka_bootstrap: str) -> None:
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    key = uuid.uuid4().hex.encode()
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    try:
        meta = producer.send(topics.JT808_UPLINK, key=key, value=b"probe").get(timeout=30)
    finally:
        producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, enable_auto_commit=False,
                             consumer_timeout_ms=15000)
    try:
        partition = TopicPartition(topics.JT808_UPLINK, meta.partition)
        consumer.assign([partition])
        consumer.seek(partition, meta.offset)
        received = next(iter(consumer))
    finally:
        consumer.close()
    assert (received.key, received.value) == (key, b"probe")


def test_every_topic_exists(kafka_bootstrap: str) -> None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        assert set(topics.ALL_TOPICS) <= set(admin.list_topics())
    finally:
        admin.close()
