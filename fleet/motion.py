"""The driving / parked rule (platform-spec §4, business state): defined once, for the live states
(``streams/state_rules.py``) and for generated history (``warehouse/history_events.py``).

Once a device is online with a fresh positioned fix: engine off (3) with the ACC off, driving (1) with
the ACC on and faster than the threshold, parked (2) with the ACC on and not faster than that.
"""

from __future__ import annotations

from typing import Final

from fleet.enums import BizState

DRIVING_MIN_SPEED_KMH: Final = 5.0  # GPS drift while standing still reads 1..3 km/h


def motion_state(acc_on: bool, speed_kmh: float, driving_min_speed_kmh: float = DRIVING_MIN_SPEED_KMH) -> BizState:
    """ENGINE_OFF, DRIVING or PARKED of a positioned vehicle, by the rule in the module docstring."""
    if not acc_on:
        return BizState.ENGINE_OFF
    return BizState.DRIVING if speed_kmh > driving_min_speed_kmh else BizState.PARKED
