"""The alarm catalogue names every alarm key the codec, the stream and the console use, in three languages."""

from __future__ import annotations

from fleet.alarm_catalog import (
    ALARMS,
    CONFIRMABLE_BITS,
    AlarmKind,
    alarm_def,
    bits_of,
    describe,
    terminal_bit_names,
)


def test_every_0200_bit_and_video_bit_has_a_held_entry_with_three_names() -> None:
    for prefix, kind in (("a", AlarmKind.TERMINAL), ("v", AlarmKind.VIDEO)):
        for bit in range(32):
            found = alarm_def(f"{prefix}{bit}")
            assert found is not None and found.kind == kind and found.held
            assert found.zh and found.en and found.hk
    assert [bit for bit, *_ in terminal_bit_names()] == list(range(32))


def test_only_the_spec_bits_are_confirmable() -> None:
    assert CONFIRMABLE_BITS == {0, 3, 20, 21, 22, 27, 28, 31}
    confirmable = {d.key for d in ALARMS.values() if d.confirmable}
    assert confirmable == {f"a{bit}" for bit in CONFIRMABLE_BITS}


def test_active_safety_types_are_instantaneous_and_named() -> None:
    expected = {
        AlarmKind.ADAS: {1, 2, 3, 4, 5, 6, 7, 16, 17},
        AlarmKind.DSM: {1, 2, 3, 4, 5, 16, 17},
        AlarmKind.TPMS: set(range(8)),
        AlarmKind.BSD: {1, 2, 3},
    }
    for kind, types in expected.items():
        keys = {d.key for d in ALARMS.values() if d.kind == kind}
        assert keys == {f"{kind.name.lower()}_{t}" for t in types}
        assert not any(ALARMS[k].held for k in keys)
    assert alarm_def("adas_1").en == "Forward collision warning"  # type: ignore[union-attr]
    assert alarm_def("dsm_2").zh == "接打电话报警"  # type: ignore[union-attr]


def test_platform_keys_are_held_platform_alarms() -> None:
    for key in ("p_overspeed", "p_fatigue", "p_parking", "p_night"):
        found = alarm_def(key)
        assert found is not None and found.kind == AlarmKind.PLATFORM and found.held


def test_describe_prefixes_the_level_for_adas_and_dsm_in_each_language() -> None:
    assert describe("adas_1", level=1) == "一级 前向碰撞报警"
    assert describe("dsm_1", level=2, lang="hk") == "二級 疲勞駕駛報警"
    assert describe("adas_2", level=1, lang="en-US") == "Level 1 Lane departure warning"
    assert describe("a0", level=1) == "紧急报警"  # terminal bits have no level
    assert describe("a0", lang="zh-HK") == "緊急報警"


def test_describe_returns_an_unknown_key_as_is() -> None:
    assert alarm_def("adas_99") is None
    assert describe("adas_99", level=1) == "adas_99"


def test_bits_of_lists_set_bits_lowest_first() -> None:
    assert bits_of(0) == []
    assert bits_of(0b1011) == [0, 1, 3]
    assert bits_of(0x8000_0001) == [0, 31]


def test_fence_keys_are_named_by_their_kind_in_three_languages_and_with_their_fence() -> None:
    from fleet.alarm_catalog import describe, describe_alarm, fence_kind

    assert fence_kind("fence:12:segment_long:2") == ("fence", 12, "segment_long")
    assert fence_kind("fence:x:enter") is None and fence_kind("fence:1:fly") is None
    assert [describe("fence:12:enter", None, lang) for lang in ("zh-CN", "zh-HK", "en-US")] == [
        "进区域报警", "進區域報警", "Entering area"]
    assert describe("tfence:5:leave", None, "en") == "Leaving area (terminal)"
    assert describe("tfence:5:leave") == "出区域报警(终端)"
    assert describe_alarm("fence:12:deviation", None, "en", "Route 3") == "Route deviation (Route 3)"
    assert describe_alarm("a0", None, "zh", "ignored") == "紧急报警"
