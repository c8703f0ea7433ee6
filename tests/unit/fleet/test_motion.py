"""The driving / parked rule is defined once (fleet/motion.py) and both its users follow it."""

from __future__ import annotations

import pytest

from fleet.enums import BizState
from fleet.motion import DRIVING_MIN_SPEED_KMH, motion_state
from streams.state_rules import Rules, derive_biz_state
from warehouse.history_events import ACC_ON, biz_state


@pytest.mark.parametrize(("acc_on", "speed_kmh", "expected"), [
    (False, 60.0, BizState.ENGINE_OFF),
    (True, 0.0, BizState.PARKED),
    (True, 5.0, BizState.PARKED),  # GPS drift while standing still: not driving
    (True, 5.1, BizState.DRIVING),
    (True, 80.0, BizState.DRIVING),
])
def test_driving_means_acc_on_and_faster_than_5_kmh(acc_on: bool, speed_kmh: float, expected: BizState) -> None:
    assert DRIVING_MIN_SPEED_KMH == 5.0
    assert motion_state(acc_on, speed_kmh) is expected


@pytest.mark.parametrize("acc_on", [False, True])
@pytest.mark.parametrize("speed_kmh", [0.0, 3.0, 5.0, 5.01, 120.0])
def test_live_states_and_generated_history_follow_the_one_rule(acc_on: bool, speed_kmh: float) -> None:
    rule = motion_state(acc_on, speed_kmh)
    live = derive_biz_state(online=True, positioned=True, fresh=True, acc_on=acc_on, speed_kmh=speed_kmh,
                            rules=Rules())
    history = biz_state(ACC_ON if acc_on else 0, speed_kmh)
    assert live is rule and history == int(rule)


def test_a_configured_threshold_moves_the_line() -> None:
    assert motion_state(True, 8.0, driving_min_speed_kmh=10.0) is BizState.PARKED
    assert derive_biz_state(online=True, positioned=True, fresh=True, acc_on=True, speed_kmh=12.0,
                            rules=Rules(driving_min_speed_kmh=10.0)) is BizState.DRIVING
