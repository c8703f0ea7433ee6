"""The episode rules of fleet.geofence.rules applied to one (vehicle, fence) pair, one fix at a time.

``advance`` takes the pair's state (None: outside, nothing open), the vehicle's previous fix (None: first
sight, which settles inside / outside without an event) and the new fix, and returns the new state (None
when idle) with the events into the given ``Emitter``. ``refine`` replays only the crossings of a backlog
move (fixes older than the vehicle's newest, filling a gap): no state of the pair changes.
"""

from __future__ import annotations

from fleet.geofence.rules import (
    DEVIATION,
    DOOR_OPEN,
    ENTER,
    LEAVE,
    NIGHT_OVERSPEED,
    OVERSPEED,
    SEGMENT_LONG,
    SEGMENT_SHORT,
    STAY,
    Attr,
    Emitter,
    Fence,
    FenceState,
    FenceType,
    Position,
    utc,
)
from fleet.geofence.shapes import CompiledArea, RouteArea

Fix = tuple[float, float, float]  # epoch seconds, lng, lat


def toggles(area: CompiledArea, inside_a: bool, a: Fix, b: Fix, inside_b: bool) -> list[Fix]:
    """Where and when the straight move a -> b crosses the boundary, each crossing flipping inside /
    outside; time in proportion to the distance along the move. Two fixes inside: none (a brief exit
    between them is not seen). Two fixes outside: the pairs of crossings of a pass through the area."""
    if inside_a and inside_b:
        return []
    fractions = area.crossings((a[1], a[2]), (b[1], b[2]))
    if inside_a == inside_b:
        fractions = fractions[: len(fractions) // 2 * 2]  # a touch of the boundary is no pass
    elif not fractions:
        fractions = [1.0]  # on the boundary at b, within rounding
    elif len(fractions) % 2 == 0:
        fractions = fractions[:-1]
    return [(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2])) for f in fractions]


def advance(fence: Fence, area: CompiledArea, state: FenceState | None, prev: Fix | None, p: Position,
            out: Emitter, seen: tuple[bool, bool] | None = None) -> FenceState | None:
    """``seen``: (inside at p, the move may meet the area) when the caller computed them for the batch."""
    st = FenceState() if state is None else state.copy()  # the caller's value is never changed
    t = p.at.timestamp()
    inside_b, may_meet = seen if seen is not None else (area.contains(p.lng, p.lat), True)
    enter_t = leave_t = None
    if prev is None:
        st = _set(st, inside=inside_b)
    elif st.inside or inside_b or may_meet:
        for ct, lng, lat in toggles(area, st.inside, prev, (t, p.lng, p.lat), inside_b):
            if st.inside:
                st, leave_t = _leave(fence, st, ct, lng, lat, out), ct
            else:
                st, enter_t = _enter(fence, st, ct, lng, lat, out), ct
    if isinstance(area, RouteArea):
        st = _segments(fence, area, st, prev is not None, p, t, enter_t, leave_t, out)
    st = _overspeed(fence, area, st, p, t, out)
    st = _stay(fence, st, p, t, out)
    st = _door(fence, st, p, t, out)
    return None if st.idle else st


def refine(fence: Fence, area: CompiledArea, inside_a: bool, a: Fix, p: Position, out: Emitter,
           superseded: dict[str, float]) -> bool:
    """The crossings of a backlog move a -> p (enter / leave, a route's deviation); returns inside at p."""
    inside_b = area.contains(p.lng, p.lat)
    inside = inside_a
    for ct, lng, lat in toggles(area, inside_a, a, (p.at.timestamp(), p.lng, p.lat), inside_b):
        kinds = (LEAVE, DEVIATION) if inside else (ENTER, DEVIATION)
        for kind in kinds:
            if kind == DEVIATION and fence.fence_type is not FenceType.ROUTE:
                continue
            if kind != DEVIATION and not _announced(fence, entering=kind == ENTER):
                continue
            phase = "instant" if kind != DEVIATION else ("start" if inside else "end")
            sup = superseded.get(kind)
            out.emit(kind, phase, ct, lng, lat, supersedes=None if sup is None else utc(sup),
                     **_targets(fence, entering=kind == ENTER) if kind != DEVIATION else {})
        inside = not inside
    return inside_b


def _set(st: FenceState, **changes: object) -> FenceState:
    for name, value in changes.items():
        setattr(st, name, value)
    return st


def _announced(fence: Fence, *, entering: bool) -> bool:
    wanted = (Attr.IN_TO_DRIVER, Attr.IN_TO_PLATFORM) if entering else (Attr.OUT_TO_DRIVER, Attr.OUT_TO_PLATFORM)
    return any(a in fence.attributes for a in wanted)


def _targets(fence: Fence, *, entering: bool) -> dict[str, bool]:
    driver, platform = (Attr.IN_TO_DRIVER, Attr.IN_TO_PLATFORM) if entering else (Attr.OUT_TO_DRIVER, Attr.OUT_TO_PLATFORM)
    return {"to_driver": driver in fence.attributes, "to_platform": platform in fence.attributes}


def _enter(fence: Fence, st: FenceState, t: float, lng: float, lat: float, out: Emitter) -> FenceState:
    at = utc(t)
    if st.deviating_since is not None:
        out.emit(DEVIATION, "end", t, lng, lat, started=st.deviating_since)
    if fence.watched_at(at) and _announced(fence, entering=True):
        out.emit(ENTER, "instant", t, lng, lat, **_targets(fence, entering=True))
    return _set(st, inside=True, deviating_since=None)


