"""Device state rules: online/offline, ACC and business state (platform-spec §4). Pure.

Business state, evaluated in this order (first match wins):

1. offline (0)    the device's session is offline.
2. no signal (4)  online, but the newest fix is unpositioned (status bit 1 clear), or no positioned
                  fix has been processed for ``no_signal_after_s`` (heartbeats do not count), or
                  no fix at all since the device came online.
3. engine off (3) ACC off (status bit 0 clear).
4. driving (1)    ACC on and speed > ``driving_min_speed_kmh`` (5 km/h: GPS drift while standing
                  still reads 1..3 km/h).
5. parked (2)     ACC on, not faster than that.
Steps 3-5 are the driving / parked rule of ``fleet/motion.py``, shared with generated history.

Online/offline comes only from ``device.sessions.v1``. An offline event for another connection than the
one that brought the device online (``replaced``: the terminal reconnected elsewhere first) is logged but
does not take the device offline. Fixes not newer than the newest fix already applied (0x0704 backlog,
replays) do not change live state; they are still stored by the positions agent.

Every function takes a state and returns the next state and the changes to record; nothing mutates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from fleet.addresses import source_ip
from fleet.enums import BizState
from fleet.motion import DRIVING_MIN_SPEED_KMH, motion_state
from streams.messages import Fix, SessionEvent


@dataclass(frozen=True, slots=True)
class Rules:
    no_signal_after_s: float = 600.0
    driving_min_speed_kmh: float = DRIVING_MIN_SPEED_KMH


@dataclass(frozen=True, slots=True)
class DeviceState:
    """What the states agent knows about one device. ``None`` means unknown (not yet observed)."""

    device_id: int
    car_id: int | None
    enterprise_id: int
    online: bool
    connection_id: str | None = None
    acc_on: bool | None = None
    biz_state: BizState | None = None
    last_fix_at: datetime | None = None
    positioned: bool = False
    speed_kmh: float = 0.0
    lng: float | None = None
    lat: float | None = None
    # monotonic clock reading when the newest positioned fix was processed (our clock, so a replayed
    # backlog is not "old" and clock skew of terminals does not matter)
    position_seen_s: float | None = None


@dataclass(frozen=True, slots=True)
class AccChange:
    at: datetime
    acc_on: bool
    lng: float | None
    lat: float | None


@dataclass(frozen=True, slots=True)
class BizChange:
    at: datetime
    biz_state: BizState


@dataclass(frozen=True, slots=True)
class OnlineChange:
    """One session event. ``applies`` is False when it is only logged (stale connection)."""

    at: datetime
    online: bool
    applies: bool
    reason: str
    connection_id: str
    gateway_id: str
    session_address: str | None = None  # source IP of the session that went online (None when offline)


Change = AccChange | BizChange | OnlineChange


def derive_biz_state(
    *, online: bool, positioned: bool, fresh: bool, acc_on: bool | None, speed_kmh: float, rules: Rules
) -> BizState:
    """The business state from the facts, by the ordered rules in the module docstring."""
    if not online:
        return BizState.OFFLINE
    if not positioned or not fresh:
        return BizState.NO_SIGNAL
    return motion_state(bool(acc_on), speed_kmh, rules.driving_min_speed_kmh)


def is_fresh(state: DeviceState, now_s: float, rules: Rules) -> bool:
    return state.position_seen_s is not None and now_s - state.position_seen_s <= rules.no_signal_after_s


def _with_biz(state: DeviceState, at: datetime, now_s: float, rules: Rules) -> tuple[DeviceState, list[Change]]:
    biz = derive_biz_state(
        online=state.online, positioned=state.positioned, fresh=is_fresh(state, now_s, rules),
        acc_on=state.acc_on, speed_kmh=state.speed_kmh, rules=rules,
    )
    if biz == state.biz_state:
        return state, []
    return replace(state, biz_state=biz), [BizChange(at, biz)]


def apply_fix(state: DeviceState, fix: Fix, now_s: float, rules: Rules) -> tuple[DeviceState, list[Change]]:
    """A new fix: ACC transition (at the fix time) and business state (at the fix time)."""
    if state.last_fix_at is not None and fix.fix_at <= state.last_fix_at:
        return state, []
    changes: list[Change] = []
    if fix.acc_on != state.acc_on:
        changes.append(AccChange(fix.fix_at, fix.acc_on, fix.lng, fix.lat))
    # built whole, not by dataclasses.replace (which walks every field: a quarter of this rule's time, each position)
    state = DeviceState(
        device_id=state.device_id,
        car_id=fix.car_id,
        enterprise_id=fix.enterprise_id,
        online=state.online,
        connection_id=state.connection_id,
        acc_on=fix.acc_on,
        biz_state=state.biz_state,
        last_fix_at=fix.fix_at,
        positioned=fix.positioned,
        speed_kmh=fix.speed_kmh,
        lng=fix.lng,
        lat=fix.lat,
        position_seen_s=now_s if fix.positioned else state.position_seen_s,
    )
    state, biz_changes = _with_biz(state, fix.fix_at, now_s, rules)
    return state, changes + biz_changes


def apply_session(
    state: DeviceState, event: SessionEvent, now_s: float, rules: Rules
) -> tuple[DeviceState, list[Change]]:
    """A session event: always logged; online/offline applied unless it is about a stale connection."""
    if event.online:
        applies = True
        state = replace(state, online=True, connection_id=event.connection_id or None)
    else:
        stale = event.reason == "replaced" or (
            state.connection_id is not None and event.connection_id not in ("", state.connection_id)
        )
        applies = not stale
        if applies:
            state = replace(state, online=False)
    address = source_ip(event.peer) if event.online else None
    change = OnlineChange(event.at, event.online, applies, event.reason, event.connection_id, event.gateway_id,
                          address)
    state, biz_changes = _with_biz(state, event.at, now_s, rules)
    return state, [change, *biz_changes]


def apply_tick(
    state: DeviceState, now_s: float, now_at: datetime, rules: Rules
) -> tuple[DeviceState, list[Change]]:
    """The periodic check: an online device whose positions stopped goes to no signal (at ``now_at``)."""
    if not state.online or state.biz_state in (BizState.NO_SIGNAL, BizState.OFFLINE):
        return state, []
    return _with_biz(state, now_at, now_s, rules)
