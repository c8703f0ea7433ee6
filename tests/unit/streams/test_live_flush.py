"""streams.live: the live-flush task sends the first fixes after a quiet window at once and, under load,
at most one message per enterprise per window (platform-spec, live map "position to marker")."""

from __future__ import annotations

import asyncio
import json

from streams.live import LivePositions
from streams.state_rules import Rules

from .test_console import fix
from .test_processors import LIMITS
from .test_uplinks import FakeDirectory

WINDOW_S = 1.0  # long, so a flush that waited for it could not pass for one that did not


async def _flushes() -> tuple[list[tuple[float, list[int]]], float]:
    loop = asyncio.get_running_loop()
    sent: list[tuple[float, list[int]]] = []
    arrived = asyncio.Queue[None]()

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        rows = json.loads(value)["rows"]
        sent.append((loop.time(), [row[1] for row in rows]))  # deviceId
        arrived.put_nowait(None)

    live = LivePositions(FakeDirectory(), send, LIMITS, Rules(600, 5), window_s=WINDOW_S)  # type: ignore[arg-type]
    task = asyncio.create_task(live.run())
    try:
        started = loop.time()
        live.add_fixes([fix(1, 10, 0)])  # the map is quiet: goes at once
        await asyncio.wait_for(arrived.get(), WINDOW_S / 2)
        live.add_fixes([fix(2, 10, 0)])  # within the window: waits for its end, joined by the next take's
        live.add_fixes([fix(3, 10, 0)])
        await asyncio.wait_for(arrived.get(), WINDOW_S * 3)
    finally:
        task.cancel()
    return sent, started


def test_live_positions_go_at_once_when_quiet_and_once_per_window_under_load() -> None:
    sent, started = asyncio.run(_flushes())
    (first_at, first), (second_at, second) = sent
    assert first == [1] and first_at - started < WINDOW_S / 2
    assert second == [2, 3]  # one message for both takes' fixes
    assert second_at - first_at >= WINDOW_S * 0.9
