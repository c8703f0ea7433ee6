"""The forwarding loop every exchange link shares (JT/T 809 links, GB/T 32960 superiors): read a consumer group,
hand each record to the link, commit only what no link loss can have lost (exchange.link.resend).

At-least-once to the superior (platform-spec §2 "Data exchange"): a record's offset is committed once its
frames were written and left the doubtful window; after a loss the doubtful records and the rest of the batch
are read again, in order, and flagged so the link sends them as back-fill (JT/T 809 0x1203, GB/T 32960 0x03).
Consumption stops while the link is down, so an outage is a gap in Kafka, not in memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from exchange.link.links import LinkDown
from exchange.link.resend import SentWindow

log = logging.getLogger(__name__)
# Offsets are committed at most this often: at 10,000 positions a second a commit after every fetch was a request
# to the broker every few milliseconds. A restart reads again at most this much more than the resend window.
COMMIT_EVERY_S = 1.0


class ResendingLink(Protocol):
    """What the loop reads of a link: up or not, how many losses, and its written bytes (at the last loss)."""

    up: asyncio.Event
    losses: int
    lost_at: float
    bytes_at_loss: int
    bytes_written: int


# handle(record, is_resend): write the record's frames; raise LinkDown when it cannot.
Handle = Callable[[Any, bool], Awaitable[None]]


async def forward(consumer: Any, link: ResendingLink, window: SentWindow[Any], handle: Handle, name: str) -> None:
    """Run until cancelled; ``consumer`` is started and stopped by the caller. ``name`` names the link in logs."""
    losses = link.losses
    commit_after = 0.0
    while True:
        await link.up.wait()  # link down: stop consuming
        if link.losses != losses:  # lost while idle (or waiting for the link)
            losses = link.losses
            _rewind(consumer, link, window, {}, name)
        batch = await consumer.getmany(timeout_ms=500, max_records=2000)
        if not batch:
            continue
        unhandled = {tp: records[0].offset for tp, records in batch.items()}
        try:
            for tp, records in batch.items():
                for record in records:
                    if link.losses != losses:
                        raise LinkDown("the link was lost")
                    await handle(record, window.is_resend(tp, record.offset))
                    window.add(tp, record.offset, time.monotonic(), link.bytes_written)
                    unhandled[tp] = record.offset + 1
        except LinkDown:
            losses = link.losses
            _rewind(consumer, link, window, {tp: o for tp, o in unhandled.items() if o <= batch[tp][-1].offset}, name)
            continue
        settled = window.settle(time.monotonic(), link.bytes_written)
        if time.monotonic() < commit_after:
            continue  # what settled now is committed with the next commit (the window keeps the newest offsets)
        assigned = consumer.assignment()
        commit = {tp: offset for tp, offset in settled.items() if tp in assigned}
        if commit:
            await consumer.commit(commit)
            commit_after = time.monotonic() + COMMIT_EVERY_S


def _rewind(consumer: Any, link: ResendingLink, window: SentWindow[Any], unhandled: dict[Any, int], name: str) -> None:
    """A link that carried data was lost (or nothing could be written): read again from the first record whose
    frames the superior may not have read (exchange.link.resend), and from the first record of the batch not
    handled yet; what was sent before goes again as back-fill."""
    seek = window.rewind(link.lost_at, link.bytes_at_loss, unhandled)
    assigned = consumer.assignment()
    for tp, offset in seek.items():
        if tp in assigned:
            consumer.seek(tp, offset)
    resent = sum(window.resend_below.get(tp, offset) - offset for tp, offset in seek.items())
    log.warning("%s: link lost; %d record(s) written in the %.0f s / %d bytes before are read again and sent as "
                "back-fill", name, max(resent, 0), window.seconds, window.bytes)
