"""Live positions for the console map: coalesced per enterprise, one ``kind: positions`` message each.

The live step feeds ``LivePositions.add_fixes`` with every valid fix; the ``live-flush`` task (``run``)
sends them: at once when the last flush is at least ``live_coalesce_ms`` old (an idle map waits for no
window: platform-spec, live map "position to marker"), else when that window closes, so under load there
is still at most one message per enterprise per window (and the take, whose window is longer, bounds it
first: fixes arrive once per take). Live positions are a view, not a record: they are not retried after
a crash (the map resyncs from ``device_last`` over REST), so this step acks as it goes.
"""

from __future__ import annotations

import asyncio
import logging
import math
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

log = logging.getLogger(__name__)


def biz_state_of(fix: Fix, store: StateStore | None, rules: Rules) -> int:
    """The states agent's current business state, or (not seen yet) the state the fix alone implies."""
    known = store.peek(fix.device_id) if store is not None else None
    if known is not None and known.biz_state is not None:
        return int(known.biz_state)
    return int(derive_biz_state(online=True, positioned=fix.positioned, fresh=True, acc_on=fix.acc_on,
                                speed_kmh=fix.speed_kmh, rules=rules))


class LivePositions:
    def __init__(self, directory: Directory, send: Send, limits: Limits, rules: Rules,
                 store: StateStore | None = None, *, window_s: float = 0.1) -> None:
        self.coalescer = console.LiveCoalescer()
        self.directory, self.send = directory, send
        self.limits, self.rules, self.store = limits, rules, store
        self.window_s = window_s  # at most one flush per window (live_coalesce_ms)
        self.messages_sent = 0
        self._pending = asyncio.Event()  # set when fixes wait for the flush task
        self._last_flush = -math.inf

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
        added = False
        for fix in fixes:
            if not fix.quality:
                self.coalescer.add(fix, biz_state_of(fix, self.store, self.rules))
                added = True
        if added:
            self._pending.set()

    async def run(self) -> None:
        """The ``live-flush`` task: flushes as soon as fixes wait and the last flush is at least
        ``window_s`` old, else when it is; never returns (cancelled with the worker)."""
        loop = asyncio.get_running_loop()
        while True:
            await self._pending.wait()
            self._pending.clear()
            wait_s = self._last_flush + self.window_s - loop.time()
            if wait_s > 0:  # under load: the fixes of the next takes join this flush
                await asyncio.sleep(wait_s)
            self._last_flush = loop.time()
            try:
                await self.flush()
            except Exception:
                log.exception("live-flush failed")

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
