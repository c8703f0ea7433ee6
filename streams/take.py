"""The agents' take: batches of events, acknowledged by the caller, with a window only when busy.

Faust's ``Stream.noack_take(max, within)`` yields when ``max`` events are in or ``within`` has passed since
it started waiting (after the previous batch was processed). At a low rate that window is pure delay: a
position waits for it on its way to the live map (platform-spec, live map "position to marker"). ``take``
is the same buffer with one rule added:

- **busy** (an event arrived while the previous batch was being processed): wait ``within`` for more,
  exactly as ``noack_take`` does. Under load this is every batch, so batch sizes, and with them the
  per-position cost of the database writes, are what they were;
- **idle** (nothing arrived meanwhile): yield ``idle_s`` after the first event (what came in the same fetch
  joins it), not ``within`` after the wait began.

Delivery is unchanged: events are yielded, never acknowledged here (the caller acks each once every write
of its batch committed), and at most ``max_`` are yielded at once.
"""

from __future__ import annotations

import asyncio
from asyncio import CancelledError
from collections.abc import AsyncIterator
from typing import Any

from mode.utils.aiter import aiter
from mode.utils.futures import notify


async def take(stream: Any, max_: int, within: float, idle_s: float) -> AsyncIterator[list[Any]]:
    """Batches of ``stream``'s events (faust ``EventT``), without acks; see the module doc."""
    buffer: list[Any] = []
    buffer_full = asyncio.Event()
    buffer_consumed = asyncio.Event()
    first_in = asyncio.Event()
    consuming: asyncio.Future[None] | None = None
    busy = False

    async def add_to_buffer(value: Any) -> Any:
        nonlocal consuming, busy
        try:
            if consuming is not None:  # a batch is being processed: this event waits for it
                busy = True
                try:
                    await consuming
                finally:
                    consuming = None
            event = stream.current_event
            if event is None:
                raise RuntimeError("take buffer found current_event is None")
            buffer.append(event)
            first_in.set()
            if len(buffer) >= max_:  # never more than max_ at once: wait until this batch is taken
                buffer_full.set()
                buffer_consumed.clear()
                await stream.wait(buffer_consumed)
        except CancelledError:
            raise
        except Exception as exc:
            stream.log.exception("Error adding to take buffer: %r", exc)
            await stream.crash(exc)
        return value

    enable_acks = stream.enable_acks
    stream.enable_acks = False  # the caller acks
    stream.add_processor(add_to_buffer)
    stream._enable_passive(aiter(stream.channel))
    try:
        while not stream.should_stop:
            if busy:
                await stream.wait_for_stopped(buffer_full, timeout=within)
            else:
                await stream.wait_for_stopped(first_in, timeout=within)
                if buffer and not buffer_full.is_set():
                    await stream.wait_for_stopped(buffer_full, timeout=idle_s)
            if not buffer:
                continue
            busy = False
            consuming = asyncio.get_running_loop().create_future()
            try:
                yield list(buffer)
            finally:
                buffer.clear()
                notify(consuming)  # the waiting event goes in
                buffer_full.clear()
                first_in.clear()
                buffer_consumed.set()
    finally:
        stream.enable_acks = enable_acks
        stream._processors.remove(add_to_buffer)
