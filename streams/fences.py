"""Uplinks step "fences" (after alarms): platform fences (business type 1) and the terminal's own area items
-> alarm episodes of type 4, push 2, "to driver" 0x8300 TTS (streams/README.md, "Adding a step").

- The check (fleet.geofence.FenceChecker, pure) gets the batch's positioned, plausible fixes of the devices
  bound to a platform fence (streams.fence_alarms.positions): a device bound to none costs one set look-up.
  The checker is rebuilt from ``fence`` + ``fence_binding`` when their fingerprint
  (warehouse.queries.fence_events.version_async) changes, looked at every ``reload_s`` seconds; a fence that
  cannot compile (or a district without its polygons here) is logged once and skipped.
- Per-vehicle state (``VehicleState``): read from ``fence_vehicle_state`` once per device (the first batch
  that brings it), kept in memory, written back in the transaction of the batch's alarm rows (one upsert;
  an older ``fixed_at`` never wins), so a restarted worker neither raises a crossing again nor forgets an
  open episode, and a replayed batch (older than the kept state) yields nothing.
- Events: an instant (enter, leave, segment time) is a row with end = its time; an episode's start a row
  with end NULL, its end closes that row; rows are ON CONFLICT (device, key, start) DO NOTHING. Only events
  "to platform" become alarms (an enter / leave whose fence announces it only to the driver does not). A
  backlog crossing (0x0704) moves the row of the crossing the live chain interpolated across its gap
  (``supersedes``) to its own time, or is stored as a backlog row; never pushed.
- The terminal's own items 0x11 / 0x12 / 0x13 (``tfence:<areaId>:<kind>``) are instantaneous rows named
  after the fence of that id; the same item on the device's next fix again (terminals repeat it while the
  alarm bit is held) adds nothing.
- After the commit: push 2 for each new live row (data as the alarms step's, plus fenceId / fenceName and
  a ``desc`` naming the fence); a 0x8300 TTS for each live "to driver" crossing (streams.fence_texts).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson
import psycopg

from fleet.alarm_catalog import describe_alarm
from fleet.enums import PushType
from fleet.geofence import FenceChecker, FenceEvent, Gap, VehicleState
from fleet.geofence.rules import ENTER, LEAVE
from fleet.geofence.stored import DistrictParts, Unsupported, fence_from_row
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams import console
from streams.alarm_model import AlarmEpisode, close_episodes, insert_episodes
from streams.alarms import heard_from, push_data
from streams.db import Database
from streams.deadletter import Send, encode
from streams.fence_alarms import (
    AREA_ITEMS,
    driver_text,
    episode_of,
    positions,
    terminal_episode,
    terminal_items,
)
from streams.fence_texts import DriverTexts
from streams.messages import Fix, PayloadError, Uplink
from warehouse.queries import fence_events

log = logging.getLogger(__name__)


def state_rows(states: Mapping[int, VehicleState], ids: Sequence[int], gap_texts: dict[int, tuple[Gap, str]]
               ) -> tuple[list[str | None], list[float], list[float], list[float], list[str | None]]:
    """The columns of ``save_vehicle_states_async``: ``VehicleState.to_json()`` as JSON text for a vehicle
    holding a fence pair, None for one holding none (most of them: the database builds that JSON from its
    newest fix and its gap, the Python dict and its encoding being most of the state's cost); a gap's JSON
    is made once per gap (``gap_texts``: the checker keeps the same Gap until a new one starts)."""
    texts: list[str | None] = []
    gaps: list[str | None] = []
    last_at, lngs, lats = [], [], []
    for device_id in ids:
        vs = states[device_id]
        if vs.fences:
            texts.append(orjson.dumps(vs.to_json()).decode())
            gaps.append(None)
        else:
            texts.append(None)
            gap = vs.gap
            if gap is None:
                gaps.append(None)
            else:
                known = gap_texts.get(device_id)
                if known is None or known[0] is not gap:
                    known = gap_texts[device_id] = (gap, orjson.dumps(vs.to_json()["gap"]).decode())
                gaps.append(known[1])
        last_at.append(vs.last_at)
        lngs.append(vs.lng)
        lats.append(vs.lat)
    return texts, last_at, lngs, lats, gaps


class FenceStep:
    """The step's resources and state; ``run`` is its body."""

    def __init__(self, db: Database, send: Send, *, reload_s: float = 5.0,
                 district_parts: DistrictParts | None = None) -> None:
        self.db, self.send, self.reload_s, self.district_parts = db, send, reload_s, district_parts
        self.texts = DriverTexts(db, send)
        self.checker: FenceChecker = FenceChecker([], {})
        self.names: dict[int, str] = {}  # platform fences' names; the terminal items' ids looked up on demand
        self.version: tuple[Any, ...] | None = None
        self.looked_at = -1e18
        self.states: dict[int, VehicleState] = {}
        self.read: set[int] = set()  # devices whose kept state was read (present or not)
        self.held: set[int] = set()  # devices whose kept state holds a fence pair (to forget when unbound)
        self.gap_texts: dict[int, tuple[Gap, str]] = {}  # each device's latest gap and its JSON
        self.last_items: dict[int, frozenset[str]] = {}  # each device's terminal area items on its newest fix
        self.rows_stored = 0

    def clear(self) -> None:
        """A rebalance: another worker may have moved the devices on; their states are read again."""
        self.states.clear()
        self.read.clear()
        self.held.clear()
        self.gap_texts.clear()
        self.last_items.clear()

    async def refresh(self, force: bool = False) -> FenceChecker:
        """The checker, rebuilt when fences or bindings changed (looked at every ``reload_s``)."""
        now = time.monotonic()
        if not force and now - self.looked_at < self.reload_s:
            return self.checker

        async def version(conn: psycopg.AsyncConnection[Any]) -> tuple[Any, ...]:
            return await fence_events.version_async(conn)

        current = await self.db.transact(version)
        self.looked_at = now
        if current == self.version:
            return self.checker

        async def load(conn: psycopg.AsyncConnection[Any]) -> tuple[list[dict[str, Any]], list[tuple[int, int]]]:
            return await fence_events.platform_fences_async(conn), await fence_events.platform_bindings_async(conn)

        rows, pairs = await self.db.transact(load)
        fences = []
        for row in rows:
            try:
                fences.append(fence_from_row(row, self.district_parts))
            except Unsupported as exc:
                log.info("fence %s skipped: %s", row["id"], exc)
            except (ValueError, TypeError, KeyError) as exc:
                log.warning("fence %s skipped: its stored geometry is not valid: %s", row["id"], exc)
        bindings: dict[int, set[int]] = {}
        for device_id, fence_id in pairs:
            bindings.setdefault(device_id, set()).add(fence_id)
        checker = FenceChecker(fences, bindings)
        for fence_id, reason in checker.invalid.items():
            log.warning("fence %s skipped: %s", fence_id, reason)
        self.checker, self.version = checker, current
        self.names = {f.fence_id: f.name for f in fences}
        log.info("fences: %d platform fences, %d bound devices", len(checker.fences), len(checker.bindings))
        return checker

    async def _read_states(self, devices: set[int]) -> None:
        unread = sorted(devices - self.read)
        if not unread:
            return

        async def work(conn: psycopg.AsyncConnection[Any]) -> list[tuple[int, Any]]:
            return await fence_events.vehicle_states_async(conn, unread)

        for device_id, value in await self.db.transact(work):
            try:
                self.states[device_id] = VehicleState.from_json(value)
                if self.states[device_id].fences:
                    self.held.add(device_id)
            except ValueError as exc:  # a state this code cannot read: the vehicle starts fresh
                log.warning("fence state of device %s dropped: %s", device_id, exc)
        self.read.update(unread)

    async def run(self, uplinks: Sequence[Uplink | PayloadError], fixes_by_event: Sequence[Sequence[Fix]]) -> int:
        """Check, store (one transaction), keep the states, push, TTS. Returns the new alarm rows."""
        checker = await self.refresh()
        bound = checker.bindings
        found, devices = positions(uplinks, fixes_by_event, bound, self.held) if bound or self.held else ([], {})
        states: dict[int, VehicleState] = {}
        events: list[FenceEvent] = []
        if found:
            await self._read_states(set(devices))
            states = {d: self.states[d] for d in devices if d in self.states}
            events = checker.check(found, states).events
        items, item_fixes, last_items = await self._terminal_items(uplinks, fixes_by_event)
        episodes = [*items]
        ends: list[tuple[int, str, datetime, bool]] = []
        refines: list[FenceEvent] = []
        for event in events:
            if not event.to_platform:
                continue
            if event.phase == "end":
                ends.append((event.device_id, event.key, event.at, event.backlog))
            elif event.supersedes is not None:
                refines.append(event)
            else:
                episodes.append(episode_of(event, self.names.get(event.fence_id, str(event.fence_id)),
                                           devices.get(event.device_id)))
        if not episodes and not ends and not refines and not states:
            self._keep_items(last_items)
            return 0
        rows = await self._write(episodes, ends, refines, states, {**item_fixes, **devices})
        self.states.update(states)  # kept only once committed: a retried batch starts from the same states
        for device_id, vs in states.items():
            if vs.fences:
                self.held.add(device_id)
            else:
                self.held.discard(device_id)
        self._keep_items(last_items)
        self.rows_stored += len(rows)
        for row in rows:
            if not row["backlog"]:
                await self._push(row)
        heard: dict[int, datetime] | None = None
        for event in events:
            if event.to_driver and not event.backlog and event.kind in (ENTER, LEAVE):
                heard = heard_from(uplinks) if heard is None else heard
                name = self.names.get(event.fence_id, str(event.fence_id))
                try:
                    await self.texts.say(event.device_id, driver_text(event, name), heard.get(event.device_id))
                except Exception:  # best effort: the alarm is stored; a lost TTS never redoes the batch
                    log.exception("fence TTS for device %s not sent", event.device_id)
        return len(rows)

    def _keep_items(self, last: Mapping[int, frozenset[str]]) -> None:
        for device_id, keys in last.items():
            if keys:
                self.last_items[device_id] = keys
            else:
                self.last_items.pop(device_id, None)

    async def _terminal_items(self, uplinks: Sequence[Uplink | PayloadError],
                              fixes_by_event: Sequence[Sequence[Fix]]
                              ) -> tuple[list[AlarmEpisode], dict[int, Fix], dict[int, frozenset[str]]]:
        """The batch's terminal area alarms, the devices of their rows, each device's items on its newest
        live fix (kept by ``run`` after the commit)."""
        found: list[tuple[Any, Fix, int | None, bool]] = []
        last: dict[int, frozenset[str]] = {}
        for uplink, fixes in zip(uplinks, fixes_by_event, strict=True):
            if not fixes or isinstance(uplink, PayloadError):
                continue
            backlog = uplink.msg_id == BATCH_LOCATION_UPLOAD
            for fix in fixes:
                extras = fix.extras
                if (not extras or AREA_ITEMS.isdisjoint(extras)) and fix.device_id not in self.last_items \
                        and fix.device_id not in last:
                    continue  # the common case: no area item now nor on the device's previous fix
                items = terminal_items(extras) if extras else []
                if backlog:
                    found.extend((item, fix, uplink.seq, True) for item in items)
                    continue
                before = last.get(fix.device_id, self.last_items.get(fix.device_id, frozenset()))
                keys = frozenset(item.key for item in items)
                if keys or before:
                    last[fix.device_id] = keys
                found.extend((item, fix, uplink.seq, False) for item in items if item.key not in before)
        if not found:
            return [], {}, last
        unknown = sorted({item.area_id for item, *_ in found} - self.names.keys())
        names = dict(self.names)
        if unknown:
            async def work(conn: psycopg.AsyncConnection[Any]) -> dict[int, str]:
                return await fence_events.fence_names_async(conn, unknown)

            names |= await self.db.transact(work)
        episodes = [terminal_episode(item, fix, seq, backlog, names.get(item.area_id))
                    for item, fix, seq, backlog in found]
        return episodes, {fix.device_id: fix for _, fix, _, _ in found}, last

    async def _write(self, episodes: list[AlarmEpisode], ends: list[tuple[int, str, datetime, bool]],
                     refines: list[FenceEvent], states: Mapping[int, VehicleState],
                     devices: Mapping[int, Fix]) -> list[dict[str, Any]]:
        async def work(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            late: list[AlarmEpisode] = []
            for event in refines:  # a backlog crossing: move the interpolated row, else a backlog row
                assert event.supersedes is not None
                moved = await fence_events.refine_crossing_async(
                    conn, device_id=event.device_id, key=event.key, was=event.supersedes, start=event.started_at,
                    end=event.at if event.phase == "instant" else None, lat=event.lat, lng=event.lng)
                if not moved:
                    late.append(episode_of(event, self.names.get(event.fence_id, str(event.fence_id)),
                                           devices.get(event.device_id)))
            rows = await insert_episodes(conn, [*episodes, *late], devices)
            # an end closes a row of its own kind only: a backlog end never closes the live episode
            for device_id, key, end, backlog in ends:
                await close_episodes(conn, device_id, [key], end, backlog=backlog)
            if states:
                ids = sorted(states)
                await fence_events.save_vehicle_states_async(conn, ids, *state_rows(states, ids, self.gap_texts))
            return rows

        return await self.db.transact(work)

    async def _push(self, row: dict[str, Any]) -> None:
        details = row.get("details") or {}
        name = details.get("fenceName") if isinstance(details, dict) else None
        data = push_data(row) | {"fenceId": details.get("fenceId") if isinstance(details, dict) else None,
                                 "fenceName": name, "desc": describe_alarm(row["key"], row["level"], "zh", name)}
        ent = row["enterprise_id"]
        payload = console.push_event(ent, row["enterprise_path"], PushType.ALARM, data)
        await self.send(CONSOLE_EVENTS, str(ent).encode(), encode(payload))
