"""Refused registrations and authentications of unknown phones (no device has the phone): an operator must
see why such a terminal does not come online, but the phone belongs to no enterprise, so these cannot go
into a message log. They are kept per phone in table ``refused_registration`` (migration 0039), which the
root enterprise's administrators list (api/query/entities_refused.py).

Rules:
- A frame never waits for this: ``record`` only updates a dictionary; a background task writes what
  gathered every ``unknown_refusals_flush_s`` in one upsert (``warehouse/queries/refused_terminals.py``).
- Bounded: at most ``unknown_refusals_buffer_max`` phones wait for a write (attempts of a phone already
  waiting are added up; a new phone past the bound is counted ``unknown_refusals_dropped``, not kept), and
  the table keeps at most ``unknown_refusals_max_rows`` phones (the least recently seen go), so a flood of
  random phones costs a bounded amount of memory and rows.
- A failed write (database down) is logged and counted (``unknown_refusals_write_failed``), its batch
  dropped; it never stops the gateway nor delays a terminal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from fleet.phones import canonical_phone
from gateway.counters import GatewayCounters

log = logging.getLogger("gateway.unknown_terminals")

UNKNOWN_PHONE = "unknown_phone"  # no active device has the phone
INVALID_PHONE = "invalid_phone"  # the header's phone is not a phone number (all zeros, not BCD digits)
TEXT_MAX = 64  # longest text kept from a terminal's fields (a 2019 terminal id is at most 30)


@dataclass(frozen=True)
class RefusedAttempt:
    """The last refused 0x0100 / 0x0102 of one phone, with how many came since the last write."""

    phone: str
    msg_id: int
    result: int
    reason: str
    peer: str
    gateway_id: str
    protocol_version: str
    first_seen: datetime
    last_seen: datetime
    attempts: int = 1
    terminal_id: str = ""
    manufacturer_id: str = ""
    terminal_model: str = ""
    plate_number: str = ""
    plate_color: int | None = None
    imei: str = ""


RefusalWriter = Callable[[list[RefusedAttempt]], Awaitable[None]]


def phone_key(phone: str) -> tuple[str, str]:
    """(the phone as stored, the refusal reason): the canonical form, or the header's text when it is none."""
    try:
        canonical = canonical_phone(phone)
    except ValueError:
        return phone[:TEXT_MAX], INVALID_PHONE
    return (canonical, UNKNOWN_PHONE) if canonical != "0" else (phone[:TEXT_MAX], INVALID_PHONE)


def _text(value: object) -> str:
    return str(value or "").strip("\x00 ")[:TEXT_MAX]


class UnknownTerminalLog:
    """The refusals gathered since the last write, one entry per phone."""

    def __init__(self, counters: GatewayCounters, *, buffer_max: int) -> None:
        self._counters = counters
        self._buffer_max = buffer_max
        self._pending: dict[str, RefusedAttempt] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def record(self, phone: str, msg_id: int, result: int, *, peer: str, gateway_id: str, protocol_version: str,
               registration: object | None = None, imei: str | None = None) -> None:
        """A refused 0x0100 (``registration``: its body) or 0x0102 (``imei``: a 2019 body's) of an unknown
        phone. Never raises, never waits."""
        stored, reason = phone_key(phone)
        now = datetime.now(UTC)
        fields: dict[str, object] = {}
        if registration is not None:
            fields = {"terminal_id": _text(getattr(registration, "terminal_id", "")),
                      "manufacturer_id": _text(getattr(registration, "manufacturer_id", "")),
                      "terminal_model": _text(getattr(registration, "terminal_model", "")),
                      "plate_number": _text(getattr(registration, "plate_number", "")),
                      "plate_color": getattr(registration, "plate_color", None)}
        if imei:
            fields["imei"] = _text(imei)
        previous = self._pending.get(stored)
        if previous is None:
            if len(self._pending) >= self._buffer_max:
                self._counters.unknown_refusals_dropped += 1
                return
            self._pending[stored] = RefusedAttempt(stored, msg_id, result, reason, peer[:TEXT_MAX], gateway_id,
                                                   protocol_version, now, now, 1, **fields)  # type: ignore[arg-type]
        else:
            self._pending[stored] = replace(previous, msg_id=msg_id, result=result, reason=reason, peer=peer[:TEXT_MAX],
                                            protocol_version=protocol_version, last_seen=now,
                                            attempts=previous.attempts + 1, **fields)  # type: ignore[arg-type]
        self._counters.unknown_refusals += 1

    def take(self) -> list[RefusedAttempt]:
        """What gathered since the last call, sorted by phone (two gateways upsert in one order: no deadlock)."""
        pending, self._pending = self._pending, {}
        return sorted(pending.values(), key=lambda attempt: attempt.phone)

    async def write_loop(self, write: RefusalWriter, interval_s: float) -> None:
        """Write what gathered every ``interval_s`` until cancelled (then once more, for a clean stop)."""
        try:
            while True:
                await asyncio.sleep(interval_s)
                await self.flush(write)
        except asyncio.CancelledError:
            await self.flush(write)
            raise

    async def flush(self, write: RefusalWriter) -> None:
        batch = self.take()
        if not batch:
            return
        try:
            await write(batch)
        except Exception as exc:  # the database's failure must not stop the gateway: counted and logged
            self._counters.unknown_refusals_write_failed += len(batch)
            log.warning("refused registrations of %d unknown phones not recorded: %s: %s", len(batch),
                        type(exc).__name__, str(exc)[:200])
