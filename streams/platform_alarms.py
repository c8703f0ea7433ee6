"""Platform-derived alarms (contract F): the enterprise's rules (``platform_alarm_rule``,
defaults in fleet/platform_alarm_rules.py) evaluated over each device's live fixes, as held episodes
(``AlarmEpisode`` kind 3, stored and pushed by the alarms step, streams/alarms.py).

Rules, per device, on live fixes only (a 0x0704 item or a fix not newer than the device's newest is
backlog: ignored, it neither starts nor ends anything). "Moving" is speed above
``MOVING_KMH`` (the states step's driving threshold: GPS drift while standing is not driving).

- ``p_overspeed``: speed strictly above the limit, continuously for at least the duration (the first
  fix where ``fix - first fix above the limit >= duration`` starts it); ends at the first fix at or
  below the limit.
- ``p_fatigue``: moving while the continuous driving time (since the first moving fix after the last
  rest) is strictly above the limit; a rest is standing still (or no fixes at all) for at least the
  minimum rest: it resets the driving time and ends the episode at the fix that shows it.
- ``p_parking``: standing still with ACC on (engine running while parked; a parked vehicle with ACC
  off is normal, and the idling log covers short stops) for strictly longer than the timeout; ends
  when the vehicle moves or ACC goes off.
- ``p_night``: moving inside the night window (terminal local time, Beijing: [start, end), across
  midnight when start > end); ends at the first fix outside the window. Off by default.

An episode starts at the fix that fires its rule (``details`` say since when the condition held and
the rule's values), so a replay gives the same start and the alarm table's ON CONFLICT drops it. A rule
switched off ends its open episode at the device's next fix. The enterprise's rule in effect is its most recently
updated live one; rules are read for all enterprises at once and refreshed every ``REFRESH_S`` seconds. After a restart the open episodes are reloaded (their
keys stay open; their counters restart from the next fix).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from fleet.alarm_catalog import AlarmKind
from fleet.platform_alarm_rules import (
    DEFAULT_RULES,
    PlatformRules,
    rules_from_row,
)
from protocols.china_time import CHINA_TZ
from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams.alarm_model import AlarmEpisode
from streams.db import Database
from streams.messages import Fix, PayloadError, Uplink
from warehouse.queries import alarms

log = logging.getLogger(__name__)

REFRESH_S = 60.0
MOVING_KMH = 5.0  # streams.state_rules.Rules.driving_min_speed_kmh
KEYS = ("p_overspeed", "p_fatigue", "p_parking", "p_night")
PLATFORM = int(AlarmKind.PLATFORM)


@dataclass(slots=True)
class DeviceRules:
    """One device's counters and open platform episodes."""

    newest: datetime | None = None
    over_since: datetime | None = None  # first fix of the current run above the speed limit
    driving_since: datetime | None = None  # first moving fix after the last rest
    still_since: datetime | None = None  # first standing fix of the current stop
    parked_since: datetime | None = None  # first standing ACC-on fix of the current stop
    open: set[str] = field(default_factory=set)


@dataclass
class Evaluated:
    episodes: list[AlarmEpisode] = field(default_factory=list)
    ends: list[tuple[int, list[str], datetime]] = field(default_factory=list)


def in_night(at: datetime, rules: PlatformRules) -> bool:
    hour = at.astimezone(CHINA_TZ).hour
    start, end = rules.night_start_hour, rules.night_end_hour % 24
    return start <= hour < end if start < end else (hour >= start or hour < end)


def _seconds(later: datetime, earlier: datetime | None) -> float:
    return -1.0 if earlier is None else (later - earlier).total_seconds()


@dataclass(slots=True)
class Step:
    """What one live fix brings every check: the fix, its time, whether it moves, the silence before it."""

    fix: Fix
    at: datetime
    moving: bool
    gap_s: float
    fired: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)


def check_overspeed(state: DeviceRules, step: Step, rules: PlatformRules) -> None:
    at = step.at
    if rules.overspeed_enabled and step.fix.speed_kmh > rules.overspeed_limit_kmh:
        if state.over_since is None:
            state.over_since = at
        if "p_overspeed" not in state.open and _seconds(at, state.over_since) >= rules.overspeed_duration_s:
            step.fired.append(("p_overspeed", {"since": state.over_since.isoformat(),
                                               "limitKmh": rules.overspeed_limit_kmh,
                                               "durationS": rules.overspeed_duration_s}))
    else:
        state.over_since = None
        step.ended.append("p_overspeed")


def check_fatigue(state: DeviceRules, step: Step, rules: PlatformRules) -> None:
    """A rest (standing, or silent, for at least the minimum rest) resets the driving time."""
    at, moving = step.at, step.moving
    rested = step.gap_s >= rules.fatigue_rest_s or (state.still_since is not None
                                                     and _seconds(at, state.still_since) >= rules.fatigue_rest_s)
    if moving:
        if rested or state.driving_since is None:
            state.driving_since = at
        state.still_since = None
    elif state.still_since is None:
        state.still_since = at
    if rested:
        step.ended.append("p_fatigue")
        if not moving:
            state.driving_since = None
    if rules.fatigue_enabled and moving and state.driving_since is not None:
        driven = _seconds(at, state.driving_since)
        if "p_fatigue" not in state.open and driven > rules.fatigue_driving_s:
            step.fired.append(("p_fatigue", {"since": state.driving_since.isoformat(), "drivingS": int(driven),
                                             "limitS": rules.fatigue_driving_s, "minRestS": rules.fatigue_rest_s}))
    elif not rules.fatigue_enabled:
        step.ended.append("p_fatigue")


