"""Stop and idling detection over one vehicle's track (contract C).

``detect_stops(times_ms, speeds_kmh, acc_on, lngs, lats)`` is pure: parallel sequences of one track's
points in, ``Stop`` rows out. It serves the parking and idling logs and the replay's stop markers.

Rules (thresholds from ``StopSettings``, ``docs/configuration.md``):

- A point is *stopped* when its speed is below ``park_speed_kmh``.
- A stop begins at a stopped point (its *anchor*). Every later point within ``radius_m`` of the anchor
  stays in the stop whatever its speed: GPS jitter reports a few km/h on a parked vehicle, and a
  terminal that was silent while parked often first reports already moving a few metres away. The
  stop ends at its last such point. A moving point farther away ends it; a stopped point farther away
  (the vehicle moved while no fix was reported) ends it and begins the next stop.
- A stop lasting at least ``park_min_s`` is a ``park``. Within any stop (a park or a shorter one), a
  run of points with ACC on lasting at least ``idle_min_s`` is an ``idle``, so a long engine-on stop
  gives a park and an idle over the same time.
- A stop or idle spans from its first to its last point (a single fix has no duration and is never a
  stop). One still in progress at the last point of the track is closed there and marked
  ``ongoing``; it counts when it is already long enough. Days do not split stops (one overnight
  stop is one stop).
- Points are taken in fix-time order: late 0x0704 backlogs are stored out of arrival order, so an
  unsorted input is sorted here (stable) rather than giving different stops.
- A point without a position stays in the stop when stopped (it cannot have moved away as far as we
  know); without a speed it counts as moving.

Raises ``ValueError`` when the sequences differ in length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Literal

from fleet.settings import StopSettings

StopKind = Literal["park", "idle"]

_EARTH_RADIUS_M = 6_371_008.8
_METRES_PER_DEGREE = _EARTH_RADIUS_M * math.pi / 180


@dataclass(frozen=True, slots=True)
class StopThresholds:
    park_speed_kmh: float = 5.0
    park_min_s: float = 180.0
    idle_min_s: float = 60.0
    radius_m: float = 50.0

    @classmethod
    def from_settings(cls, settings: StopSettings | None = None) -> StopThresholds:
        """Thresholds from ``StopSettings`` (read from the environment now) unless one is given."""
        settings = settings or StopSettings()
        return cls(park_speed_kmh=settings.park_speed_kmh, park_min_s=settings.park_min_s,
                   idle_min_s=settings.idle_min_s, radius_m=settings.radius_m)


@dataclass(frozen=True, slots=True)
class Stop:
    kind: StopKind
    start_ms: int
    end_ms: int
    lng: float | None
    lat: float | None
    ongoing: bool = False

    @property
    def duration_s(self) -> float:
        return (self.end_ms - self.start_ms) / 1000.0

    def to_json(self) -> dict[str, object]:
        """The wire shape of the track reply's ``stops`` (contract B)."""
        return {"kind": self.kind, "start": self.start_ms, "end": self.end_ms,
                "durationS": self.duration_s, "lng": self.lng, "lat": self.lat, "ongoing": self.ongoing}


def detect_stops(
    times_ms: Sequence[int],
    speeds_kmh: Sequence[float | None],
    acc_on: Sequence[bool | None],
    lngs: Sequence[float | None],
    lats: Sequence[float | None],
    *,
    thresholds: StopThresholds | None = None,
) -> list[Stop]:
    """Parks and idles of one track, ordered by start (a park before an idle starting with it)."""
    n = len(times_ms)
    if not (len(speeds_kmh) == len(acc_on) == len(lngs) == len(lats) == n):
        raise ValueError("detect_stops: times, speeds, acc, lngs and lats differ in length")
    if n == 0:
        return []
    th = thresholds or StopThresholds.from_settings()
    # Stable, and linear on a track already in order (timsort), so no check first.
    order = sorted(range(n), key=times_ms.__getitem__)
    last = order[-1]
    track = _Track(times_ms, speeds_kmh, acc_on, lngs, lats)
    found: list[Stop] = []
    for segment in _stop_segments(track, order, th):
        park = track.span("park", segment, last, th.park_min_s)
        if park is not None:
            found.append(park)
        for run in _acc_runs(track, segment):
            idle = track.span("idle", run, last, th.idle_min_s)
            if idle is not None:
                found.append(idle)
    found.sort(key=lambda s: (s.start_ms, s.kind != "park"))
    return found


