"""Logging of hostile input at a bounded rate. Counters stay exact (`GatewayCounters`); log lines do
not: a connection logs its first `per_connection` bad inputs, then one summary line when it closes,
and all connections together draw from a token bucket of `per_s` lines per second (`burst` at once).
Hex dumps are truncated to `hex_bytes`. Without this, 1 MB of garbage cost ~2 MB of log."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from gateway.counters import GatewayCounters
from protocols.jt808.redact import CREDENTIAL_MSG_IDS, redact_frame


class Offender(Protocol):
    hostile_logged: int
    hostile_suppressed: int


class HexDump:
    """`bytes.hex()` of at most `limit` bytes, computed only if the line is actually logged; credentials
    never (protocols/jt808/redact.py)."""

    __slots__ = ("data", "limit")

    def __init__(self, data: bytes, limit: int) -> None:
        self.data, self.limit = data, limit

    def __str__(self) -> str:
        data = self.data
        if len(data) >= 3 and data[0] == 0x7E and int.from_bytes(data[1:3], "big") in CREDENTIAL_MSG_IDS:
            # a frame that may hold an auth code or a dial-up password: starred, or its header only
            redacted = redact_frame(data)
            data = redacted if redacted is not None else data[:13]
        if len(data) <= self.limit:
            return data.hex()
        return f"{data[:self.limit].hex()}... ({len(data)} bytes)"


class HostileInputLog:
    def __init__(self, counters: GatewayCounters, clock: Callable[[], float], *, per_connection: int,
                 per_s: float, burst: int, hex_bytes: int) -> None:
        self._counters = counters
        self._clock = clock
        self._per_connection = per_connection
        self._per_s = per_s
        self._burst = float(max(1, burst))
        self._tokens = self._burst
        self._refilled_at = clock()
        self.hex_bytes = hex_bytes

    def hex(self, data: bytes) -> HexDump:
        return HexDump(data, self.hex_bytes)

    def log(self, logger: logging.Logger, level: int, offender: Offender, msg: str, *args: Any) -> None:
        """Log one bad input of `offender` unless its own quota or the global rate is used up."""
        if offender.hostile_logged < self._per_connection and self._take():
            offender.hostile_logged += 1
            logger.log(level, msg, *args)
        else:
            offender.hostile_suppressed += 1
            self._counters.log_lines_suppressed += 1

    def summary(self, logger: logging.Logger, offender: Offender, msg: str, *args: Any) -> None:
        """One line (still rate-limited) for the bad inputs of `offender` that were not logged."""
        if offender.hostile_suppressed and self._take():
            logger.warning(msg + ": %d more bad inputs not logged (see the counters)", *args,
                           offender.hostile_suppressed)

    def _take(self) -> bool:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._refilled_at) * self._per_s)
        self._refilled_at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True
