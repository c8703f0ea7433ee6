"""Ending what a test started on the event loop."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol


class Stoppable(Protocol):
    async def stop(self) -> None: ...


async def cancel_then_stop(task: asyncio.Task[Any], *servers: Stoppable) -> None:
    """Cancel ``task`` and wait until it has ended (its own clean-up included), then stop ``servers`` in order."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for server in servers:
        await server.stop()
