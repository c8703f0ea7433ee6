"""What a virtual terminal still owes the platform: positions not yet acknowledged, in fix order.

Pure bookkeeping (no I/O) so the resend and backlog rules are unit-testable:
- a position sent as 0x0200 and not acknowledged within `ack_timeout_s` is resent (new serial);
- positions generated while disconnected, and those unacknowledged when the connection dropped, are
  the backlog: after the next authentication they go up as 0x0704 (kind 1) in batches of
  `batch_items`, oldest first, one batch in flight at a time;
- an acknowledgement (0x8001 for the serial) removes every position that serial carried.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(eq=False)
class Position:
    fix_at: datetime
    report: Any  # the 0x0200 body object (also an item of a 0x0704)
    sent: bool = False  # put on the wire at least once (counted in `sent` once)
    backlog: bool = False  # owed from an earlier connection: goes up in a 0x0704
    sent_at: float | None = None  # when last sent on the current connection
    seq: int | None = None


@dataclass
class OutboxStats:
    sent: int = 0
    acked: int = 0
    resent: int = 0
    backlog_uploaded: int = 0
    batches: int = 0


@dataclass
class Outbox:
    ack_timeout_s: float
    batch_items: int
    max_positions: int = 100_000  # oldest dropped beyond this (a real terminal's blind-area store)
    stats: OutboxStats = field(default_factory=OutboxStats)
    _positions: OrderedDict[int, Position] = field(default_factory=OrderedDict)  # id(position) -> position
    _by_seq: dict[int, list[Position]] = field(default_factory=dict)
    _batch_seq: int | None = None
    dropped: int = 0

    def __len__(self) -> int:
        return len(self._positions)

    def add(self, position: Position) -> None:
        self._positions[id(position)] = position
        while len(self._positions) > self.max_positions:
            self._positions.popitem(last=False)
            self.dropped += 1

    def disconnected(self) -> None:
        """The connection dropped: everything unacknowledged becomes backlog."""
        for position in self._positions.values():
            position.backlog = True
            position.sent_at = None
            position.seq = None
        self._by_seq.clear()
        self._batch_seq = None

    def next_live(self) -> list[Position]:
        """Positions of this connection never sent yet (sent as 0x0200)."""
        return [p for p in self._positions.values() if not p.backlog and p.sent_at is None]

    def due_for_resend(self, now: float) -> list[Position]:
        return [p for p in self._positions.values()
                if not p.backlog and p.sent_at is not None and now - p.sent_at >= self.ack_timeout_s]

    def next_batch(self, now: float) -> list[Position]:
        """The next backlog batch, or [] while one is in flight and not yet overdue."""
        if self._batch_seq is not None:
            first = self._by_seq.get(self._batch_seq)
            if first and first[0].sent_at is not None and now - first[0].sent_at < self.ack_timeout_s:
                return []
            if first:
                self.stats.resent += len(first)
            self._by_seq.pop(self._batch_seq, None)
            self._batch_seq = None
        return [p for p in self._positions.values() if p.backlog][: self.batch_items]

    def mark_sent(self, positions: list[Position], seq: int, now: float, batch: bool = False) -> None:
        for position in positions:
            if position.sent:
                if not batch:
                    self.stats.resent += 1
            else:
                position.sent = True
                self.stats.sent += 1
            if position.seq is not None and not batch:
                self._by_seq.pop(position.seq, None)
            position.sent_at = now
            position.seq = seq
        self._by_seq[seq] = list(positions)
        if batch:
            self._batch_seq = seq
            self.stats.batches += 1

    def acknowledged(self, seq: int) -> list[Position]:
        """Positions the platform acknowledged with this serial (0x8001 result 0)."""
        positions = self._by_seq.pop(seq, [])
        batch = seq == self._batch_seq
        if batch:
            self._batch_seq = None
        done = []
        for position in positions:
            if self._positions.pop(id(position), None) is not None:
                done.append(position)
                self.stats.acked += 1
                if batch:
                    self.stats.backlog_uploaded += 1
        return done

    def rejected(self, seq: int) -> None:
        """A failure result: the positions go back to be sent again."""
        for position in self._by_seq.pop(seq, []):
            position.sent_at = None
        if seq == self._batch_seq:
            self._batch_seq = None

    @property
    def has_backlog(self) -> bool:
        return any(p.backlog for p in self._positions.values())

    def oldest_unacked_sent_at(self) -> float | None:
        times = [p.sent_at for p in self._positions.values() if p.sent_at is not None]
        return min(times) if times else None
