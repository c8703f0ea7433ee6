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
from typing import Any

import numpy as np

from fleet.geofence.episodes import Fix, advance, refine
from fleet.geofence.frame import InvalidGeometry
from fleet.geofence.index import H3Index, StrTreeIndex
from fleet.geofence.rules import DEVIATION, ENTER, LEAVE, Emitter, Fence, FenceEvent, FenceState, Position
from fleet.geofence.shapes import CompiledArea, compile_shape

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


@dataclass(frozen=True)
class VehicleState:
    last_at: float
    lng: float
    lat: float
    fences: Mapping[int, FenceState] = field(default_factory=dict)
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
        gap = None
        if value.get("gap"):
            t0, lng0, lat0, t1, inside, crossed = value["gap"]
            gap = Gap(t0, lng0, lat0, t1, tuple(inside), tuple((int(f), str(k), float(s)) for f, k, s in crossed))
        fences = {int(k): FenceState.from_json(v) for k, v in value.get("fences", {}).items()}
        return cls(float(value["last_at"]), float(value["lng"]), float(value["lat"]), fences, gap)


@dataclass
class CheckResult:
    events: list[FenceEvent] = field(default_factory=list)
    replays: int = 0  # fixes not newer than the vehicle's newest and outside its gap: ignored


class FenceChecker:
    def __init__(self, fences: Iterable[Fence], bindings: Mapping[int, Collection[int]], *,
                 index: str = "strtree", gap_s: float = DEFAULT_GAP_S) -> None:
        self.fences: dict[int, Fence] = {}
        self.areas: dict[int, CompiledArea] = {}
        self.invalid: dict[int, str] = {}
        for fence in fences:
            try:
                self.areas[fence.fence_id] = compile_shape(fence.shape)
                self.fences[fence.fence_id] = fence
            except (InvalidGeometry, ValueError, TypeError) as exc:
                self.invalid[fence.fence_id] = str(exc)
        self.bindings = {device: frozenset(ids) & self.fences.keys() for device, ids in bindings.items()}
        geometries = {fid: area.index_geometry for fid, area in self.areas.items()}
        self.index = H3Index(geometries) if index == "h3" else StrTreeIndex(geometries)
        self.gap_s = gap_s

    def check(self, positions: Iterable[Position], states: MutableMapping[int, VehicleState]) -> CheckResult:
        by_device: dict[int, list[Position]] = defaultdict(list)
        for p in positions:
            by_device[p.device_id].append(p)
        moves: list[tuple[float, float, float, float]] = []
        for device, fixes in by_device.items():
            fixes.sort(key=lambda p: p.at)
            vs = states.get(device)
            last = None if vs is None else (vs.last_at, vs.lng, vs.lat)
            for p in fixes:  # one query per live fix: the move from the previous newest fix
                t = p.at.timestamp()
                if last is None or t > last[0]:
                    moves.append((p.lng, p.lat, p.lng, p.lat) if last is None else (last[1], last[2], p.lng, p.lat))
                    last = (t, p.lng, p.lat)
        touched = iter(self.index.candidates(np.array(moves, dtype=float).reshape(-1, 4)))
        result = CheckResult()
        for device, fixes in by_device.items():
            vs = states.get(device)
            bound = self.bindings.get(device, frozenset())
            for p in fixes:
                t = p.at.timestamp()
                if vs is None or t > vs.last_at:
                    vs = self._live(vs, p, t, next(touched) & bound, bound, result.events)
                elif vs.gap is not None and vs.gap.t0 < t < vs.gap.t1:
                    vs = self._backlog(vs, p, t, bound, result.events)
                else:
                    result.replays += 1
            if vs is not None:
                states[device] = vs
        return result

    def _live(self, vs: VehicleState | None, p: Position, t: float, touched: set[int] | frozenset[int],
              bound: frozenset[int], events: list[FenceEvent]) -> VehicleState:
        prev: Fix | None = None if vs is None else (vs.last_at, vs.lng, vs.lat)
        fences = dict(vs.fences) if vs is not None else {}
        start = len(events)
        for fid in touched | (fences.keys() & bound):
            out = Emitter(p.device_id, self.fences[fid], backlog=p.late)
            state = advance(self.fences[fid], self.areas[fid], fences.get(fid), prev, p, out)
            if state is None:
                fences.pop(fid, None)
            else:
                fences[fid] = state
            events.extend(out.events)
        for fid in fences.keys() - bound:  # unbound or deleted since: forgotten without an event
            del fences[fid]
        gap = None if vs is None else vs.gap
        if prev is not None and t - prev[0] >= self.gap_s:
            inside = tuple(sorted(fid for fid, s in (vs.fences.items() if vs else ()) if s.inside))
            crossed = tuple((e.fence_id, e.kind, e.started_at.timestamp()) for e in events[start:]
                            if e.kind in (ENTER, LEAVE) or (e.kind == DEVIATION and e.phase != "instant"))
            gap = Gap(prev[0], prev[1], prev[2], t, inside, crossed)
        return VehicleState(t, p.lng, p.lat, fences, gap)

    def _backlog(self, vs: VehicleState, p: Position, t: float, bound: frozenset[int],
                 events: list[FenceEvent]) -> VehicleState:
        gap = vs.gap
        assert gap is not None
        move = np.array([(gap.lng0, gap.lat0, p.lng, p.lat)], dtype=float)
        touched = (self.index.candidates(move)[0] | set(gap.inside)) & bound
        inside = set(gap.inside)
        for fid in touched:
            out = Emitter(p.device_id, self.fences[fid], backlog=True)
            superseded = {kind: started for f, kind, started in gap.crossed if f == fid}
            if refine(self.fences[fid], self.areas[fid], fid in gap.inside, (gap.t0, gap.lng0, gap.lat0), p, out,
                      superseded):
                inside.add(fid)
            else:
                inside.discard(fid)
            events.extend(out.events)
        return replace(vs, gap=replace(gap, t0=t, lng0=p.lng, lat0=p.lat, inside=tuple(sorted(inside))))
