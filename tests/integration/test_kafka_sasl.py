"""A broker configured like docker/compose.yaml's (SASL/PLAIN on every listener) refuses whoever has no
credentials, so nothing reaches jt808.downlink.v1 (frames the gateways write to terminals) without them; the
clients fleetwatch builds from FLEET_KAFKA_* (fleet/kafka_clients.py) log in and work (docs/security.md)."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import KafkaError

from fleet.kafka_clients import aiokafka_options, kafka_python_options
from fleet.services.kafka import KafkaServer
from fleet.settings import KafkaSettings
from fleet.topics import JT808_DOWNLINK
from tests.support.stack import TEST_BROKER_JVM, TEST_BROKER_PROPERTIES, SessionStack

FAST_FAIL = {"request_timeout_ms": 4000, "max_block_ms": 4000, "bootstrap_timeout_ms": 4000}


@pytest.fixture(scope="module")
def sasl_broker(_session_stack: SessionStack, free_port: Callable[[], int]) -> Iterator[tuple[KafkaServer, KafkaSettings]]:
    password = secrets.token_urlsafe(18)
    server = KafkaServer(_session_stack.dir / "kafka-sasl", free_port(), free_port(), heap="384m",
                         sasl_users={"fleet": password}, jvm_extra=TEST_BROKER_JVM, properties=TEST_BROKER_PROPERTIES)
    server.start()
    try:
        admin = KafkaAdminClient(bootstrap_servers=server.bootstrap, **server.client_options())
        admin.create_topics([NewTopic(JT808_DOWNLINK, num_partitions=1, replication_factor=1)])
        admin.close()
        settings = KafkaSettings(bootstrap=server.bootstrap, security_protocol="SASL_PLAINTEXT",
                                 sasl_mechanism="PLAIN", sasl_username="fleet", sasl_password=password)
        yield server, settings
    finally:
        server.destroy()


def _write_downlink(bootstrap: str, **options: Any) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **FAST_FAIL, **options)
    try:
        producer.send(JT808_DOWNLINK, key=b"13800000001", value=b'{"msgId": 33029}').get(timeout=10)
    finally:
        producer.close(timeout=2)


def test_a_client_without_credentials_cannot_write_to_the_downlink_topic(sasl_broker) -> None:
    server, _ = sasl_broker
    with pytest.raises(KafkaError):
        _write_downlink(server.bootstrap)


def test_a_client_with_a_wrong_password_is_refused(sasl_broker) -> None:
    server, settings = sasl_broker
    wrong = settings.model_copy(update={"sasl_password": "guess"})
    with pytest.raises(KafkaError):
        _write_downlink(server.bootstrap, **kafka_python_options(wrong))


def test_the_services_kafka_python_clients_log_in_with_the_settings(sasl_broker) -> None:
    server, settings = sasl_broker
    options = kafka_python_options(settings)
    partition = TopicPartition(JT808_DOWNLINK, 0)
    consumer = KafkaConsumer(bootstrap_servers=server.bootstrap, group_id=None, **options)
    consumer.assign([partition])
    consumer.seek_to_end(partition)
    start = consumer.position(partition)
    _write_downlink(server.bootstrap, **options)
    records = consumer.poll(timeout_ms=10_000).get(partition, [])
    consumer.close()
    assert [r.offset for r in records][:1] == [start]


def test_the_gateways_aiokafka_clients_log_in_with_the_settings(sasl_broker) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka import TopicPartition as AioPartition

    server, settings = sasl_broker
    value = uuid.uuid4().bytes

    async def round_trip() -> bytes:
        options = aiokafka_options(settings)
        producer = AIOKafkaProducer(bootstrap_servers=server.bootstrap, acks="all", enable_idempotence=True,
                                    **options)
        consumer = AIOKafkaConsumer(bootstrap_servers=server.bootstrap, group_id=None, **options)
        await producer.start()
        await consumer.start()
        try:
            partition = AioPartition(JT808_DOWNLINK, 0)
            consumer.assign([partition])
            await consumer.seek_to_end(partition)
            await consumer.position(partition)
            await producer.send_and_wait(JT808_DOWNLINK, value, key=b"13800000002")
            record = await asyncio.wait_for(consumer.getone(), 10)
            return record.value
        finally:
            await producer.stop()
            await consumer.stop()

    assert asyncio.run(round_trip()) == value
