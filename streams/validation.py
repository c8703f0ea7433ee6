"""Position validation: which fixes are stored, and why the others are dead-lettered.

Pure. ``classify_uplink`` is the positions agent's first step: it turns one uplink into the fixes to
store and the reasons for the ones refused (one reason per refused 0x0704 item, the rest still stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams.messages import Fix, PayloadError, Uplink, location_bodies, parse_fix

UNPOSITIONED = "unpositioned"


@dataclass(frozen=True, slots=True)
class Limits:
    max_future_s: float
    max_speed_kmh: float


def validate_fix(fix: Fix, limits: Limits) -> str | None:
    """None when ``fix`` may be stored, else the reason it may not.

    The future check compares with the gateway's receive time, not our clock, so replaying an old
    backlog gives the same verdict as the first pass. (0, 0) without the positioned status bit is a
    terminal saying "no fix", refused with the reason ``unpositioned`` (the states agent still uses it).
    """
    if not -90.0 <= fix.lat <= 90.0:
        return f"latitude {fix.lat} out of range"
    if not -180.0 <= fix.lng <= 180.0:
        return f"longitude {fix.lng} out of range"
    if fix.fix_at - fix.received_at > timedelta(seconds=limits.max_future_s):
        ahead_s = (fix.fix_at - fix.received_at).total_seconds()
        return f"fix_at {fix.fix_at.isoformat()} is {ahead_s:.0f} s after receipt (max {limits.max_future_s:g})"
    if not 0.0 <= fix.speed_kmh <= limits.max_speed_kmh:
        return f"speed {fix.speed_kmh:g} km/h outside 0..{limits.max_speed_kmh:g}"
    if not 0 <= fix.direction_deg <= 359:
        return f"direction {fix.direction_deg} outside 0..359"
    if fix.lat == 0.0 and fix.lng == 0.0 and not fix.positioned:
        return UNPOSITIONED
    return None


@dataclass(frozen=True, slots=True)
class Classified:
    """What one uplink yields: fixes to store, and refusal reasons (each one a dead letter)."""

    fixes: list[Fix]
    rejects: list[str]


def classify_uplink(uplink: Uplink, limits: Limits) -> Classified:
    """Split an uplink's location bodies into valid fixes and refusal reasons.

    Non-location uplinks give nothing. A 0x0704 item's reason names its index.
    """
    bodies = location_bodies(uplink)
    batch = uplink.msg_id == BATCH_LOCATION_UPLOAD
    fixes: list[Fix] = []
    rejects: list[str] = []
    for index, body in enumerate(bodies):
        where = f"item {index}: " if batch else ""
        try:
            fix = parse_fix(uplink, body)
        except PayloadError as exc:
            rejects.append(f"{where}{exc}")
            continue
        reason = validate_fix(fix, limits)
        if reason is None:
            fixes.append(fix)
        else:
            rejects.append(f"{where}{reason}")
    return Classified(fixes, rejects)


def usable_for_state(fix: Fix, limits: Limits) -> bool:
    """Fixes the states agent may derive ACC and business state from: valid, or valid but unpositioned."""
    return validate_fix(fix, limits) in (None, UNPOSITIONED)


_REASON_CLASSES = (("latitude", "latitude"), ("longitude", "longitude"), ("fix_at", "future"), ("speed", "speed"),
                   ("direction", "direction"), (UNPOSITIONED, "unpositioned"))


def reason_class(reason: str) -> str:
    """The class of a refusal reason for ``gps_reject_day`` (a 0x0704 item's "item N: " prefix ignored):
    latitude, longitude, future, speed, direction, unpositioned, or malformed (a body that did not parse)."""
    text = reason.split(": ", 1)[1] if reason.startswith("item ") and ": " in reason else reason
    for prefix, name in _REASON_CLASSES:
        if text.startswith(prefix):
            return name
    return "malformed"
