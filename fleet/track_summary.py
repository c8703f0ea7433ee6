"""Day summaries of one device's track: what a long track read or a stop log needs of a
closed day, kept once instead of re-read from ``gps`` every time. Pure; ``warehouse.track_days`` stores
and reads them.

``summarise(columns, thresholds, resolution_s)`` keeps, of one span of fixes in time order:

- the first fix of every ``resolution_s`` time bucket, and the first and last fix (the drawing);
- every alarm fix (thinning keeps them all, contract B): alarm bits, or alarm ``items`` (an active-safety
  item or a video alarm, ``warehouse.queries.track_alarms``), which the summary keeps with the fix;
- what stop detection (``fleet.stops``) needs to give exactly the stops of every fix: every fix of
  every stop run, except those inside a run of identical parked fixes (same place to 1e-6 degree,
  stopped, same ACC, no alarm: they change no stop, as ``positions.track_points`` collapses them), and
  the first fix after each run (it ends the run). A moving fix outside a stop run changes nothing in
  detection, so leaving it out leaves every stop as it was.

Which fixes are in a run depends on the stop going at the day's start (its anchor), so detection runs
over ``context`` (the fixes before the day: ``warehouse.track_days`` passes the previous
``lookback_s``) followed by the day, and keeps the day's part. Exact across midnight unless a stop
began before the lookback and its first fix there lies elsewhere than where it began (more than the
radius apart). The stop's median position is taken over the kept fixes (as ``track_points`` does).

The kept set depends on ``park_speed_kmh`` and ``radius_m``; the store records both and a summary made
with other thresholds is recomputed. ``TrackColumns`` are the ten track columns and the alarm items,
aligned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import orjson

from fleet.stops import StopThresholds, stop_segments

UNSIGNED_32 = 0xFFFFFFFF


@dataclass
class TrackColumns:
    """One device's fixes as aligned columns, in time order (epoch ms; real columns as the decimal
    PostgreSQL prints for them, so a row's JSON here equals the one PostgreSQL builds)."""

    times: list[int] = field(default_factory=list)
    lngs: list[float] = field(default_factory=list)
    lats: list[float] = field(default_factory=list)
    speeds: list[float | None] = field(default_factory=list)
    directions: list[int | None] = field(default_factory=list)
    altitudes: list[float | None] = field(default_factory=list)
    mileages: list[float | None] = field(default_factory=list)
    fuels: list[float | None] = field(default_factory=list)
    alarms: list[int] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    # The fix's alarm items (track_alarms.items_sql: the extras keys of active-safety and video alarms), or
    # None; left out (empty) it is None for every fix.
    items: list[dict[str, Any] | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.items and self.times:
            self.items = [None] * len(self.times)

    def __len__(self) -> int:
        return len(self.times)

    def columns(self) -> list[list[Any]]:
        return [getattr(self, f.name) for f in fields(self)]

    @classmethod
    def of(cls, columns: Sequence[Sequence[Any] | None]) -> TrackColumns:
        """From ten or eleven sequences (None: empty), in the order of the fields."""
        return cls(*[list(c) if c is not None else [] for c in columns])

    @property
    def alarm_points(self) -> list[bool]:
        """Whether each fix is an alarm point: alarm bits or alarm items."""
        return [bool(a) or i is not None for a, i in zip(self.alarms, self.items, strict=True)]

    def take(self, indices: Iterable[int]) -> TrackColumns:
        chosen = list(indices)
        return TrackColumns(*[[column[i] for i in chosen] for column in self.columns()])

    def extend(self, other: TrackColumns) -> None:
        for mine, theirs in zip(self.columns(), other.columns(), strict=True):
            mine.extend(theirs)

    @property
    def acc(self) -> list[bool]:
        return [(s & 1) == 1 for s in self.statuses]

    def rows_json(self, indices: Iterable[int], tails: Mapping[int, Sequence[Any]] | None = None,
                  no_tail: Sequence[Any] = ()) -> str:
        """JSON array text of the TRACK_FIELDS rows (warehouse.queries.positions) at ``indices``: the
        eleven columns, then ``tails[i]`` (the alarm fields PostgreSQL made) or ``no_tail``."""
        t, lng, lat, speed, direction, alt, mileage, fuel, alarm, status, _items = self.columns()
        found = tails or {}
        return orjson.dumps([[t[i], lng[i], lat[i], speed[i], direction[i], alt[i], mileage[i], fuel[i],
                              status[i] & 1, alarm[i] & UNSIGNED_32, status[i], *found.get(i, no_tail)]
                             for i in indices]).decode()


@dataclass(frozen=True)
class DaySummary:
    points: int  # every fix of the span
    first_ms: int | None
    last_ms: int | None
    mileage_km: float | None  # last known odometer minus the first (never negative)
    kept: TrackColumns


def _still_key(speed: float | None, alarm: bool, lng: float, lat: float, status: int, limit: float) -> int | None:
    if speed is None or speed >= limit or alarm:
        return None
    return (round(lng * 1e6) * 1_000_000_000 + round(lat * 1e6)) * 2 + (status & 1)


def keep_indices(columns: TrackColumns, thresholds: StopThresholds, resolution_s: int, start: int = 0) -> list[int]:
    """Indices (ascending, from ``start``) of the fixes a summary keeps; see the module docstring.
    ``columns`` in time order; the fixes before ``start`` are context only."""
    n = len(columns)
    if n <= start:
        return []
    times, speeds, alarms = columns.times, columns.speeds, columns.alarm_points
    limit = thresholds.park_speed_kmh
    protected = bytearray(n)  # never collapsed
    keep = bytearray(n)
    protected[start] = protected[n - 1] = 1
    for i in range(start, n):
        if alarms[i]:
            protected[i] = 1
    segments = stop_segments(times, speeds, columns.acc, columns.lngs, columns.lats, thresholds=thresholds)
    for segment in segments:
        if segment[-1] + 1 < start:
            continue
        protected[segment[0]] = protected[segment[-1]] = 1
        if segment[-1] + 1 < n:
            protected[segment[-1] + 1] = 1
        for i in segment:
            keep[i] = 1
    bucket_ms = resolution_s * 1000
    previous = None
    for i in range(start, n):
        bucket = times[i] // bucket_ms
        if bucket != previous:
            keep[i] = 1
            previous = bucket
    keys = [_still_key(s, a, lo, la, st, limit) for s, a, lo, la, st in
            zip(speeds, alarms, columns.lngs, columns.lats, columns.statuses, strict=True)]
    out = []
    for i in range(start, n):
        if protected[i]:
            out.append(i)
        elif keep[i]:
            key = keys[i]
            if key is None or not (0 < i < n - 1 and keys[i - 1] == key and keys[i + 1] == key):
                out.append(i)
    return out


def collapse_parked(columns: TrackColumns, thresholds: StopThresholds, candidates: Iterable[int]) -> TrackColumns:
    """``columns`` without those of ``candidates`` that lie inside a run of identical parked fixes (the
    fixes before and after are parked at the same place with the same ACC, no alarm), as
    ``positions.track_points`` leaves them out: a range read from day summaries and every fix of its other
    parts gives the stop positions (medians) of every fix only once the parts' own fixes (every fix of a
    part read from gps) and their seams (a summary keeps its day's first and last fix) are collapsed too."""
    n = len(columns)
    limit = thresholds.park_speed_kmh
    keys = [_still_key(s, a, lo, la, st, limit) for s, a, lo, la, st in
            zip(columns.speeds, columns.alarm_points, columns.lngs, columns.lats, columns.statuses, strict=True)]
    dropped = {i for i in candidates
               if 0 < i < n - 1 and keys[i] is not None and keys[i - 1] == keys[i] == keys[i + 1]}
    return columns if not dropped else columns.take(i for i in range(n) if i not in dropped)


def summarise(columns: TrackColumns, thresholds: StopThresholds, resolution_s: int,
              context: TrackColumns | None = None) -> DaySummary:
    """The summary of one span of fixes (a device's UTC day) in time order, ``context`` the fixes
    just before it (time order)."""
    n = len(columns)
    if n == 0:
        return DaySummary(0, None, None, None, TrackColumns())
    known = [m for m in columns.mileages if m is not None]
    mileage = max(0.0, known[-1] - known[0]) if known else None
    if context is not None and len(context):
        both = TrackColumns()
        both.extend(context)
        both.extend(columns)
        kept = both.take(keep_indices(both, thresholds, resolution_s, len(context)))
    else:
        kept = columns.take(keep_indices(columns, thresholds, resolution_s))
    return DaySummary(n, columns.times[0], columns.times[-1], mileage, kept)