def check_parking(state: DeviceRules, step: Step, rules: PlatformRules) -> None:
    """Standing with ACC on."""
    if rules.parking_enabled and not step.moving and step.fix.acc_on:
        if state.parked_since is None:
            state.parked_since = step.at
        if "p_parking" not in state.open and _seconds(step.at, state.parked_since) > rules.parking_timeout_s:
            step.fired.append(("p_parking", {"since": state.parked_since.isoformat(),
                                             "timeoutS": rules.parking_timeout_s}))
    else:
        state.parked_since = None
        step.ended.append("p_parking")


def check_night(state: DeviceRules, step: Step, rules: PlatformRules) -> None:
    night = rules.night_enabled and in_night(step.at, rules)
    if night and step.moving:
        if "p_night" not in state.open:
            step.fired.append(("p_night", {"startHour": rules.night_start_hour, "endHour": rules.night_end_hour}))
    elif not night:
        step.ended.append("p_night")


Check = Callable[[DeviceRules, Step, PlatformRules], None]

# The platform's checks, in order. Each reads the fix and the device's counters and appends the keys it
# fires or ends to the step. Geofence checks (in / out of an area, route deviation) plug in here when
# fences exist: a check of the same shape with the enterprise's fences on its rules, its keys in KEYS
# and in fleet/alarm_catalog.py (kind PLATFORM or FENCE).
CHECKS: list[Check] = [check_overspeed, check_fatigue, check_parking, check_night]


def evaluate(state: DeviceRules, fix: Fix, seq: int | None, rules: PlatformRules, out: Evaluated) -> None:
    """Apply one live fix (newer than ``state.newest``) to the device's state; new episodes and ends to ``out``."""
    at = fix.fix_at
    step = Step(fix, at, fix.speed_kmh > MOVING_KMH, _seconds(at, state.newest))
    state.newest = at
    for check in CHECKS:
        check(state, step, rules)
    closing = [key for key in step.ended if key in state.open]
    if closing:
        state.open.difference_update(closing)
        out.ends.append((fix.device_id, closing, at))
    for key, details in step.fired:
        state.open.add(key)
        out.episodes.append(AlarmEpisode(
            device_id=fix.device_id, key=key, kind=PLATFORM, level=None, start=at, end=None, lat=fix.lat,
            lng=fix.lng, speed=fix.speed_kmh, altitude=fix.altitude_m, alarm_flags=fix.alarm_flags,
            message_seq=seq, details=details))


class PlatformAlarms:
    """Rules cache and per-device state; ``plan`` turns a batch's live fixes into episodes and ends."""

    def __init__(self, db: Database, refresh_s: float = REFRESH_S) -> None:
        self.db, self.refresh_s = db, refresh_s
        self.rules: dict[int, PlatformRules] = {}
        self.rules_at = -1e18
        self.devices: dict[int, DeviceRules] = {}
        self.loaded = False

    def clear(self) -> None:
        self.devices.clear()
        self.loaded = False

    def rules_for(self, enterprise_id: int) -> PlatformRules:
        return self.rules.get(enterprise_id, DEFAULT_RULES)

    async def refresh(self, force: bool = False) -> None:
        """Every enterprise's live rule (at most every ``refresh_s``); open episodes after a (re)start."""
        now = time.monotonic()
        if not force and self.loaded and now - self.rules_at < self.refresh_s:
            return

        async def work(conn: psycopg.AsyncConnection[Any]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
            rule_rows = await alarms.live_platform_rules_async(conn)
            opened = [] if self.loaded else await alarms.open_alarm_keys_async(conn, PLATFORM)
            return rule_rows, opened

        rule_rows, opened = await self.db.transact(work)
        self.rules = {row["enterprise_id"]: rules_from_row(row) for row in rule_rows}
        self.rules_at = now
        if not self.loaded:
            for device_id, key in opened:
                self.devices.setdefault(device_id, DeviceRules()).open.add(key)
            self.loaded = True

    def plan(self, uplinks: Sequence[Uplink | PayloadError], fixes_by_event: Sequence[Sequence[Fix]]) -> Evaluated:
        out = Evaluated()
        for uplink, fixes in zip(uplinks, fixes_by_event, strict=True):
            if not fixes or isinstance(uplink, PayloadError) or uplink.msg_id == BATCH_LOCATION_UPLOAD:
                continue
            for fix in fixes:
                state = self.devices.get(fix.device_id)
                if state is None:
                    state = self.devices[fix.device_id] = DeviceRules()
                elif state.newest is not None and fix.fix_at <= state.newest:
                    continue  # backlog
                evaluate(state, fix, uplink.seq, self.rules_for(fix.enterprise_id), out)
        return out


async def plan_into(platform: PlatformAlarms, planned: Any, uplinks: Sequence[Uplink | PayloadError],
                    fixes_by_event: Sequence[Sequence[Fix]]) -> None:
    """The alarms step's hook: add the batch's platform episodes and ends to its ``Planned``. Never
    raises: without its rules (an outage) the batch's terminal alarms still land."""
    try:
        await platform.refresh()
        out = platform.plan(uplinks, fixes_by_event)
    except Exception:
        log.exception("platform alarms: batch skipped")
        return
    devices: Mapping[int, Fix] = {fix.device_id: fix for fixes in fixes_by_event for fix in fixes}
    planned.episodes.extend(out.episodes)
    for device_id, keys, end in out.ends:
        planned.ends.append((device_id, keys, end, False))
    for dev in {e.device_id for e in out.episodes} | {d for d, _, _ in out.ends}:
        planned.devices.setdefault(dev, devices[dev])
