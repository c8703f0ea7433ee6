"""Which 0x0200 bit confirming an alarm sends in 0x8203 (platform-spec §9; console-spec §7: "if the alarm
key requires it"): the alarm's own bit when its key is a confirmable terminal bit, never a bit that
another alarm raised in the same report."""

from __future__ import annotations

import pytest

from api.routes.alarms import confirm_mask

EMERGENCY, OVERSPEED, DANGER = 1 << 0, 1 << 1, 1 << 3


@pytest.mark.parametrize(("key", "kind", "flags", "mask"), [
    ("a0", 1, EMERGENCY, EMERGENCY),
    ("a0", 1, EMERGENCY | DANGER | OVERSPEED, EMERGENCY),  # the danger warning is its own alarm a3
    ("a3", 1, EMERGENCY | DANGER, DANGER),
    ("a31", 1, 1 << 31, 1 << 31),
    ("a1", 1, EMERGENCY | OVERSPEED, 0),  # overspeed is not confirmable, whatever else is held
    ("dsm_1", 6, EMERGENCY, 0),  # raised while the emergency button is held: not the button's alarm
    ("adas_1", 5, EMERGENCY | DANGER, 0),
    ("p_overspeed", 3, EMERGENCY, 0),
    ("v0", 2, EMERGENCY, 0),
    ("a99", 1, EMERGENCY, 0),  # not a key of the catalogue
])
def test_confirm_names_only_the_alarms_own_confirmable_bit(key: str, kind: int, flags: int, mask: int) -> None:
    assert confirm_mask({"key": key, "type": kind, "alarm_flags": flags}) == mask
