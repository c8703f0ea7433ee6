"""Position validation: which fixes are stored, and why the others are dead-lettered.

Pure. ``classify_uplink`` is the positions agent's first step: it turns one uplink into the fixes to
store and the reasons for the ones refused (one reason per refused 0x0704 item, the rest still stored).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import timedelta

from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams.messages import Fix, PayloadError, Uplink, location_bodies, parse_fix

UNPOSITIONED = "unpositioned"

# Plausibility bits of a stored fix (gps.quality, migration 0038; docs/architecture.md "Position quality").
QUALITY_PAST = 1      # dated more than max_past_s before its receipt (a clock writing the century as the year)
QUALITY_FUTURE = 2    # dated more than max_future_s after its receipt
QUALITY_TELEPORT = 4  # implied speed from the device's last plausible fix above max_implied_speed_kmh
QUALITY_TIME = QUALITY_PAST | QUALITY_FUTURE
# The class each bit is counted under in gps_reject_day (the qualification KPI's unqualified points).
QUALITY_CLASSES = ((QUALITY_PAST, "past"), (QUALITY_FUTURE, "future"), (QUALITY_TELEPORT, "teleport"))


@dataclass(frozen=True, slots=True)
class Limits:
    max_future_s: float
    max_speed_kmh: float
    max_past_s: float = 720 * 3600.0
    max_implied_speed_kmh: float = 250.0
    teleport_min_km: float = 1.0
    _future: timedelta = field(init=False, repr=False, compare=False)
    _past: timedelta = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # the per-fix comparisons use these, built once
        object.__setattr__(self, "_future", timedelta(seconds=self.max_future_s))
        object.__setattr__(self, "_past", timedelta(seconds=self.max_past_s))


def time_quality(fix: Fix, limits: Limits) -> int:
    """QUALITY_PAST / QUALITY_FUTURE when the fix time is implausibly far from its receipt (the gateway's
    clock, so a replay of an old backlog gives the same verdict as the first pass), else 0."""
    ahead = fix.fix_at - fix.received_at
    if ahead > limits._future:
        return QUALITY_FUTURE
    if -ahead > limits._past:
        return QUALITY_PAST
    return 0


def quality_class(quality: int) -> str:
    """The gps_reject_day class of a flagged fix (the first of its bits)."""
    return next(name for bit, name in QUALITY_CLASSES if quality & bit)


def validate_fix(fix: Fix, limits: Limits) -> str | None:
    """None when ``fix`` may be stored, else the reason it may not.

    An implausible time is no refusal: the fix is stored flagged (``time_quality``). (0, 0) without the
    positioned status bit is a terminal saying "no fix", refused with the reason ``unpositioned`` (the
    states agent still uses it).
    """
    if not -90.0 <= fix.lat <= 90.0:
        return f"latitude {fix.lat} out of range"
    if not -180.0 <= fix.lng <= 180.0:
        return f"longitude {fix.lng} out of range"
    if not 0.0 <= fix.speed_kmh <= limits.max_speed_kmh:
        return f"speed {fix.speed_kmh:g} km/h outside 0..{limits.max_speed_kmh:g}"
    if not 0 <= fix.direction_deg <= 359:
        return f"direction {fix.direction_deg} outside 0..359"
    if fix.lat == 0.0 and fix.lng == 0.0 and not fix.positioned:
        return UNPOSITIONED
    return None


@dataclass(frozen=True, slots=True)
class Classified:
    """What one uplink yields: fixes to store, refusal reasons (each one a dead letter), and the fixes the
    states step derives ACC and business state from (``usable_for_state``, in the uplink's order)."""

    fixes: list[Fix]
    rejects: list[str]
    state_fixes: list[Fix] = field(default_factory=list)


def classify_uplink(uplink: Uplink, limits: Limits) -> Classified:
    """Split an uplink's location bodies into valid fixes and refusal reasons. A valid fix dated
    implausibly far from its receipt is kept with its ``quality`` bit set (stored flagged, never dropped).
    The same pass picks the fixes ``usable_for_state`` (each body is parsed once for every step).

    Non-location uplinks give nothing. A 0x0704 item's reason names its index.
    """
    bodies = location_bodies(uplink)
    batch = uplink.msg_id == BATCH_LOCATION_UPLOAD
    fixes: list[Fix] = []
    rejects: list[str] = []
    state_fixes: list[Fix] = []
    for index, body in enumerate(bodies):
        where = f"item {index}: " if batch else ""
        try:
            fix = parse_fix(uplink, body)
        except PayloadError as exc:
            rejects.append(f"{where}{exc}")
            continue
        reason = validate_fix(fix, limits)
        quality = time_quality(fix, limits) if reason in (None, UNPOSITIONED) else 0
        if reason is None:
            fixes.append(dataclasses.replace(fix, quality=quality) if quality else fix)
        else:
            rejects.append(f"{where}{reason}")
        if _usable(reason, quality):
            state_fixes.append(fix)
    return Classified(fixes, rejects, state_fixes)


def usable_for_state(fix: Fix, limits: Limits) -> bool:
    """Fixes the states agent may derive ACC and business state from: valid, or valid but unpositioned,
    and dated plausibly (a state change dated 2020 or next week would be wrong)."""
    return _usable(validate_fix(fix, limits), time_quality(fix, limits))


def _usable(reason: str | None, quality: int) -> bool:
    """The states rule on a fix's validation and time verdicts (``usable_for_state``, ``classify_uplink``)."""
    return reason in (None, UNPOSITIONED) and not quality


_REASON_CLASSES = (("latitude", "latitude"), ("longitude", "longitude"), ("speed", "speed"),
                   ("direction", "direction"), (UNPOSITIONED, "unpositioned"))


def reason_class(reason: str) -> str:
    """The class of a refusal reason for ``gps_reject_day`` (a 0x0704 item's "item N: " prefix ignored):
    latitude, longitude, speed, direction, unpositioned, or malformed (a body that did not parse). Stored
    flagged fixes are counted under their quality class (``quality_class``: past, future, teleport)."""
    text = reason.split(": ", 1)[1] if reason.startswith("item ") and ": " in reason else reason
    for prefix, name in _REASON_CLASSES:
        if text.startswith(prefix):
            return name
    return "malformed"
