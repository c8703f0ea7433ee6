"""Thinning of a long track to what a screen can draw (contract B). Pure.

``thin_track(times_ms, lngs, lats, max_points, keep=...)`` answers the indices of the points to draw,
in time order. Method: **time buckets with one deviation point each**. The range between the first
and last point is cut into equal time buckets; each keeps its first point and the point farthest from
the chord between that first point and the next bucket's first point (one level of Douglas-Peucker
per bucket, so corners survive). Why not full Douglas-Peucker: it is O(n log n) with a Python inner
loop (seconds for a month of 10 s fixes) and gives a replay no time regularity (hours of straight
motorway collapse to two points, so the speed chart and the replay clock lose their samples); buckets
are one O(n) pass and keep samples spread evenly in time, which is what a replay plays.

Points in ``keep`` (alarm points, stop boundaries) are always kept, on top of the budget. The first and
last points are always kept. Without ``keep`` the answer never has more than ``max_points`` points
(``max_points`` >= 2); ``max_points`` 0 means every point.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def thin_track(
    times_ms: Sequence[int],
    lngs: Sequence[float],
    lats: Sequence[float],
    max_points: int,
    keep: Collection[int] = (),
) -> list[int]:
    """Indices (ascending) of the points to keep; see the module docstring.

    ``times_ms`` must be ascending (the track's order). Raises ValueError when the sequences differ in
    length or ``max_points`` is 1 or negative.
    """
    n = len(times_ms)
    if len(lngs) != n or len(lats) != n:
        raise ValueError("thin_track: times, lngs and lats differ in length")
    if max_points < 0 or max_points == 1:
        raise ValueError("thin_track: max_points is 0 (every point) or at least 2")
    if max_points == 0 or n <= max_points:
        return list(range(n))
    chosen = set(keep)
    chosen.update((0, n - 1))
    buckets = (max_points - 2) // 2
    if buckets > 0:
        chosen.update(_bucket_points(times_ms, lngs, lats, buckets))
    return sorted(i for i in chosen if 0 <= i < n)


def _bucket_points(times_ms: Sequence[int], lngs: Sequence[float], lats: Sequence[float], buckets: int) -> list[int]:
    """First point and farthest-from-chord point of each of ``buckets`` equal time slices (interior)."""
    n = len(times_ms)
    first_t = times_ms[0]
    span = max(1, times_ms[-1] - first_t + 1)
    starts: list[int] = []  # index of the first point of each non-empty bucket
    previous = -1
    for i in range(1, n - 1):
        bucket = (times_ms[i] - first_t) * buckets // span
        if bucket != previous:
            starts.append(i)
            previous = bucket
    starts.append(n - 1)
    picked: list[int] = []
    for k in range(len(starts) - 1):
        a, b = starts[k], starts[k + 1]
        picked.append(a)
        if b - a > 1:
            picked.append(_farthest(lngs, lats, a, b))
    return picked


def _farthest(lngs: Sequence[float], lats: Sequence[float], a: int, b: int) -> int:
    """Index in (a, b) farthest from the line a-b (the squared cross product orders it; degrees suffice)."""
    ax, ay = lngs[a], lats[a]
    dx, dy = lngs[b] - ax, lats[b] - ay
    if dx == 0 and dy == 0:  # a loop back to the start: the farthest point from it
        return max(range(a + 1, b), key=lambda i: abs(lngs[i] - ax) + abs(lats[i] - ay))
    return max(range(a + 1, b), key=lambda i: abs(dx * (lats[i] - ay) - dy * (lngs[i] - ax)))
