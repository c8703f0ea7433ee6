"""The forwarding loop every exchange link shares, with a scripted consumer and link (no Kafka here; the same loop
against the real Kafka: tests/integration/exchange/test_regulator_outage.py and test_link_service.py)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from exchange.link import forward_loop
from exchange.link.resend import SentWindow

TP = ("jt808.uplink.v1", 0)


@dataclass
class Record:
    offset: int
    topic: str = TP[0]


@dataclass
class Consumer:
    """A partition that always has the next record: every fetch returns one."""

    next_offset: int = 0
    commits: list[tuple[float, dict[Any, int]]] = field(default_factory=list)

    async def getmany(self, timeout_ms: int = 0, max_records: int = 0) -> dict[Any, list[Record]]:
        await asyncio.sleep(0.002)
        self.next_offset += 1
        return {TP: [Record(self.next_offset - 1)]}

    def assignment(self) -> set[Any]:
        return {TP}

    async def commit(self, offsets: dict[Any, int]) -> None:
        self.commits.append((time.monotonic(), dict(offsets)))


@dataclass
class Link:
    up: asyncio.Event = field(default_factory=asyncio.Event)
    losses: int = 0
    lost_at: float = 0.0
    bytes_at_loss: int = 0
    bytes_written: int = 0


def test_offsets_are_committed_at_most_once_a_second_and_each_commit_carries_the_newest_settled_offset() -> None:
    handled: list[int] = []

    async def scenario() -> Consumer:
        consumer, link = Consumer(), Link()
        link.up.set()

        async def handle(record: Record, resend: bool) -> None:
            handled.append(record.offset)
            link.bytes_written += 100

        window: SentWindow[Any] = SentWindow(0.0, 0)  # nothing doubtful: every handled record is settled at once
        task = asyncio.create_task(forward_loop.forward(consumer, link, window, handle, "test"))
        await asyncio.sleep(2.5)
        task.cancel()
        return consumer

    consumer = asyncio.run(scenario())
    assert len(handled) > 100, "the loop handled records between its commits"
    assert 2 <= len(consumer.commits) <= 3, [at for at, _ in consumer.commits]
    times = [at for at, _ in consumer.commits]
    assert all(b - a >= forward_loop.COMMIT_EVERY_S for a, b in zip(times, times[1:], strict=False)), times
    # the first fetch is committed at once; later ones carry what was handled by then
    assert consumer.commits[0][1] == {TP: 1}
    assert consumer.commits[-1][1][TP] > consumer.commits[0][1][TP] + 100
