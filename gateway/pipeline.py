"""Ordered, bounded hand-off of uplinks to Kafka, with acknowledgement after the broker stored them.

Uplinks (records of the batch topic, ``jt808.uplink.v1``) are grouped: what arrived within
``batch_window_s`` (0: within one turn of the event loop) goes to Kafka as one record per partition,
a JSON array of the uplinks in arrival order (fleet/uplink_records.py, docs/topics.md). The partition
is the one Kafka's default partitioner gives the terminal's phone, so a terminal's uplinks stay in
one partition and in order. Other records (sessions) go one by one. One pump task hands records to
the producer in order (the producer keeps the order of what it is given per partition).

Each uplink's ``on_done`` runs from its record's delivery future, never before: the terminal is
acknowledged only after Kafka stored it. ``buffer_limit`` bounds uplinks not yet acknowledged by
Kafka; at the limit connections stop reading (TCP back-pressure) and resume below a low-water mark.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fleet.uplink_records import batch_headers, batch_key, batch_value, partition_of
from gateway.counters import GatewayCounters

log = logging.getLogger("gateway.pipeline")

OnDone = Callable[[bool], None]  # called with True once stored, False when delivery failed


class RecordSink(Protocol):
    """Where records go. `enqueue` returns a future resolved once the record is durably stored.

    Raises when the record cannot be accepted now (not connected, buffer full); the pipeline retries
    the same record after `retry_backoff_s`, keeping order.
    """

    async def wait_ready(self) -> None: ...

    async def enqueue(self, topic: str, key: bytes | None, value: bytes, *, partition: int | None = None,
                      headers: list[tuple[str, bytes]] | None = None) -> asyncio.Future[object]: ...

    async def partition_count(self, topic: str) -> int: ...


class Pausable(Protocol):
    def pause_for_backpressure(self) -> None: ...

    def resume_after_backpressure(self) -> None: ...


class Cork:
    """Replies written while corked (the acknowledgements of one Kafka record's uplinks) are flushed
    once per connection when the cork comes out: one write per terminal instead of one per reply."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending: list[Callable[[], None]] = []  # each connection's flush, registered once

    def __enter__(self) -> Cork:
        self.depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        if self.depth == 0 and self.pending:
            pending, self.pending = self.pending, []
            for flush in pending:
                flush()


@dataclass(slots=True)
class _Record:
    """One record to hand over: a single record, or a batch of uplinks for one partition."""

    topic: str
    key: bytes | None
    value: bytes
    partition: int | None
    headers: list[tuple[str, bytes]] | None
    callbacks: Sequence[OnDone | None]


class UplinkPipeline:
    def __init__(
        self,
        sink: RecordSink,
        counters: GatewayCounters,
        *,
        buffer_limit: int,
        retry_backoff_s: float = 0.5,
        batch_topic: str | None = None,
        batch_window_s: float = 0.0,
        batch_max_bytes: int = 512 * 1024,
    ) -> None:
        self._sink = sink
        self._counters = counters
        self.buffer_limit = max(1, buffer_limit)
        self._low_water = max(0, int(self.buffer_limit * 0.8))
        self._retry_backoff_s = retry_backoff_s
        self._batch_topic = batch_topic
        self._batch_window_s = max(0.0, batch_window_s)
        self._batch_max_bytes = max(1024, batch_max_bytes)
        self._batched: list[tuple[bytes, bytes, OnDone | None]] = []  # (key, value, on_done), arrival order
        self._batched_bytes = 0
        self._first_batched_at = 0.0
        self._ready: deque[_Record] = deque()  # built records, in the order they go to the producer
        self._partitions = 0
        self._partition_by_key: dict[bytes, int] = {}
        self._wakeup = asyncio.Event()
        self._full = asyncio.Event()  # the open batch reached batch_max_bytes: do not wait the window out
        self._paused: dict[Pausable, None] = {}  # paused connections, in the order they paused (FIFO)
        self._task: asyncio.Task[None] | None = None
        self.in_flight = 0  # queued + handed to the producer, not yet acknowledged by Kafka
        self.cork = Cork()  # held while a record's callbacks run (connections coalesce their acks)

    @property
    def saturated(self) -> bool:
        return self.in_flight >= self.buffer_limit

    def start(self) -> None:
        self._task = asyncio.create_task(self._pump(), name="uplink-pump")

    async def stop(self, drain_timeout_s: float = 5.0) -> None:
        """Give queued records up to `drain_timeout_s` to be stored, then stop the pump."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + drain_timeout_s
        while self.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.05)
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def submit(self, topic: str, key: bytes, value: bytes, on_done: OnDone | None = None) -> None:
        self.in_flight += 1
        if topic == self._batch_topic:
            if not self._batched:
                self._first_batched_at = asyncio.get_running_loop().time()
            self._batched.append((key, value, on_done))
            self._batched_bytes += len(value) + 1
            if self._batched_bytes >= self._batch_max_bytes:
                self._full.set()
        else:
            self._ready.append(_Record(topic, key, value, None, None, (on_done,)))
        self._wakeup.set()

    def wait_for_capacity(self, who: Pausable) -> None:
        """Register `who` to be resumed when in-flight records drop below the low-water mark."""
        if who not in self._paused:
            self._counters.backpressure_pauses += 1
            self._paused[who] = None
        who.pause_for_backpressure()

    def forget(self, who: Pausable) -> None:
        self._paused.pop(who, None)

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._ready and not self._batched:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            await self._sink.wait_ready()
            if self._batched:
                wait_s = self._first_batched_at + self._batch_window_s - loop.time()
                if wait_s > 0 and not self._full.is_set():
                    try:  # more uplinks join the open batch meanwhile
                        async with asyncio.timeout(wait_s):
                            await self._full.wait()
                    except TimeoutError:
                        pass
                try:
                    await self._close_batch()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # no metadata yet: keep the open batch, retry later
                    log.warning("kafka partitions of %s unknown (%s); %d uplinks waiting", self._batch_topic, exc,
                                self.in_flight)
                    await asyncio.sleep(self._retry_backoff_s)
                    continue
            while self._ready:
                record = self._ready[0]
                try:
                    future = await self._sink.enqueue(record.topic, record.key, record.value,
                                                      partition=record.partition, headers=record.headers)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # broker unreachable or buffer full: keep order, retry later
                    log.warning("kafka enqueue failed (%s); %d uplinks waiting", exc, self.in_flight)
                    await asyncio.sleep(self._retry_backoff_s)
                    break
                self._ready.popleft()
                future.add_done_callback(functools.partial(self._on_done, callbacks=record.callbacks))

    async def _close_batch(self) -> None:
        """Turn the open batch into one record per partition (split at batch_max_bytes), in order."""
        assert self._batch_topic is not None
        count = await self._sink.partition_count(self._batch_topic)
        if count != self._partitions:
            self._partitions, self._partition_by_key = count, {}
        items, self._batched, self._batched_bytes = self._batched, [], 0
        self._full.clear()
        cache = self._partition_by_key
        groups: dict[int, list[tuple[bytes, bytes, OnDone | None]]] = {}
        for item in items:
            key = item[0]
            partition = cache.get(key)
            if partition is None:
                partition = cache[key] = partition_of(key, count)
            groups.setdefault(partition, []).append(item)
        for partition, group in groups.items():
            start, size = 0, 0
            for end, (_, value, _) in enumerate(group):
                size += len(value) + 1
                if size >= self._batch_max_bytes and end > start:
                    self._ready.append(self._batch_record(partition, group[start:end]))
                    start, size = end, len(value) + 1
            self._ready.append(self._batch_record(partition, group[start:]))

    def _batch_record(self, partition: int, group: list[tuple[bytes, bytes, OnDone | None]]) -> _Record:
        assert self._batch_topic is not None
        keys = [key.decode() for key, _, _ in group]
        self._counters.uplink_records += 1
        return _Record(self._batch_topic, batch_key(keys), batch_value([value for _, value, _ in group]), partition,
                       batch_headers(len(group)), [on_done for _, _, on_done in group])

    def _on_done(self, future: asyncio.Future[object], *, callbacks: Sequence[OnDone | None]) -> None:
        self.in_flight -= len(callbacks)
        stored = not future.cancelled() and future.exception() is None
        if stored:
            self._counters.uplinks_produced += len(callbacks)
        else:
            # Not stored: no acknowledgement; the terminal resends or uploads it as backlog later.
            self._counters.produce_failed += len(callbacks)
            log.warning("kafka delivery failed: %s", "cancelled" if future.cancelled() else future.exception())
        with self.cork:
            for on_done in callbacks:
                if on_done is None:
                    continue
                try:
                    on_done(stored)
                except Exception:
                    self._counters.internal_errors += 1
                    log.exception("delivery callback failed")
        if self._paused and self.in_flight <= self._low_water:
            # Round robin: resume the longest-paused connections one by one while there is room; one that
            # fills the buffer again pauses at the back of the queue. (Resuming all at once let the same
            # few refill it every time: under overload some terminals waited minutes for their acks.)
            paused = self._paused
            while paused and not self.saturated:
                who = next(iter(paused))
                del paused[who]
                who.resume_after_backpressure()
