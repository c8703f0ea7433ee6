"""Today's mileage rule of the fleet figures (warehouse/queries/fleet_figures.py), on tiny chains."""

from __future__ import annotations

import pytest

from warehouse.queries.fleet_figures import _Chain, _fold, great_circle_km, segment_km

V_MAX = 160.0
KM_PER_DEG_LNG = great_circle_km(116.0, 39.9, 117.0, 39.9)


def test_a_sane_odometer_delta_counts() -> None:
    assert segment_km(0.7, 60.0, 0.0, V_MAX) == pytest.approx(0.7)


def test_a_reset_counts_nothing_and_a_jump_counts_its_plausible_distance() -> None:
    assert segment_km(-5000.0, 60.0, 0.7, V_MAX) == 0.0
    assert segment_km(8000.0, 60.0, 0.7, V_MAX) == pytest.approx(0.7)  # the distance driven, not the jump
    assert segment_km(8000.0, 60.0, 900.0, V_MAX) == 0.0  # a position jump too: nothing
    assert segment_km(None, 60.0, 0.7, V_MAX) == pytest.approx(0.7)  # no odometer: the distance


def test_folding_in_parts_gives_the_whole_and_skips_late_fixes() -> None:
    step = 40.0 / 60  # 40 km/h, a fix a minute
    rows = [(1, 60.0 * i, 50_000 + i * step + (8000 if i >= 5 else 0), 116.3 + i * step / KM_PER_DEG_LNG, 39.9)
            for i in range(10)]
    whole: dict[int, _Chain] = {}
    _fold(whole, rows, V_MAX)
    parts: dict[int, _Chain] = {}
    _fold(parts, rows[:4], V_MAX)
    _fold(parts, rows[2:], V_MAX)  # the overlap is skipped
    _fold(parts, [rows[3]], V_MAX)  # a late fix is skipped
    assert whole[1].km == pytest.approx(9 * step, abs=0.01)
    assert parts[1].km == pytest.approx(whole[1].km)
