"""Kafka side of the gateway: the idempotent uplink producer and the downlink consumer.

Both start in the background and retry until the broker is reachable, so terminals can connect (and
authenticate) while Kafka is down; positions are simply not acknowledged until it is back.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from fleet.kafka_clients import aiokafka_options, producer_compression

log = logging.getLogger("gateway.kafka")


class KafkaRecordSink:
    """`RecordSink` over an AIOKafkaProducer (acks=all, idempotent, linger from settings, batches compressed
    as FLEET_KAFKA_COMPRESSION says: a gateway writes most of the brokers' bytes)."""

    def __init__(self, bootstrap: str, *, linger_ms: int, retry_backoff_s: float = 1.0,
                 request_timeout_ms: int = 30000) -> None:
        self._bootstrap = bootstrap
        self._linger_ms = linger_ms
        self.compression = producer_compression()
        self._retry_backoff_s = retry_backoff_s
        self._request_timeout_ms = request_timeout_ms
        self._producer: AIOKafkaProducer | None = None
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._connect(), name="kafka-producer-start")

    async def _connect(self) -> None:
        while True:
            producer = AIOKafkaProducer(
                bootstrap_servers=self._bootstrap,
                acks="all",
                enable_idempotence=True,
                linger_ms=self._linger_ms,
                request_timeout_ms=self._request_timeout_ms,
                max_batch_size=256 * 1024,
                compression_type=self.compression,
                **aiokafka_options(),
            )
            try:
                await producer.start()
            except Exception as exc:
                log.warning("kafka producer cannot start (%s); retrying in %.1fs", exc, self._retry_backoff_s)
                await producer.stop()
                await asyncio.sleep(self._retry_backoff_s)
                continue
            self._producer = producer
            self._ready.set()
            log.info("kafka producer connected to %s", self._bootstrap)
            return

    async def wait_ready(self) -> None:
        await self._ready.wait()

    async def enqueue(self, topic: str, key: bytes | None, value: bytes, *, partition: int | None = None,
                      headers: list[tuple[str, bytes]] | None = None) -> asyncio.Future[object]:
        assert self._producer is not None
        future: asyncio.Future[object] = await self._producer.send(topic, value, key=key, partition=partition,
                                                                   headers=headers)
        return future

    async def partition_count(self, topic: str) -> int:
        """Partitions of `topic` (from the producer's metadata). Raises when the topic is unknown."""
        assert self._producer is not None
        partitions = await self._producer.partitions_for(topic)
        if not partitions:
            raise LookupError(f"no partitions for {topic}")
        return len(partitions)

    async def stop(self) -> None:
        if self._task and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._producer is not None:
            await self._producer.stop()


async def assign_all_at_end(consumer: AIOKafkaConsumer, topic: str, timeout_s: float = 10.0) -> list[TopicPartition]:
    """Assign every partition of `topic` to a started group-less consumer, positioned at the end.
    Raises TimeoutError if the topic has no partitions in time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        cluster = await consumer._client.fetch_all_metadata()  # no public call returns partitions
        partitions = cluster.partitions_for_topic(topic)
        if partitions:
            break
        if loop.time() > deadline:
            raise TimeoutError(f"topic {topic} has no partitions")
        await asyncio.sleep(0.2)
    assigned = [TopicPartition(topic, p) for p in sorted(partitions)]
    consumer.assign(assigned)
    await consumer.seek_to_end(*assigned)
    for tp in assigned:
        await consumer.position(tp)
    return assigned


DownlinkHandler = Callable[[dict[str, Any]], Awaitable[None] | None]


async def consume_downlinks(bootstrap: str, topic: str, handle: DownlinkHandler, *,
                            ready: asyncio.Event | None = None, retry_backoff_s: float = 1.0) -> None:
    """Read every downlink written after start, without a consumer group: each gateway is assigned
    all partitions at their end offsets and the one holding the terminal writes the frame. `ready` is
    set once positions are fixed (a downlink produced after that is seen). Runs until cancelled."""
    while True:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                                    **aiokafka_options())
        try:
            await consumer.start()
            assigned = await assign_all_at_end(consumer, topic)
        except Exception as exc:
            log.warning("downlink consumer cannot start (%s); retrying in %.1fs", exc, retry_backoff_s)
            await consumer.stop()
            await asyncio.sleep(retry_backoff_s)
            continue
        log.info("downlink consumer reading %s (%d partitions)", topic, len(assigned))
        if ready is not None:
            ready.set()
        try:
            async for record in consumer:
                try:
                    payload = json.loads(record.value)
                    if not isinstance(payload, dict):
                        raise ValueError("downlink is not a JSON object")
                except ValueError as exc:
                    log.warning("invalid downlink at offset %s: %s", record.offset, exc)
                    payload = {"_invalid": True}
                result = handle(payload)
                if result is not None:
                    await result
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("downlink consumer failed; restarting")
            await asyncio.sleep(retry_backoff_s)
        finally:
            await consumer.stop()
