"""streams.take: an idle worker's take goes at once, a busy one waits its window as Faust's noack_take does.

The window is what batches the database writes under load (docs/performance.md); at a low rate it was the
largest fixed delay between a terminal's position and its marker (platform-spec, live map).
"""

from __future__ import annotations

import asyncio
from typing import Any

import faust

from streams.take import take

WINDOW_S = 2.0  # long, so an idle take that waited for it could not pass for one that did not
IDLE_S = 0.005


def agent_of(batches: list[tuple[float, list[Any]]], got: asyncio.Queue[None], max_: int = 100,
             processing_s: float = 0.0) -> Any:
    app = faust.App(f"take-test-{id(batches)}", broker="kafka://127.0.0.1:1", store="memory://", autodiscover=False)

    @app.agent()
    async def taker(stream: Any) -> None:
        loop = asyncio.get_running_loop()
        async for events in take(stream, max_, WINDOW_S, IDLE_S):
            batches.append((loop.time(), [event.value for event in events]))
            got.put_nowait(None)
            if processing_s:
                await asyncio.sleep(processing_s)  # the batch's database writes
            for event in events:
                await stream.ack(event)

    return taker


async def _an_idle_take_goes_with_what_arrived_without_waiting_for_the_window() -> None:
    batches: list[tuple[float, list[Any]]] = []
    got: asyncio.Queue[None] = asyncio.Queue()
    async with agent_of(batches, got).test_context() as agent:
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        for value in (1, 2, 3):
            await agent.put(value, wait=False)
        await asyncio.wait_for(got.get(), WINDOW_S * 2)
    taken_at, values = batches[0]
    assert values == [1, 2, 3]  # one fetch's records stay one batch
    assert taken_at - sent_at < WINDOW_S / 2


async def _a_busy_take_waits_its_window_so_batches_under_load_stay_as_large() -> None:
    batches: list[tuple[float, list[Any]]] = []
    got: asyncio.Queue[None] = asyncio.Queue()
    processing_s = 0.3
    async with agent_of(batches, got, processing_s=processing_s).test_context() as agent:
        await agent.put(1, wait=False)
        await asyncio.wait_for(got.get(), WINDOW_S * 2)
        first_at = batches[0][0]
        for value in (2, 3):  # arrive while the first batch is being written: the worker is busy
            await agent.put(value, wait=False)
        await agent.put(4, wait=False)
        await asyncio.wait_for(got.get(), WINDOW_S * 3)
    taken_at, values = batches[1]
    assert values == [2, 3, 4]
    # the window counts from the end of the first batch's processing, as in noack_take
    assert taken_at - (first_at + processing_s) >= WINDOW_S * 0.9


async def _a_take_never_holds_more_than_max_events() -> None:
    batches: list[tuple[float, list[Any]]] = []
    got: asyncio.Queue[None] = asyncio.Queue()
    async with agent_of(batches, got, max_=2).test_context() as agent:
        for value in range(5):
            await agent.put(value, wait=False)
        for _ in range(3):
            await asyncio.wait_for(got.get(), WINDOW_S * 3)
    assert [values for _, values in batches] == [[0, 1], [2, 3], [4]]


def test_an_idle_take_goes_with_what_arrived_without_waiting_for_the_window() -> None:
    asyncio.run(_an_idle_take_goes_with_what_arrived_without_waiting_for_the_window())


def test_a_busy_take_waits_its_window_so_batches_under_load_stay_as_large() -> None:
    asyncio.run(_a_busy_take_waits_its_window_so_batches_under_load_stay_as_large())


def test_a_take_never_holds_more_than_max_events() -> None:
    asyncio.run(_a_take_never_holds_more_than_max_events())
