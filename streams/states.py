"""States agent steps: sessions and positions in, device state + logs + console pushes out.

Per event, in order:

1. decode (a bad session payload is dead-lettered; a bad uplink is left to the positions agent,
   which dead-letters it once);
2. ``StateStore.get``: the device's state, seeded from the database on first sight;
3. ``state_rules.apply_*``: pure, next state and the changes;
4. ``persist_changes``: one transaction, logs idempotent on their primary keys;
5. keep the new state, then push type 1 / type 6 to ``console.events.v1``.

Seeding is "as of" the first event's time (the last ACC / business-state log row *before* it), so a
replay after a crash re-derives the same transitions at the same times, which the logs' primary keys
absorb: nothing is logged twice.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import psycopg

from fleet.enums import BizState, DeviceState, PushType
from fleet.topics import CONSOLE_EVENTS, DEVICE_SESSIONS
from streams import console
from streams.db import DATA_ERRORS, Database
from streams.deadletter import DeadLetters, EventLike, Send, encode
from streams.directory import Directory
from streams.messages import (
    Fix,
    PayloadError,
    SecurityNotice,
    SessionEvent,
    Uplink,
    location_bodies,
    parse_fix,
    parse_sessions_record,
    parse_uplink,
)
from streams.state_rules import (
    AccChange,
    BizChange,
    Change,
    OnlineChange,
    Rules,
    apply_fix,
    apply_session,
    apply_tick,
)
from streams.state_rules import DeviceState as State
from streams.validation import Limits, usable_for_state
from warehouse.queries import device_states

log = logging.getLogger(__name__)


def seeded_state(device_id: int, row: tuple[Any, ...] | None, now_s: float) -> State:
    """State from ``device_states.seed_row_async``'s row. Raises PayloadError for an unknown device."""
    if row is None:
        raise PayloadError(f"unknown device {device_id}")
    dev_state, car_id, enterprise_id, acc, biz, conn_id, status, speed, lng, lat = row
    return State(
        device_id=device_id, car_id=car_id, enterprise_id=enterprise_id,
        online=dev_state == DeviceState.ONLINE, connection_id=conn_id,
        acc_on=None if acc is None else bool(acc),
        biz_state=None if biz is None else BizState(biz),
        positioned=bool((status or 0) & 2), speed_kmh=float(speed or 0.0), lng=lng, lat=lat,
        position_seen_s=now_s,  # grace: a device we just met gets no_signal_after_s to report
    )


class StateStore:
    """Per-device state of the devices this worker has seen. Cleared on rebalance (re-seeded)."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.monotonic) -> None:
        self._db = db
        self._clock = clock
        self.states: dict[int, State] = {}
        self.lock = asyncio.Lock()  # the agent and the no-signal timer never interleave on a device

    def peek(self, device_id: int) -> State | None:
        return self.states.get(device_id)

    async def get(self, device_id: int, as_of: datetime) -> State:
        state = self.states.get(device_id)
        if state is None:
            async def work(conn: psycopg.AsyncConnection[Any]) -> tuple[Any, ...] | None:
                return await device_states.seed_row_async(conn, device_id, as_of)

            state = seeded_state(device_id, await self._db.transact(work), self._clock())
            self.states[device_id] = state
        return state

    def clear(self) -> None:
        self.states.clear()


async def persist_changes(conn: psycopg.AsyncConnection[Any], state: State, changes: list[Change]) -> None:
    """Step 4: every change of one event, in the caller's transaction."""
    dev, car, ent = state.device_id, state.car_id, state.enterprise_id
    for change in changes:
        if isinstance(change, AccChange):
            await device_states.log_acc_async(conn, dev, change.at, change.acc_on, car, ent, change.lng, change.lat)
        elif isinstance(change, BizChange):
            await device_states.log_biz_async(conn, dev, change.at, change.biz_state, car, ent)
        else:
            await device_states.log_online_async(
                conn, dev, change.at, change.online, ent, change.reason, change.gateway_id, change.connection_id,
                applies=change.applies, session_address=change.session_address)


