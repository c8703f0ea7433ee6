"""The fence check of a batch: every vehicle's fixes, in time order, against the fences bound to it.

    checker = FenceChecker(fences, bindings)              # bindings: device id -> fence ids
    result = checker.check(positions, states)             # states: device id -> VehicleState, updated

A vehicle's state (``VehicleState``: its newest fix, the non-idle (vehicle, fence) pairs, the latest gap)
is a small value, ``to_json()`` / ``from_json()``, to be kept across worker restarts.

Order and replays: a fix newer than the vehicle's newest advances the episode rules (fleet.geofence.rules).
A fix not newer is either a replay (ignored: feeding the same fixes twice yields nothing the second time)
or a backlog that fills the latest gap (two consecutive fixes at least ``gap_s`` apart): its crossings
are yielded at their own times, marked ``backlog``, each superseding the crossing the live chain had
interpolated across that gap; the gap then starts at that fix, so the same backlog again yields nothing.
Fixes flagged ``late`` (0x0704) yield ``backlog`` events even when newer. Duration rules (overspeed,
stay, segment time, door) run on the live chain only, as the platform alarm rules do.

A fence whose shape cannot be compiled is left out and named in ``invalid`` (it never stops the others).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import shapely

from fleet.geofence.episodes import Fix, advance, refine
from fleet.geofence.frame import InvalidGeometry
from fleet.geofence.index import H3Index, StrTreeIndex, move_lines
from fleet.geofence.rules import (
    DEVIATION,
    ENTER,
    LEAVE,
    Attr,
    Emitter,
    Fence,
    FenceEvent,
    FenceState,
    FenceType,
    Position,
)
from fleet.geofence.shapes import CircleArea, CompiledArea, compile_shape

_NONE: Mapping[int, FenceState] = {}  # shared by every vehicle with no fence state (never mutated)
_NO_TOUCH: Mapping[int, tuple[bool, bool] | None] = {}
DEFAULT_GAP_S = 90.0  # three times the usual 30 s reporting interval: a blind area, not a late packet


@dataclass(frozen=True, slots=True)
class Gap:
    """The latest move of at least ``gap_s``: from (t0, lng0, lat0), inside ``inside`` (fence ids), to t1;
    ``crossed`` = (fence id, kind, started_at) of the crossings the live chain interpolated across it."""

    t0: float
    lng0: float
    lat0: float
    t1: float
    inside: tuple[int, ...] = ()
    crossed: tuple[tuple[int, str, float], ...] = ()


@dataclass(slots=True)
class VehicleState:
    """A vehicle's fence state between batches (a value: the checker replaces it, never changes it)."""

    last_at: float
    lng: float
    lat: float
    fences: Mapping[int, FenceState]
    gap: Gap | None = None

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = {"last_at": self.last_at, "lng": self.lng, "lat": self.lat,
                                 "fences": {str(k): v.to_json() for k, v in self.fences.items()}}
        if self.gap is not None:
            g = self.gap
            value["gap"] = [g.t0, g.lng0, g.lat0, g.t1, list(g.inside), [list(c) for c in g.crossed]]
        return value

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> VehicleState:
        """Raises ValueError naming the problem for a value that is not a kept state (the caller then
        starts the vehicle fresh: its next fix settles inside / outside without an event)."""
        try:
            return cls._from_json(value)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a fence state: {exc!r}") from exc

    @classmethod
    def _from_json(cls, value: Mapping[str, Any]) -> VehicleState:
        gap = None
        if value.get("gap"):
            t0, lng0, lat0, t1, inside, crossed = value["gap"]
            gap = Gap(t0, lng0, lat0, t1, tuple(inside), tuple((int(f), str(k), float(s)) for f, k, s in crossed))
        fences = {int(k): FenceState.from_json(v) for k, v in value.get("fences", {}).items()}
        return cls(float(value["last_at"]), float(value["lng"]), float(value["lat"]), fences, gap)


def _fix_time(p: Position) -> datetime:
    return p.at


@dataclass
class CheckResult:
    events: list[FenceEvent] = field(default_factory=list)
    replays: int = 0  # fixes not newer than the vehicle's newest and outside its gap: ignored