def _leave(fence: Fence, st: FenceState, t: float, lng: float, lat: float, out: Emitter) -> FenceState:
    """Leaving ends every episode of the inside (at the crossing); a route's deviation starts."""
    at = utc(t)
    if st.over_kind is not None:
        out.emit(st.over_kind, "end", t, lng, lat, started=st.over_since)
    if st.stay_open:
        out.emit(STAY, "end", t, lng, lat, started=st.stand_since)
    if st.door_since is not None:
        out.emit(DOOR_OPEN, "end", t, lng, lat, started=st.door_since)
    watched = fence.watched_at(at)
    if watched and _announced(fence, entering=False):
        out.emit(LEAVE, "instant", t, lng, lat, **_targets(fence, entering=False))
    deviating = None
    if fence.fence_type is FenceType.ROUTE and watched:
        out.emit(DEVIATION, "start", t, lng, lat)
        deviating = t
    return _set(st, inside=False, over_since=None, over_kind=None, stand_since=None, stay_open=False,
                   door_since=None, deviating_since=deviating)


def _segments(fence: Fence, area: RouteArea, st: FenceState, moved: bool, p: Position, t: float,
              enter_t: float | None, leave_t: float | None, out: Emitter) -> FenceState:
    """Segment time, judged when the vehicle leaves a segment: from its entry (the corridor crossing, or
    the first fix on it after the previous segment) to its exit (the corridor crossing, or the first fix on
    the next segment)."""
    segment = area.segment_at(p.lng, p.lat, st.segment) if st.inside else None
    if segment == st.segment:
        return st
    if st.segment is not None and st.segment_since is not None and moved and fence.watched_at(p.at):
        until = leave_t if segment is None and leave_t is not None else t
        spent = until - st.segment_since
        rules = area.segments[st.segment]
        if rules.min_time_s is not None and spent < rules.min_time_s:
            out.emit(SEGMENT_SHORT, "instant", until, p.lng, p.lat, segment=st.segment, duration_s=spent,
                     started=st.segment_since)
        if rules.max_time_s is not None and spent > rules.max_time_s:
            out.emit(SEGMENT_LONG, "instant", until, p.lng, p.lat, segment=st.segment, duration_s=spent,
                     started=st.segment_since)
    since = None
    if segment is not None and moved:
        since = enter_t if st.segment is None and enter_t is not None else t
    return _set(st, segment=segment, segment_since=since)


def _limit(fence: Fence, area: CompiledArea, st: FenceState, p: Position) -> tuple[float | None, str, float]:
    """The speed limit in force at p, the episode's kind and its minimum duration."""
    night = fence.night_speed_limit_kmh is not None and fence.is_night(p.at)
    if isinstance(area, RouteArea):
        if st.segment is None:
            return None, OVERSPEED, 0.0
        rules = area.segments[st.segment]
        if night:
            return fence.night_speed_limit_kmh, NIGHT_OVERSPEED, rules.overspeed_s
        return rules.speed_limit_kmh, OVERSPEED, rules.overspeed_s
    if not fence.watches_speed:
        return None, OVERSPEED, 0.0
    if night:
        return fence.night_speed_limit_kmh, NIGHT_OVERSPEED, fence.overspeed_s
    return fence.speed_limit_kmh, OVERSPEED, fence.overspeed_s


def _overspeed(fence: Fence, area: CompiledArea, st: FenceState, p: Position, t: float,
               out: Emitter) -> FenceState:
    limit, kind, duration = _limit(fence, area, st, p)
    over = st.inside and limit is not None and p.speed_kmh > limit and fence.watched_at(p.at)
    if not over:
        if st.over_kind is not None:
            out.emit(st.over_kind, "end", t, p.lng, p.lat, started=st.over_since, speed_kmh=p.speed_kmh)
        return _set(st, over_since=None, over_kind=None) if st.over_since is not None else st
    since = t if st.over_since is None else st.over_since
    if st.over_kind is None and t - since >= duration:
        out.emit(kind, "start", since, p.lng, p.lat, started=since, speed_kmh=p.speed_kmh, limit_kmh=limit,
                 duration_s=t - since)
        return _set(st, over_since=since, over_kind=kind)
    return _set(st, over_since=since) if st.over_since is None else st


def _stay(fence: Fence, st: FenceState, p: Position, t: float, out: Emitter) -> FenceState:
    if fence.fence_type is not FenceType.STAY or fence.stay_limit_s is None:
        return st
    standing = st.inside and p.speed_kmh <= fence.standing_kmh and fence.watched_at(p.at)
    if not standing:
        if st.stay_open:
            out.emit(STAY, "end", t, p.lng, p.lat, started=st.stand_since)
        return _set(st, stand_since=None, stay_open=False) if st.stand_since is not None else st
    since = t if st.stand_since is None else st.stand_since
    if not st.stay_open and t - since >= fence.stay_limit_s:
        out.emit(STAY, "start", since, p.lng, p.lat, started=since, duration_s=t - since)
        return _set(st, stand_since=since, stay_open=True)
    return _set(st, stand_since=since)


def _door(fence: Fence, st: FenceState, p: Position, t: float, out: Emitter) -> FenceState:
    if Attr.NO_DOOR_OPENING not in fence.attributes:
        return st
    opened = st.inside and p.door_open and fence.watched_at(p.at)
    if opened and st.door_since is None:
        out.emit(DOOR_OPEN, "start", t, p.lng, p.lat)
        return _set(st, door_since=t)
    if not opened and st.door_since is not None:
        out.emit(DOOR_OPEN, "end", t, p.lng, p.lat, started=st.door_since)
        return _set(st, door_since=None)
    return st