class StatesProcessor:
    """The states agent's body for one event, and the no-signal check for the timer."""

    def __init__(self, db: Database, store: StateStore, directory: Directory, send: Send,
                 dead_letters: DeadLetters, rules: Rules, limits: Limits,
                 clock: Callable[[], float] = time.monotonic,
                 utcnow: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.db, self.store, self.directory = db, store, directory
        self.send, self.dead_letters = send, dead_letters
        self.rules, self.limits = rules, limits
        self.clock, self.utcnow = clock, utcnow

    async def handle(self, event: EventLike) -> None:
        """Never raises for a bad message: it is dead-lettered (uplinks: skipped, see module doc)."""
        try:
            if event.message.topic == DEVICE_SESSIONS:
                record = parse_sessions_record(event.value)
                if isinstance(record, SecurityNotice):
                    await self._security(record)
                else:
                    await self._session(record)
            else:
                await self._uplink(event.value)
        except (PayloadError, psycopg.DataError, psycopg.IntegrityError) as exc:
            await self.dead_letters(event, f"{type(exc).__name__}: {exc}")

    async def handle_uplinks(self, events: Sequence[EventLike], state_fixes_by_event: Sequence[Sequence[Fix]], *,
                             dead_letters: DeadLetters | None = None) -> None:
        """A batch of uplinks, given as the fixes each one carries that are ``usable_for_state`` (index-aligned
        with ``events``; the positions plan parses them once for every step,
        ``streams.positions.PlannedBatch.state_fixes_by_event``): same result as ``handle`` on each event in
        order, but with one transaction (pipelined) for all of the batch's changes.

        The new states are kept and pushes sent only after that commit. If the database refuses the
        batch's data, nothing of it is kept and the batch is redone event by event (``_redo``), so
        only the culprit is dead-lettered, as before. The GB steps hand their fixes here too (step
        ``gb_transitions``, streams/gb_uplinks.py), with their own ``dead_letters`` (named after that step, so a
        replay runs it again); the 808 steps' are this processor's own (step ``states``).
        """
        dead_letters = dead_letters or self.dead_letters
        letters: list[tuple[int, str]] = []  # as handle(): e.g. an unknown device, after the commit
        async with self.store.lock:
            pending: dict[int, State] = {}
            changed: list[tuple[State, list[Change]]] = []
            for index, fixes in enumerate(state_fixes_by_event):
                for fix in fixes:
                    found = await self._batch_state(pending, fix.device_id, fix.fix_at)
                    if isinstance(found, str):
                        letters.append((index, found))
                        break  # handle() stopped at this uplink's first failing fix, too
                    state, changes = apply_fix(found, fix, self.clock(), self.rules)
                    pending[fix.device_id] = state
                    if changes:
                        changed.append((state, changes))
            refused = not await self._write_batch(changed)
            if not refused:
                self.store.states.update(pending)
                for state, changes in changed:
                    for change in changes:
                        await self._push(state, change)
                for index, reason in letters:
                    await dead_letters(events[index], reason)
        if refused:
            for event, fixes in zip(events, state_fixes_by_event, strict=True):
                await self._redo(event, fixes, dead_letters)

    async def _redo(self, event: EventLike, fixes: Sequence[Fix], dead_letters: DeadLetters) -> None:
        """One event's fixes of a refused batch, each committed on its own (as ``handle`` does): a refusal
        dead-letters that event alone. The fixes, not the record, so records of any uplink topic redo alike."""
        try:
            async with self.store.lock:
                for fix in fixes:
                    state = await self.store.get(fix.device_id, fix.fix_at)
                    await self._commit(*apply_fix(state, fix, self.clock(), self.rules))
        except (PayloadError, psycopg.DataError, psycopg.IntegrityError) as exc:
            await dead_letters(event, f"{type(exc).__name__}: {exc}")

    async def handle_sessions(self, events: Sequence[EventLike]) -> None:
        """A take of ``device.sessions.v1`` events: the same logs, states, pushes and dead letters as ``handle``
        on each event in order, with one pipelined transaction for all of the take's changes.

        A reconnect storm is two events a terminal (the old session's end, the new one's start); one
        transaction each was the worker's and PostgreSQL's largest cost in it (docs/performance.md "A reconnect
        storm: session events a take at a time, ..."). As in ``handle_uplinks``, the new states are kept and the pushes and security
        notices sent (in the events' order) only after the commit; if the database refuses the take's data,
        nothing of it is kept and the take is redone event by event, so only the culprit is dead-lettered.
        """
        letters: list[tuple[int, str]] = []
        records: list[tuple[int, SessionEvent | SecurityNotice]] = []
        for index, event in enumerate(events):
            try:
                records.append((index, parse_sessions_record(event.value)))
            except PayloadError as exc:
                letters.append((index, f"{type(exc).__name__}: {exc}"))
        async with self.store.lock:
            pending: dict[int, State] = {}
            changed: list[tuple[State, list[Change]]] = []
            out: list[SecurityNotice | tuple[State, list[Change]]] = []  # what goes out, in the events' order
            for index, record in records:
                if isinstance(record, SecurityNotice):
                    out.append(record)
                    continue
                found = await self._batch_state(pending, record.device_id, record.at)
                if isinstance(found, str):
                    letters.append((index, found))
                    continue
                state = found
                if record.car_id != state.car_id or record.enterprise_id != state.enterprise_id:
                    state = replace(state, car_id=record.car_id, enterprise_id=record.enterprise_id)
                state, changes = apply_session(state, record, self.clock(), self.rules)
                pending[record.device_id] = state
                if changes:
                    changed.append((state, changes))
                    out.append((state, changes))
            refused = not await self._write_batch(changed)
            if not refused:
                self.store.states.update(pending)
                for item in out:
                    if isinstance(item, SecurityNotice):
                        await self._security(item)
                    else:
                        for change in item[1]:
                            await self._push(item[0], change)
                for index, reason in sorted(letters):
                    await self.dead_letters(events[index], reason)
        if refused:
            for event in events:
                await self.handle(event)

    async def _batch_state(self, pending: dict[int, State], device_id: int, at: datetime) -> State | str:
        """A device's state within a batch: its pending one, else the store's; the reason to dead-letter the
        event when the device has none (unknown, or a seed the database refused)."""
        state = pending.get(device_id)
        if state is not None:
            return state
        try:
            return await self.store.get(device_id, at)
        except (PayloadError, psycopg.DataError, psycopg.IntegrityError) as exc:
            return f"{type(exc).__name__}: {exc}"

    async def _write_batch(self, changed: Sequence[tuple[State, list[Change]]]) -> bool:
        """A batch's changes in one transaction, its statements pipelined (one round trip); False when the
        database refused its data (the caller then redoes the batch event by event)."""
        if not changed:
            return True

        async def work(conn: psycopg.AsyncConnection[Any]) -> None:
            async with conn.pipeline():
                for state, changes in changed:
                    await persist_changes(conn, state, changes)

        try:
            await self.db.transact(work)
        except DATA_ERRORS as exc:
            log.info("states batch refused (%s); handling it event by event", exc)
            return False
        return True

    async def _uplink(self, value: Any) -> None:
        try:
            uplink = parse_uplink(value)
            bodies = location_bodies(uplink)
        except PayloadError:
            return  # the positions agent dead-letters it
        async with self.store.lock:
            for body in bodies:
                await self._fix(uplink, body)

    async def _fix(self, uplink: Uplink, body: Any) -> None:
        try:
            fix = parse_fix(uplink, body)
        except PayloadError:
            return
        if not usable_for_state(fix, self.limits):
            return
        state = await self.store.get(fix.device_id, fix.fix_at)
        await self._commit(*apply_fix(state, fix, self.clock(), self.rules))

    async def _session(self, event: SessionEvent) -> None:
        async with self.store.lock:
            state = await self.store.get(event.device_id, event.at)
            if event.car_id != state.car_id or event.enterprise_id != state.enterprise_id:
                state = replace(state, car_id=event.car_id, enterprise_id=event.enterprise_id)
            await self._commit(*apply_session(state, event, self.clock(), self.rules))

    async def _security(self, notice: SecurityNotice) -> None:
        """A gateway security notice: pushed to the device's enterprise; no state, no log row."""
        log.warning("terminal security notice %s for device %s (phone %s, connection %s from %s)",
                    notice.reason, notice.device_id, notice.phone, notice.connection_id, notice.peer)
        data = console.security_push_data(
            device_id=notice.device_id, car_id=notice.car_id,
            plate_number=await self.directory.plate_number(notice.car_id), phone=notice.phone,
            event=notice.reason, peer=notice.peer, replaced_peer=notice.replaced_peer, at=notice.at,
            request_id=notice.request_id)
        path = await self.directory.enterprise_path(notice.enterprise_id)
        payload = console.push_event(notice.enterprise_id, path, console.SECURITY_NOTICE_PUSH_TYPE, data)
        await self.send(CONSOLE_EVENTS, str(notice.enterprise_id).encode(), encode(payload))

    async def check_no_signal(self) -> int:
        """Timer body: online devices whose positions stopped become no signal. Returns how many."""
        changed = 0
        async with self.store.lock:
            for state in list(self.store.states.values()):
                new_state, changes = apply_tick(state, self.clock(), self.utcnow(), self.rules)
                if changes:
                    await self._commit(new_state, changes)
                    changed += 1
        return changed

    async def _commit(self, state: State, changes: list[Change]) -> None:
        if changes:
            async def work(conn: psycopg.AsyncConnection[Any]) -> None:
                await persist_changes(conn, state, changes)

            await self.db.transact(work)
        self.store.states[state.device_id] = state
        for change in changes:
            await self._push(state, change)

    async def _push(self, state: State, change: Change) -> None:
        if isinstance(change, OnlineChange):
            if not change.applies:
                return
            data = console.online_push_data(
                device_id=state.device_id, car_id=state.car_id,
                plate_number=await self.directory.plate_number(state.car_id),
                online=change.online, at=change.at)
            push_type = PushType.ONLINE_OFFLINE
        elif isinstance(change, BizChange):
            data = console.biz_push_data(device_id=state.device_id, car_id=state.car_id,
                                         biz_state=change.biz_state, at=change.at)
            push_type = PushType.BIZ_STATE
        else:
            return
        path = await self.directory.enterprise_path(state.enterprise_id)
        payload = console.push_event(state.enterprise_id, path, push_type, data)
        await self.send(CONSOLE_EVENTS, str(state.enterprise_id).encode(), encode(payload))