def stop_segments(
    times_ms: Sequence[int],
    speeds_kmh: Sequence[float | None],
    acc_on: Sequence[bool | None],
    lngs: Sequence[float | None],
    lats: Sequence[float | None],
    *,
    thresholds: StopThresholds | None = None,
) -> list[list[int]]:
    """The runs of point indices (time order) that ``detect_stops`` groups into one stop each, whatever
    their length: a point outside every run is moving and matters to detection only as the first
    point after a run (it ends it). The day summaries (fleet.track_summary) keep exactly what this needs."""
    n = len(times_ms)
    if not (len(speeds_kmh) == len(acc_on) == len(lngs) == len(lats) == n):
        raise ValueError("stop_segments: times, speeds, acc, lngs and lats differ in length")
    order = sorted(range(n), key=times_ms.__getitem__)
    track = _Track(times_ms, speeds_kmh, acc_on, lngs, lats)
    return _stop_segments(track, order, thresholds or StopThresholds.from_settings())


@dataclass(frozen=True, slots=True)
class _Track:
    times: Sequence[int]
    speeds: Sequence[float | None]
    acc: Sequence[bool | None]
    lngs: Sequence[float | None]
    lats: Sequence[float | None]

    def span(self, kind: StopKind, points: list[int], last: int, min_s: float) -> Stop | None:
        """The stop over ``points`` when it lasts at least ``min_s`` (two fixes at least), at the
        median of its positions (robust to a stray fix)."""
        start, end = int(self.times[points[0]]), int(self.times[points[-1]])
        if len(points) < 2 or (end - start) / 1000.0 < min_s:
            return None
        lngs, lats = self.lngs, self.lats
        known = [(lo, la) for lo, la in ((lngs[i], lats[i]) for i in points) if lo is not None and la is not None]
        lng = float(median(p[0] for p in known)) if known else None
        lat = float(median(p[1] for p in known)) if known else None
        return Stop(kind, start, end, lng, lat, ongoing=points[-1] == last)


def _stop_segments(track: _Track, order: list[int], th: StopThresholds) -> list[list[int]]:
    """Runs of points (indices, time order) that belong to one stop, whatever their length.

    The hot loop over a month of fixes (hundreds of thousands), so everything it needs is a local. The
    distance is equirectangular (exact enough for the tens of metres a stop radius spans), compared
    squared in degrees of latitude."""
    speeds, lngs, lats = track.speeds, track.lngs, track.lats
    limit = th.park_speed_kmh
    radius_deg_sq = (th.radius_m / _METRES_PER_DEGREE) ** 2
    segments: list[list[int]] = []
    segment: list[int] = []
    a_lng = a_lat = 0.0
    anchored = False
    cos_lat = 1.0
    for i in order:
        speed = speeds[i]
        stopped = speed is not None and speed < limit
        lng, lat = lngs[i], lats[i]
        known = lng is not None and lat is not None
        if segment:
            if not anchored and stopped and known:
                a_lng, a_lat, anchored = float(lng), float(lat), True  # type: ignore[arg-type]
                cos_lat = math.cos(math.radians(a_lat))
            if known and anchored:
                dx = (lng - a_lng) * cos_lat  # type: ignore[operator]
                dy = lat - a_lat  # type: ignore[operator]
                near = dx * dx + dy * dy <= radius_deg_sq
            else:
                near = False
            if near or (stopped and not (known and anchored)):
                segment.append(i)
                continue
            segments.append(segment)
            segment = []
        if stopped:
            segment = [i]
            anchored = known
            if known:
                a_lng, a_lat = float(lng), float(lat)  # type: ignore[arg-type]
                cos_lat = math.cos(math.radians(a_lat))
    if segment:
        segments.append(segment)
    return segments


def _acc_runs(track: _Track, segment: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    run: list[int] = []
    for i in segment:
        if track.acc[i]:
            run.append(i)
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return runs
