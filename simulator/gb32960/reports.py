"""What a GB terminal still owes the platform: reports not yet acknowledged, in collection order.

Pure bookkeeping (no I/O), the GB/T 32960.3-2016 §7.2 rules:
- a report goes up as real-time data (0x02) on the connection it was made on;
- one the platform has not answered within ``ack_timeout_s``, those unanswered when the connection
  dropped and those made while disconnected go up as back-filled data (0x03, the same blocks and the same
  collection time) after the next vehicle login, oldest first, at most ``window`` in flight;
- the platform's answer (response flag 0x01) carries the collection time of the report it answers
  (§6.3.2), which removes that report; an answer without a time, or with a time no report in flight has,
  removes the oldest report in flight of that command; a failure answer (0x02) puts the report back to be
  sent again as back-filled data.
GB 17691 / HJ 1239 frames have no response flag, so that terminal's reports count as delivered once
written (``delivered``); what it made while disconnected still goes up as back-filled data (0x03).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

REALTIME, REISSUED = 0x02, 0x03


@dataclass(eq=False)
class Report:
    collected_at: datetime
    blocks: tuple[Any, ...]
    serial: int = 0  # GB 17691 information serial
    sent: bool = False  # on the wire at least once (counted once in ``sent``)
    backlog: bool = False  # goes up as back-filled data
    sent_at: float | None = None  # when last sent on this connection
    command: int | None = None  # what it was last sent as


@dataclass
class ReportStats:
    sent: int = 0
    acked: int = 0
    resent: int = 0
    backfilled: int = 0  # acknowledged (or delivered) as 0x03
    rejected: int = 0
    dropped: int = 0


@dataclass
class ReportQueue:
    ack_timeout_s: float
    window: int = 10  # back-filled reports in flight at once
    max_reports: int = 50_000  # oldest dropped beyond this (the terminal's own store)
    stats: ReportStats = field(default_factory=ReportStats)
    _reports: OrderedDict[datetime, Report] = field(default_factory=OrderedDict)

    def __len__(self) -> int:
        return len(self._reports)

    def add(self, report: Report) -> None:
        self._reports[report.collected_at] = report
        while len(self._reports) > self.max_reports:
            self._reports.popitem(last=False)
            self.stats.dropped += 1

    def disconnected(self) -> None:
        """The connection dropped: everything unacknowledged goes up as back-filled data next time."""
        for report in self._reports.values():
            report.backlog, report.sent_at = True, None

    def next_live(self) -> list[Report]:
        return [r for r in self._reports.values() if not r.backlog and r.sent_at is None]

    def next_backfill(self, now: float) -> list[Report]:
        """Back-filled reports to send now: overdue ones become backlog, and backlog fills the window."""
        for report in self._reports.values():
            if report.sent_at is not None and now - report.sent_at >= self.ack_timeout_s:
                report.backlog, report.sent_at = True, None
        in_flight = sum(1 for r in self._reports.values() if r.backlog and r.sent_at is not None)
        free = max(0, self.window - in_flight)
        return [r for r in self._reports.values() if r.backlog and r.sent_at is None][:free]

    def mark_sent(self, report: Report, command: int, now: float) -> None:
        if report.sent:
            self.stats.resent += 1
        else:
            report.sent = True
            self.stats.sent += 1
        report.sent_at, report.command = now, command

    def acknowledged(self, collected_at: datetime | None, command: int) -> Report | None:
        """The platform's success answer to ``command`` for the report of ``collected_at`` (None: the
        oldest in flight as that command). Returns the report it removed, if any."""
        report = self._find(collected_at, command)
        if report is None:
            return None
        del self._reports[report.collected_at]
        self.stats.acked += 1
        if command == REISSUED:
            self.stats.backfilled += 1
        return report

    def rejected(self, collected_at: datetime | None, command: int) -> None:
        report = self._find(collected_at, command)
        if report is not None:
            self.stats.rejected += 1
            report.backlog, report.sent_at = True, None

    def delivered(self) -> int:
        """Without answers (GB 17691): what was written on this connection counts as delivered."""
        done = [r for r in self._reports.values() if r.sent_at is not None]
        for report in done:
            self.acknowledged(report.collected_at, report.command or REALTIME)
        return len(done)

    def _find(self, collected_at: datetime | None, command: int) -> Report | None:
        if collected_at is not None:
            report = self._reports.get(collected_at)
            if report is not None and report.sent_at is not None:
                return report
        # no time, or a time of no report in flight (a platform answering with its own clock): the oldest
        # in flight as that command, so a platform that answers every report still empties the queue
        return next((r for r in self._reports.values() if r.sent_at is not None and r.command == command), None)
