"""The login lookups' batcher (gateway/lookup_batch.py): a lone lookup goes at once and alone; a burst goes
as a few queries of many keys, never more at once than the connections; a failed query fails its own
waiters only; a waiter that gave up is not asked for."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from gateway.lookup_batch import LookupBatcher


class Store:
    """A store answering ``key * 10`` for keys below 1000, after ``gate`` is set (or at once)."""

    def __init__(self, *, hold: bool = False) -> None:
        self.queries: list[list[int]] = []
        self.running = 0
        self.most_running = 0
        self.gate = asyncio.Event()
        if not hold:
            self.gate.set()
        self.fail_next = False

    async def load(self, keys: list[int]) -> dict[int, int]:
        self.queries.append(keys)
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await self.gate.wait()
            await asyncio.sleep(0)
            if self.fail_next:
                self.fail_next = False
                raise OSError("the database went away")
            return {key: key * 10 for key in keys if key < 1000}
        finally:
            self.running -= 1


def test_a_lone_lookup_is_one_query_of_its_key() -> None:
    async def scenario() -> tuple[int | None, int | None, list[list[int]]]:
        store = Store()
        batcher = LookupBatcher(store.load, concurrency=4)
        found = await batcher.lookup(7)
        missing = await batcher.lookup(5000)
        return found, missing, store.queries

    found, missing, queries = asyncio.run(scenario())
    assert (found, missing) == (70, None)
    assert queries == [[7], [5000]]


def test_a_burst_goes_as_few_queries_never_more_at_once_than_the_connections() -> None:
    async def scenario() -> tuple[list[int | None], Store]:
        store = Store(hold=True)
        batcher = LookupBatcher(store.load, concurrency=2, max_batch=100)
        waiters = [asyncio.create_task(batcher.lookup(key)) for key in range(500)]
        await asyncio.sleep(0.01)
        store.gate.set()
        return list(await asyncio.gather(*waiters)), store

    answers, store = asyncio.run(scenario())
    assert answers == [key * 10 for key in range(500)]
    assert store.most_running == 2
    # the 500 lookups came before either drain ran: five queries of 100, two at a time
    assert [len(keys) for keys in store.queries] == [100, 100, 100, 100, 100]
    assert sorted(key for keys in store.queries for key in keys) == list(range(500))


def test_waiters_of_one_key_share_its_place_in_a_query() -> None:
    async def scenario() -> tuple[list[int | None], list[list[int]]]:
        store = Store(hold=True)
        batcher = LookupBatcher(store.load, concurrency=1)
        first = asyncio.create_task(batcher.lookup(1))
        await asyncio.sleep(0)
        same = [asyncio.create_task(batcher.lookup(2)) for _ in range(3)]
        await asyncio.sleep(0)
        store.gate.set()
        return list(await asyncio.gather(first, *same)), store.queries

    answers, queries = asyncio.run(scenario())
    assert answers == [10, 20, 20, 20]
    assert queries == [[1], [2]]


def test_a_failed_query_fails_its_waiters_and_the_next_query_answers() -> None:
    async def scenario() -> tuple[list[object], list[list[int]]]:
        store = Store(hold=True)
        store.fail_next = True
        batcher = LookupBatcher(store.load, concurrency=1)
        failing = asyncio.create_task(batcher.lookup(1))
        await asyncio.sleep(0)
        later = [asyncio.create_task(batcher.lookup(key)) for key in (2, 3)]
        await asyncio.sleep(0)
        store.gate.set()
        return list(await asyncio.gather(failing, *later, return_exceptions=True)), store.queries

    answers, queries = asyncio.run(scenario())
    assert isinstance(answers[0], OSError)
    assert answers[1:] == [20, 30]
    assert queries == [[1], [2, 3]]


def test_a_waiter_that_gave_up_is_not_asked_for() -> None:
    async def scenario() -> tuple[int | None, list[list[int]]]:
        store = Store(hold=True)
        batcher = LookupBatcher(store.load, concurrency=1)
        first = asyncio.create_task(batcher.lookup(1))
        await asyncio.sleep(0)
        gone = asyncio.create_task(batcher.lookup(2))  # its connection closes while it waits
        kept = asyncio.create_task(batcher.lookup(3))
        await asyncio.sleep(0)
        gone.cancel()
        store.gate.set()
        await first
        return await kept, store.queries

    answer, queries = asyncio.run(scenario())
    assert answer == 30
    assert queries == [[1], [3]]


def test_a_cancelled_query_cancels_its_waiters_and_a_later_lookup_is_still_answered() -> None:
    async def scenario() -> tuple[bool, int | None]:
        store = Store(hold=True)
        batcher = LookupBatcher(store.load, concurrency=1)
        waiter = asyncio.create_task(batcher.lookup(1))
        await asyncio.sleep(0)
        for task in batcher._tasks:  # what a shutdown does to every task
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiter
        store.gate.set()
        return waiter.cancelled(), await asyncio.wait_for(batcher.lookup(2), 1)

    cancelled, answer = asyncio.run(scenario())
    assert cancelled  # not left waiting for ever
    assert answer == 20


def test_it_refuses_a_batcher_that_could_never_run() -> None:
    async def load(keys: list[int]) -> dict[int, int]:
        return {}

    with pytest.raises(ValueError):
        LookupBatcher(load, concurrency=0)
    with pytest.raises(ValueError):
        LookupBatcher(load, max_batch=0)


def test_logins_arriving_faster_than_the_linger_go_together_and_a_lookup_after_a_quiet_spell_goes_at_once() -> None:
    # a steady stream of logins, one every 2 ms, each finding a connection free: without the linger every one is
    # a query of its own; with 50 ms, a query starts at most every 50 ms and takes what came meanwhile
    async def scenario(linger_s: float) -> tuple[list[list[int]], float, float]:
        store = Store()
        batcher = LookupBatcher(store.load, concurrency=4, linger_s=linger_s)
        loop = asyncio.get_running_loop()
        waiters, began = [], loop.time()
        for key in range(50):
            waiters.append(asyncio.create_task(batcher.lookup(key)))
            await asyncio.sleep(0.002)
        arrivals_s = loop.time() - began  # ~100 ms, more on a busy machine
        assert await asyncio.gather(*waiters) == [key * 10 for key in range(50)]
        await asyncio.sleep(linger_s * 2)  # quiet
        began = loop.time()
        assert await batcher.lookup(99) == 990
        return store.queries, arrivals_s, loop.time() - began

    alone, _, _ = asyncio.run(scenario(0.0))
    assert len(alone) == 51
    together, arrivals_s, lone_wait_s = asyncio.run(scenario(0.05))
    assert together[0] == [0]  # the first of the stream goes at once
    assert 2 <= len(together) - 1 <= arrivals_s / 0.05 + 2  # one query a linger, each with what came meanwhile
    assert sorted(key for keys in together[:-1] for key in keys) == list(range(50))
    assert together[-1] == [99] and lone_wait_s < 0.04  # after a quiet spell: at once, not a linger later


def test_a_negative_linger_is_refused() -> None:
    async def load(keys: list[int]) -> dict[int, int]:
        return {}

    with pytest.raises(ValueError, match="linger_s"):
        LookupBatcher(load, linger_s=-0.001)
