"""Concurrent lookups by key, coalesced into batch queries as connections come free.

A terminal's login (0x0102, 0x0100) reads its device by phone. One query per login is right while logins
trickle in; when a gateway restarts, or the network of a whole region comes back, every terminal it served
logs in within seconds, and thousands of one-row queries queue for a pool of a few connections: each waits
behind all the others, terminals give up and log in again, and the queue never drains. Here a lookup that
finds a connection free goes at once, alone; lookups that arrive while ``concurrency`` batches are running
wait together and go as one query of up to ``max_batch`` keys when the next one ends. So the batch size
follows the load, and the latency of a lone lookup is that of its own query.

Between those two, logins arriving at a thousand a second each found a connection free and went alone, a
query of one key each: ~300 µs of the caller's CPU and ~270 µs of PostgreSQL's a login, against ~105 and ~35
when a query starts at most every 5 ms (docs/performance.md "A reconnect storm: session events a take at a
time, login lookups that linger"). So a query starts at most once per ``linger_s``: a lookup arriving sooner
after the last query's start waits for the rest of that interval with the others that come meanwhile. A lookup
after a quiet spell still goes at once.

A waiter that gave up (its task was cancelled, e.g. its connection closed) is dropped from the batch that
has not started; a key whose waiters all gave up is not asked for.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LookupBatcher(Generic[K, V]):
    """``await lookup(key)``: the value ``load`` gives for the key (None when it gives none).

    ``load(keys)`` answers many distinct keys at once, as a dict of the keys it found; it raises when the
    store fails, and every waiter of that batch gets the error (the others are not affected)."""

    def __init__(self, load: Callable[[list[K]], Awaitable[dict[K, V]]], *, concurrency: int = 4,
                 max_batch: int = 500, linger_s: float = 0.0) -> None:
        if concurrency < 1 or max_batch < 1:
            raise ValueError("concurrency and max_batch must be at least 1")
        if linger_s < 0:
            raise ValueError("linger_s must not be negative")
        self._load = load
        self._concurrency = concurrency
        self._max_batch = max_batch
        self._linger_s = linger_s
        self._next_start = float("-inf")  # the loop time before which no query starts
        self._waiting: dict[K, list[asyncio.Future[V | None]]] = {}
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()  # the running drains (the loop keeps only weak references)
        self.batches = 0  # queries run (for the gateway's counters and the tests)
        self.keys = 0  # keys asked for in them

    async def lookup(self, key: K) -> V | None:
        future: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(future)
        if self._running < self._concurrency:
            self._running += 1
            task = asyncio.get_running_loop().create_task(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._drain_done)
        return await future

    def _drain_done(self, task: asyncio.Task[None]) -> None:
        """A drain ended (also when it was cancelled before it began: its body never ran). Cancelled, with no
        other drain left, nobody would serve the keys still waiting: their waiters are cancelled too."""
        self._tasks.discard(task)
        self._running -= 1
        if task.cancelled() and self._running == 0:
            waiting, self._waiting = self._waiting, {}
            for futures in waiting.values():
                for future in futures:
                    future.cancel()

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            wait_s = self._next_start - loop.time()
            if wait_s > 0:
                await asyncio.sleep(wait_s)
                continue  # another drain may have taken the keys meanwhile, or started a query
            self._next_start = loop.time() + self._linger_s
            batch = self._take()
            if not batch:
                continue
            self.batches += 1
            self.keys += len(batch)
            try:
                found = await self._load(list(batch))
            except BaseException as exc:  # the store failed: this batch's waiters get the error
                for futures in batch.values():
                    for future in futures:
                        if future.done():
                            continue
                        if isinstance(exc, Exception):
                            future.set_exception(exc)
                        else:  # the drain itself was cancelled (a shutdown): so are its waiters
                            future.cancel()
                if not isinstance(exc, Exception):
                    raise
                continue
            for key, futures in batch.items():
                value = found.get(key)
                for future in futures:
                    if not future.done():
                        future.set_result(value)

    def _take(self) -> dict[K, list[asyncio.Future[V | None]]]:
        """Up to ``max_batch`` keys, oldest first, each with its waiters that still wait."""
        batch: dict[K, list[asyncio.Future[V | None]]] = {}
        while self._waiting and len(batch) < self._max_batch:
            key = next(iter(self._waiting))
            futures = [future for future in self._waiting.pop(key) if not future.done()]
            if futures:
                batch[key] = futures
        return batch
