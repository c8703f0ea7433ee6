"""Thinning of long tracks (fleet.thinning): budget, forced points, shape."""

from __future__ import annotations

import math

import pytest

from fleet.thinning import thin_track


def _square_track(points_per_side: int) -> tuple[list[int], list[float], list[float]]:
    """A 1 km-ish square driven at 10 s per point: corners at indices k * points_per_side."""
    xs: list[float] = []
    ys: list[float] = []
    corners = [(0.0, 0.0), (0.01, 0.0), (0.01, 0.01), (0.0, 0.01), (0.0, 0.0)]
    for (ax, ay), (bx, by) in zip(corners, corners[1:], strict=False):
        for k in range(points_per_side):
            f = k / points_per_side
            xs.append(116.0 + ax + (bx - ax) * f)
            ys.append(39.0 + ay + (by - ay) * f)
    xs.append(116.0)
    ys.append(39.0)
    times = [1_700_000_000_000 + 10_000 * i for i in range(len(xs))]
    return times, xs, ys


def _distance_to_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    if dx == dy == 0:
        return math.hypot(px - ax, py - ay)
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def test_keeps_every_point_when_under_the_budget_or_max_points_is_zero() -> None:
    times, xs, ys = _square_track(10)
    assert thin_track(times, xs, ys, 0) == list(range(len(times)))
    assert thin_track(times, xs, ys, 1000) == list(range(len(times)))


def test_never_returns_more_than_max_points_without_forced_points() -> None:
    times, xs, ys = _square_track(5000)
    for budget in (2, 3, 10, 101, 2000):
        kept = thin_track(times, xs, ys, budget)
        assert len(kept) <= budget
        assert kept == sorted(set(kept))
        assert kept[0] == 0 and kept[-1] == len(times) - 1


def test_alarm_and_stop_points_survive_on_top_of_the_budget() -> None:
    times, xs, ys = _square_track(5000)
    forced = {7, 12_345, 12_346, 19_999}  # an alarm point, a stop's first and last point, ...
    kept = thin_track(times, xs, ys, 200, keep=forced)
    assert forced <= set(kept)
    assert len(kept) <= 200 + len(forced)


def test_shape_is_preserved_corners_kept_and_no_point_far_from_the_thinned_line() -> None:
    times, xs, ys = _square_track(5000)
    kept = thin_track(times, xs, ys, 400)
    for corner in (5000, 10_000, 15_000):  # a corner may be off by the one sample it falls between
        assert any(abs(i - corner) <= 1 for i in kept), corner
    worst = 0.0
    for a, b in zip(kept, kept[1:], strict=False):
        for i in range(a + 1, b):
            worst = max(worst, _distance_to_segment(xs[i], ys[i], xs[a], ys[a], xs[b], ys[b]))
    assert worst < 0.0001  # about 10 m on a 1 km square


def test_rejects_sequences_of_different_length_and_a_budget_of_one() -> None:
    with pytest.raises(ValueError):
        thin_track([1, 2], [1.0], [1.0, 2.0], 10)
    with pytest.raises(ValueError):
        thin_track([1, 2, 3], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 1)
