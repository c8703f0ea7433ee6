"""Live positions for the console map: coalesced per enterprise, one ``kind: positions`` message each.

The live agent feeds ``LivePositions.add`` with every valid fix; a timer calls ``flush`` every
``live_coalesce_ms``. Live positions are a view, not a record: they are not retried after a crash
(the map resyncs from ``device_last`` over REST), so this agent acks as it goes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fleet.topics import CONSOLE_EVENTS
from streams import console
from streams.deadletter import Send, encode
from streams.directory import Directory
from streams.messages import Fix, PayloadError, parse_uplink
from streams.state_rules import Rules, derive_biz_state
from streams.states import StateStore
from streams.validation import Limits, classify_uplink


def biz_state_of(fix: Fix, store: StateStore | None, rules: Rules) -> int:
    """The states agent's current business state, or (not seen yet) the state the fix alone implies."""
    known = store.peek(fix.device_id) if store is not None else None
    if known is not None and known.biz_state is not None:
        return int(known.biz_state)
    return int(derive_biz_state(online=True, positioned=fix.positioned, fresh=True, acc_on=fix.acc_on,
                                speed_kmh=fix.speed_kmh, rules=rules))


class LivePositions:
    def __init__(self, directory: Directory, send: Send, limits: Limits, rules: Rules,
                 store: StateStore | None = None) -> None:
        self.coalescer = console.LiveCoalescer()
        self.directory, self.send = directory, send
        self.limits, self.rules, self.store = limits, rules, store
        self.messages_sent = 0

    def add(self, value: Any) -> None:
        """Step 1: keep the uplink's valid fixes (invalid ones are the positions agent's business)."""
        try:
            fixes = classify_uplink(parse_uplink(value), self.limits).fixes
        except PayloadError:
            return
        self.add_fixes(fixes)

    def add_fixes(self, fixes: Iterable[Fix]) -> None:
        """Step 1 for fixes already classified valid (the uplinks agent's positions plan). A fix flagged
        implausible (``quality``) never moves a vehicle on the map: it keeps its last plausible fix."""
        for fix in fixes:
            if not fix.quality:
                self.coalescer.add(fix, biz_state_of(fix, self.store, self.rules))

    async def flush(self) -> int:
        """Step 2 (timer): one message per enterprise with pending positions. Returns messages sent."""
        sent = 0
        for enterprise_id, positions in self.coalescer.drain().items():
            path = await self.directory.enterprise_path(enterprise_id)
            payload = console.positions_event(enterprise_id, path, positions)
            await self.send(CONSOLE_EVENTS, str(enterprise_id).encode(), encode(payload))
            sent += 1
        self.messages_sent += sent
        return sent
