"""The GB/T 32960 / GB 17691 command catalogue: one entry per command a family has, ids taken from
the body classes, and names per family (0x05 is platform login in 32960, time calibration in 17691)."""

from __future__ import annotations

from protocols.gb32960 import catalogue
from protocols.gb32960.codec import registered


def test_every_typed_command_of_a_family_is_in_its_catalogue() -> None:
    for family in ("gb32960", "gb17691"):
        assert set(registered(family)) <= set(catalogue.BY_FAMILY[family])


def test_the_same_id_is_named_by_its_family() -> None:
    assert catalogue.name_of("gb32960", 0x05) == "平台登入"
    assert catalogue.name_of("gb17691", 0x05) == "终端校时"
    assert catalogue.name_of("gb32960", 0xC3) == "0xC3"


def test_terminal_commands_go_up_and_platform_commands_down() -> None:
    directions = {c.command: c.uplink for c in catalogue.GB32960_COMMANDS}
    assert directions[catalogue.REALTIME] and directions[catalogue.HEARTBEAT]
    assert not directions[catalogue.PARAMETER_QUERY] and not directions[catalogue.TERMINAL_CONTROL]
