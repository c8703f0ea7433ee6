"""Which Kafka records to read again after a link loss (pure; exchange.link.service uses it).

A frame written to a link's socket is not yet received: it may sit in our socket's send queue, in the
superior's kernel receive buffer or in its process's read buffer, and all of it is lost when the superior
goes away (SIGTERM, a crash, a reset). TCP does not tell the writer which bytes the peer's process read.
A position acknowledged to a terminal must still reach the superior (at-least-once, platform-spec §2 "Data
exchange"; JT/T 809 §5.3.3.2.3 back-fills what a broken link did not carry, and the superior de-duplicates by
vehicle and fix time), so after a loss the records whose frames were written in the doubtful window are read
again and sent as 0x1203 back-fill:

- every record handled in the last ``seconds`` before the loss was noticed (the time a dead superior takes
  to be noticed: a reset or a closed socket is seen at the next read or write), and
- at least the records of the last ``bytes`` bytes written, however old (what socket buffers can hold
  while a slow superior works through them).

Records leave the window once both are behind them; only then is their offset committed, so a restart of
the link service in the middle of an outage also sends the window again. Repeats are bounded by the window;
order is kept because a partition is read again from its first doubtful record onwards.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Generic, TypeVar

TP = TypeVar("TP")  # a Kafka topic partition


@dataclass
class _Handled:
    offset: int
    at: float  # monotonic seconds, after its frames were written
    end_bytes: int  # bytes written on the links up to and including its frames


@dataclass
class SentWindow(Generic[TP]):
    """Per partition, the records handled (their frames written) that a link loss could still have lost."""

    seconds: float
    bytes: int
    handled: dict[TP, deque[_Handled]] = field(default_factory=dict)
    next_offset: dict[TP, int] = field(default_factory=dict)  # per partition, after the last record handled
    resend_below: dict[TP, int] = field(default_factory=dict)  # records read again below these go as back-fill

    def add(self, tp: TP, offset: int, at: float, end_bytes: int) -> None:
        """A record handled: every frame it gave was written (``end_bytes``: the links' byte count after). A
        partition read again from an earlier offset (a rebalance resumes from the committed one) replaces what
        the window held from there on."""
        entries = self.handled.setdefault(tp, deque())
        while entries and entries[-1].offset >= offset:
            entries.pop()
        entries.append(_Handled(offset, at, end_bytes))
        self.next_offset[tp] = offset + 1

    def is_resend(self, tp: TP, offset: int) -> bool:
        """True for a record read again after a loss: its positions go as 0x1203 back-fill."""
        return offset < self.resend_below.get(tp, -1)

    def _doubtful(self, entry: _Handled, now: float, total_bytes: int) -> bool:
        return entry.at >= now - self.seconds or entry.end_bytes > total_bytes - self.bytes

    def settle(self, now: float, total_bytes: int) -> dict[TP, int]:
        """Drop the records no loss can concern any more; the offsets safe to commit (per partition, its first
        record still in the window, else the one after the last handled)."""
        commit: dict[TP, int] = {}
        for tp, entries in self.handled.items():
            while entries and not self._doubtful(entries[0], now, total_bytes):
                entries.popleft()
            commit[tp] = entries[0].offset if entries else self.next_offset[tp]
        return commit

    def rewind(self, now: float, total_bytes: int, unhandled: dict[TP, int] | None = None) -> dict[TP, int]:
        """A link was lost (noticed ``now``): per partition, the offset to read again from. ``unhandled``: the
        first record of the current batch not handled yet, per partition. The records from there up to the
        last one handled are marked to be sent as back-fill, and leave the window until they are handled again."""
        seek: dict[TP, int] = dict(unhandled or {})
        for tp, entries in self.handled.items():
            first = next((e.offset for e in entries if self._doubtful(e, now, total_bytes)), None)
            if first is not None:
                seek[tp] = min(seek.get(tp, first), first)
        for tp, offset in seek.items():
            entries = self.handled.get(tp, deque())
            while entries and entries[-1].offset >= offset:
                entries.pop()
            if tp in self.next_offset:
                self.resend_below[tp] = max(self.resend_below.get(tp, -1), self.next_offset[tp])
                self.next_offset[tp] = min(self.next_offset[tp], offset)
        return seek