class FenceChecker:
    """The compiled fences, their bindings and the spatial index; ``check`` is pure apart from ``states``.
    Rebuilt (cheaply: ~2 s for 10,000 fences) when fences or bindings change; the states carry over."""

    def __init__(self, fences: Iterable[Fence], bindings: Mapping[int, Collection[int]], *,
                 index: str = "strtree", gap_s: float = DEFAULT_GAP_S, h3_resolution: int = 8) -> None:
        self.fences: dict[int, Fence] = {}
        self.areas: dict[int, CompiledArea] = {}
        self.invalid: dict[int, str] = {}
        for fence in fences:
            try:
                self.areas[fence.fence_id] = compile_shape(fence.shape)
                self.fences[fence.fence_id] = fence
            except (InvalidGeometry, ValueError, TypeError) as exc:
                self.invalid[fence.fence_id] = str(exc)
        self.bindings = {device: frozenset(ids) & self.fences.keys() for device, ids in bindings.items() if ids}
        # (device, fence) pairs are looked up as one int64 key, device << 32 | fence
        if any(not 0 <= d < 2**31 for d in self.bindings) or any(not 0 <= f < 2**32 for f in self.fences):
            raise ValueError("device ids must be in 0..2**31-1 and fence ids in 0..2**32-1")
        self.bound_keys = np.array(sorted((device << 32) | fid for device, ids in self.bindings.items() for fid in ids),
                                   dtype=np.int64)
        geometries = {fid: area.index_geometry for fid, area in self.areas.items()}
        # the polygonal areas' prepared geometries by fence id (sorted), None for circles: for the batch's
        # vectorised exact tests
        self.geometry_ids = np.array(sorted(self.areas), dtype=np.int64)
        self.geometry_of: np.ndarray = np.array(
            [None if isinstance(a, CircleArea) else a.geometry for a in (self.areas[f] for f in sorted(self.areas))]
            + [None], dtype=object)[:-1]  # the trailing None keeps numpy from nesting the geometries' arrays
        self.index = H3Index(geometries, h3_resolution) if index == "h3" else StrTreeIndex(geometries)
        self.gap_s = gap_s
        # fences with no rule while inside (enter / leave only, always watched): a vehicle still inside
        # one needs no rule evaluation, the most common case for depots and districts
        self.quiet_inside = frozenset(
            fid for fid, f in self.fences.items()
            if f.fence_type in (FenceType.ALARM, FenceType.OVERSPEED) and not f.watches_speed
            and f.time_window is None and Attr.NO_DOOR_OPENING not in f.attributes)

    def check(self, positions: Iterable[Position], states: MutableMapping[int, VehicleState]) -> CheckResult:
        by_device: dict[int, list[Position]] = defaultdict(list)
        for p in positions:
            by_device[p.device_id].append(p)
        moves: list[tuple[float, float, float, float]] = []
        movers: list[int] = []
        times: dict[int, list[float]] = {}
        for device, fixes in list(by_device.items()):
            if device not in self.bindings:  # no fence of its own: only its newest fix is kept
                self._unbound(device, fixes, states)
                del by_device[device]
                continue
            if len(fixes) > 1:
                fixes.sort(key=_fix_time)
            times[device] = stamps = [p.at.timestamp() for p in fixes]
            vs = states.get(device)
            last = None if vs is None else (vs.last_at, vs.lng, vs.lat)
            for p, t in zip(fixes, stamps, strict=True):  # one query per live fix: the move from the newest fix
                if last is None or t > last[0]:
                    moves.append((p.lng, p.lat, p.lng, p.lat) if last is None else (last[1], last[2], p.lng, p.lat))
                    movers.append(device)
                    last = (t, p.lng, p.lat)
        touched = self._touched(np.array(moves, dtype=float).reshape(-1, 4), np.array(movers, dtype=np.int64))
        result = CheckResult()
        number = 0
        gap_s = self.gap_s
        for device, fixes in by_device.items():
            vs = states.get(device)
            bound = self.bindings.get(device, frozenset())
            for p, t in zip(fixes, times[device], strict=True):
                if vs is None or t > vs.last_at:
                    seen = touched.get(number)
                    number += 1
                    if seen is None and vs is not None and not vs.fences and t - vs.last_at < gap_s:
                        # the common case, inlined (``_live``'s first return): near no fence of its own,
                        # holding no pair, no new gap: only the newest fix moves
                        vs = VehicleState(t, p.lng, p.lat, _NONE, vs.gap)
                        continue
                    vs = self._live(vs, p, t, _NO_TOUCH if seen is None else seen, bound, result.events)
                elif vs.gap is not None and vs.gap.t0 < t < vs.gap.t1:
                    vs = self._backlog(vs, p, t, bound, result.events)
                else:
                    result.replays += 1
            if vs is not None:
                states[device] = vs
        return result

    @staticmethod
    def _unbound(device: int, fixes: list[Position], states: MutableMapping[int, VehicleState]) -> None:
        """A vehicle bound to no fence: its pairs are forgotten without an event, its newest fix kept (so a
        binding made later starts from it)."""
        newest = max(fixes, key=_fix_time)
        t = newest.at.timestamp()
        vs = states.get(device)
        if vs is None or t > vs.last_at:
            states[device] = VehicleState(t, newest.lng, newest.lat, _NONE, None)
        elif vs.fences:
            states[device] = replace(vs, fences=_NONE, gap=None)

    def _touched(self, moves: np.ndarray, movers: np.ndarray) -> dict[int, dict[int, tuple[bool, bool] | None]]:
        """Move number -> {fence bound to its vehicle that the index says the move may touch: (inside at
        the move's end, the move meets the area) or None for a circle (its exact test is cheaper in Python)}.

        The binding filter is one vectorised lookup of (device, fence) keys and the exact tests of the
        polygonal areas are two vectorised GEOS calls on prepared geometries for the whole batch, so only
        the few real candidates reach Python."""
        lines = move_lines(moves) if len(moves) else np.empty(0, dtype=object)
        query, fence_ids = self.index.pairs(moves, lines)
        touched: dict[int, dict[int, tuple[bool, bool] | None]] = {}
        if len(query) == 0 or len(self.bound_keys) == 0:
            return touched
        keys = (movers[query] << 32) | fence_ids
        at = np.minimum(np.searchsorted(self.bound_keys, keys), len(self.bound_keys) - 1)
        keep = self.bound_keys[at] == keys
        query, fence_ids = query[keep], fence_ids[keep]
        if len(query) == 0:
            return touched
        geoms = self.geometry_of[np.searchsorted(self.geometry_ids, fence_ids)]
        ends = moves[query]
        inside = shapely.intersects_xy(geoms, ends[:, 2], ends[:, 3])
        meets = shapely.intersects(geoms, lines[query])
        polygonal = ~shapely.is_missing(geoms)
        for number, fid, poly, ins, met in zip(query.tolist(), fence_ids.tolist(), polygonal.tolist(),
                                               inside.tolist(), meets.tolist(), strict=True):
            touched.setdefault(number, {})[fid] = (ins, met) if poly else None
        return touched

    def _live(self, vs: VehicleState | None, p: Position, t: float,
              touched: Mapping[int, tuple[bool, bool] | None], bound: frozenset[int],
              events: list[FenceEvent]) -> VehicleState:
        prev: Fix | None = None if vs is None else (vs.last_at, vs.lng, vs.lat)
        gap = None if vs is None else vs.gap
        if prev is not None and t - prev[0] >= self.gap_s:
            assert vs is not None
            gap = Gap(prev[0], prev[1], prev[2], t, tuple(sorted(f for f, s in vs.fences.items() if s.inside)))
        if not touched and (vs is None or not vs.fences):  # the common case: near no fence of its own
            return VehicleState(t, p.lng, p.lat, _NONE, gap)
        fences = dict(vs.fences) if vs is not None else {}
        start = len(events)
        quiet = self.quiet_inside
        for fid in touched.keys() | (fences.keys() & bound):
            # not touched by the move: outside at p and not met on the way
            seen = touched[fid] if fid in touched else (False, False)
            kept = fences.get(fid)
            if kept is not None and kept.inside and fid in quiet and prev is not None:
                area = self.areas[fid]
                if (seen[0] if seen is not None else area.contains(p.lng, p.lat)):
                    continue  # still inside a fence with no rule for the inside: nothing can happen
            out = Emitter(p.device_id, self.fences[fid], p.late, events)
            state = advance(self.fences[fid], self.areas[fid], kept, prev, p, out, seen)
            if state is None:
                fences.pop(fid, None)
            else:
                fences[fid] = state
        for fid in fences.keys() - bound:  # unbound or deleted since: forgotten without an event
            del fences[fid]
        if gap is not None and gap.t1 == t:
            crossed = tuple((e.fence_id, e.kind, e.started_at.timestamp()) for e in events[start:]
                            if e.kind in (ENTER, LEAVE) or (e.kind == DEVIATION and e.phase != "instant"))
            gap = replace(gap, crossed=crossed)
        return VehicleState(t, p.lng, p.lat, fences, gap)

    def _backlog(self, vs: VehicleState, p: Position, t: float, bound: frozenset[int],
                 events: list[FenceEvent]) -> VehicleState:
        gap = vs.gap
        assert gap is not None
        move = np.array([(gap.lng0, gap.lat0, p.lng, p.lat)], dtype=float)
        touched = (set(self.index.pairs(move)[1].tolist()) | set(gap.inside)) & bound
        inside = set(gap.inside)
        for fid in touched:
            out = Emitter(p.device_id, self.fences[fid], True, events)
            superseded = {kind: started for f, kind, started in gap.crossed if f == fid}
            if refine(self.fences[fid], self.areas[fid], fid in gap.inside, (gap.t0, gap.lng0, gap.lat0), p, out,
                      superseded):
                inside.add(fid)
            else:
                inside.discard(fid)
        return replace(vs, gap=replace(gap, t0=t, lng0=p.lng, lat0=p.lat, inside=tuple(sorted(inside))))
