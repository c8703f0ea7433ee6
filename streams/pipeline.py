"""The uplink pipeline's runner: one declared list of steps, one failure policy for all of them.

A :class:`Step` declares its name (the dead letters' ``agent`` and ``fleet deadletters replay --step``), the
message ids it takes (``None``: every uplink; a batch without one of them skips the step) and whether it is a
*view* (live positions: best effort). Its ``run(context, batch)`` gets the pipeline's resources and the :class:`Batch`: the events, each uplink
parsed once (``uplinks``, index-aligned), the positions plan (valid fixes per event, refusals) and a
``refuse(index, reason)`` for data it cannot take.

The policy, applied here and nowhere else (streams/README.md, "Failure policy"):

- bad data: the step dead-letters it itself (``batch.refuse``, or its own DeadLetters) and the rest of the
  batch goes on; a data error (``psycopg.DataError`` / ``IntegrityError``) escaping the step dead-letters the
  step's events with the reason;
- an outage (database connection, Kafka, a socket) escaping the step: the step is run again with backoff,
  forever. ``process`` does not return, so the events are not acknowledged until the step has succeeded;
- a bug (any other exception): the step's events are dead-lettered with the traceback under the step's name,
  counted in ``failures``, and the other steps still run. ``fleet deadletters replay --step NAME`` sends them
  back for that step only (a record with the ``fleet.step`` header runs through that step alone).

A view never retries nor dead-letters: a failure there is logged and the batch goes on.

One runner for every uplink topic: ``jt808.uplink.v1`` (streams.uplinks) and ``gb32960.uplink.v1``
(streams.gb_uplinks) differ only in ``parse``, which turns a batch's values into the parsed items (anything
with a ``msg_id``, or a PayloadError) and the positions plan the steps share.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

import psycopg
from aiokafka.errors import KafkaError

from streams.db import DATA_ERRORS
from streams.deadletter import DeadLetters, EventLike, Send
from streams.messages import PayloadError
from streams.positions import REPORT_ZONE, PlannedBatch, decode_batch, plan_decoded
from streams.validation import Limits

log = logging.getLogger(__name__)

# Kafka header naming the one step a replayed dead letter is for (streams/replay.py writes it).
STEP_HEADER = "fleet.step"

# An outage, not a bug: the step is retried with backoff and the batch is not acknowledged meanwhile.
OUTAGES: tuple[type[BaseException], ...] = (psycopg.OperationalError, psycopg.InterfaceError, OSError, KafkaError)


@dataclass
class Batch:
    """What every step may read: the events, their uplinks parsed once, the positions plan."""

    events: Sequence[EventLike]
    uplinks: list[Any]  # jt808: Uplink | PayloadError; gb32960: streams.gb_frames.GbFrame | PayloadError
    plan: PlannedBatch
    refusals: list[tuple[int, str]] = field(default_factory=list)

    def refuse(self, index: int, reason: str) -> None:
        """Dead-letter event ``index`` for the running step (bad data); the rest of the batch goes on."""
        self.refusals.append((index, reason))


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Any, Batch], Awaitable[Any]]  # run(context, batch): context = the pipeline's resources
    msg_ids: frozenset[int] | None = None
    view: bool = False

    def indices(self, batch: Batch) -> list[int]:
        """The events of the batch this step takes (the ones its failure dead-letters)."""
        if self.msg_ids is None:
            return list(range(len(batch.events)))
        return [i for i, u in enumerate(batch.uplinks)
                if not isinstance(u, PayloadError) and getattr(u, "msg_id", None) in self.msg_ids]


def step_of(event: EventLike) -> str | None:
    """The ``fleet.step`` header of a replayed dead letter, else None (Faust events: dict or pairs)."""
    headers = getattr(event, "headers", None)
    if not headers:
        return None
    pairs = headers.items() if isinstance(headers, dict) else headers
    for name, value in pairs:
        if name == STEP_HEADER:
            return value.decode() if isinstance(value, bytes | bytearray) else str(value)
    return None


# parse(values, limits, zone) -> (the parsed items, index-aligned, and the positions plan)
Parse = Callable[[Sequence[Any], Limits, tzinfo], tuple[list[Any], PlannedBatch]]


def parse_jt808(values: Sequence[Any], limits: Limits, zone: tzinfo) -> tuple[list[Any], PlannedBatch]:
    uplinks = decode_batch(values)
    return list(uplinks), plan_decoded(uplinks, limits, zone)


class Pipeline:
    """Runs ``steps`` in order over each batch with the policy above; ``send`` produces dead letters."""

    def __init__(self, steps: Sequence[Step], context: Any, send: Send, limits: Limits, zone: tzinfo = REPORT_ZONE,
                 *, max_backoff_s: float = 10.0, parse: Parse = parse_jt808) -> None:
        self.parse = parse
        self.steps, self.context = list(steps), context
        self.limits, self.zone, self.max_backoff_s = limits, zone, max_backoff_s
        self.dead = {step.name: DeadLetters(send, step.name) for step in self.steps}
        self.unknown_step = DeadLetters(send, "pipeline")
        self.failures: Counter[str] = Counter()  # bugs per step (each dead-lettered its events)
        self.retries: Counter[str] = Counter()   # outages per step (each retried)

    async def process(self, events: Sequence[EventLike]) -> None:
        """Returns once every step took the batch (or dead-lettered what it could not take)."""
        replays: dict[str, list[EventLike]] = defaultdict(list)
        normal: list[EventLike] = []
        for event in events:
            name = step_of(event)
            (normal if name is None else replays[name]).append(event)
        if normal:
            await self.run(normal, self.steps)
        for name, replayed in replays.items():
            steps = [step for step in self.steps if step.name == name]
            if not steps:
                for event in replayed:
                    await self.unknown_step(event, f"replay for unknown step {name!r}")
                continue
            await self.run(replayed, steps)

    async def run(self, events: Sequence[EventLike], steps: Sequence[Step]) -> None:
        uplinks, plan = self.parse([event.value for event in events], self.limits, self.zone)
        batch = Batch(events, uplinks, plan)
        for step in steps:
            if step.msg_ids is not None and not step.indices(batch):
                continue
            await self._apply(step, batch)

    async def _apply(self, step: Step, batch: Batch) -> None:
        delay_s = 0.1
        while True:
            batch.refusals = []
            try:
                await step.run(self.context, batch)
                break
            except OUTAGES as exc:
                if step.view:
                    log.warning("%s: batch skipped (%s)", step.name, exc)
                    return
                self.retries[step.name] += 1
                log.warning("%s: unavailable (%r); retrying in %.1f s", step.name, exc, delay_s)
                await asyncio.sleep(delay_s)
                delay_s = min(delay_s * 2, self.max_backoff_s)
            except DATA_ERRORS as exc:
                if step.view:
                    return
                await self._dead_letter(step, batch, step.indices(batch), f"refused by the database: {exc}")
                return
            except Exception:  # a bug, not data nor an outage: park the step's events, the others run
                log.exception("%s: batch failed", step.name)
                if step.view:
                    return
                self.failures[step.name] += 1
                await self._dead_letter(step, batch, step.indices(batch),
                                        f"internal error: {traceback.format_exc(limit=20)}")
                return
        for index, reason in batch.refusals:
            await self.dead[step.name](batch.events[index], reason)

    async def _dead_letter(self, step: Step, batch: Batch, indices: Sequence[int], reason: str) -> None:
        for index in indices:
            await self.dead[step.name](batch.events[index], reason)
