"""Ordered, bounded hand-off of uplinks to Kafka, with acknowledgement after the broker stored them.

One pump task enqueues records into the producer in arrival order (so per-terminal order holds: the
producer keeps the order of records it was given per partition). The terminal is acknowledged from the
record's delivery future, never before. `produce_buffer` bounds records not yet acknowledged by Kafka;
at the limit connections stop reading (TCP back-pressure), and resume below a low-water mark.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable
from typing import Protocol

from gateway.counters import GatewayCounters

log = logging.getLogger("gateway.pipeline")

OnDone = Callable[[bool], None]  # called with True once stored, False when delivery failed


class RecordSink(Protocol):
    """Where records go. `enqueue` returns a future resolved once the record is durably stored.

    Raises when the record cannot be accepted now (not connected, buffer full); the pipeline retries
    the same record after `retry_backoff_s`, keeping order.
    """

    async def wait_ready(self) -> None: ...

    async def enqueue(self, topic: str, key: bytes, value: bytes) -> asyncio.Future[object]: ...


class Pausable(Protocol):
    def pause_for_backpressure(self) -> None: ...

    def resume_after_backpressure(self) -> None: ...


class UplinkPipeline:
    def __init__(
        self,
        sink: RecordSink,
        counters: GatewayCounters,
        *,
        buffer_limit: int,
        retry_backoff_s: float = 0.5,
    ) -> None:
        self._sink = sink
        self._counters = counters
        self.buffer_limit = max(1, buffer_limit)
        self._low_water = max(0, int(self.buffer_limit * 0.8))
        self._retry_backoff_s = retry_backoff_s
        self._queue: deque[tuple[str, bytes, bytes, OnDone | None]] = deque()
        self._wakeup = asyncio.Event()
        self._paused: set[Pausable] = set()
        self._task: asyncio.Task[None] | None = None
        self.in_flight = 0  # queued + handed to the producer, not yet acknowledged by Kafka

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
        self._queue.append((topic, key, value, on_done))
        self._wakeup.set()

    def wait_for_capacity(self, who: Pausable) -> None:
        """Register `who` to be resumed when in-flight records drop below the low-water mark."""
        if who not in self._paused:
            self._counters.backpressure_pauses += 1
        self._paused.add(who)
        who.pause_for_backpressure()

    def forget(self, who: Pausable) -> None:
        self._paused.discard(who)

    async def _pump(self) -> None:
        queue = self._queue
        while True:
            if not queue:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            await self._sink.wait_ready()
            topic, key, value, on_done = queue[0]
            try:
                future = await self._sink.enqueue(topic, key, value)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # broker unreachable or buffer full: keep order, retry later
                log.warning("kafka enqueue failed (%s); %d uplinks waiting", exc, self.in_flight)
                await asyncio.sleep(self._retry_backoff_s)
                continue
            queue.popleft()
            future.add_done_callback(functools.partial(self._on_done, on_done=on_done))

    def _on_done(self, future: asyncio.Future[object], *, on_done: OnDone | None) -> None:
        self.in_flight -= 1
        stored = not future.cancelled() and future.exception() is None
        if stored:
            self._counters.uplinks_produced += 1
        else:
            # Not stored: no acknowledgement; the terminal resends or uploads it as backlog later.
            self._counters.produce_failed += 1
            log.warning("kafka delivery failed: %s", "cancelled" if future.cancelled() else future.exception())
        if on_done is not None:
            try:
                on_done(stored)
            except Exception:
                self._counters.internal_errors += 1
                log.exception("delivery callback failed")
        if self._paused and self.in_flight <= self._low_water:
            paused, self._paused = self._paused, set()
            for who in paused:
                who.resume_after_backpressure()
