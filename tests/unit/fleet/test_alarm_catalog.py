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


def test_a_fence_alarm_key_resolves_to_the_rule_of_its_kind_and_any_other_key_to_itself() -> None:
    from fleet.alarm_catalog import rule_key

    assert rule_key("fence:12:enter") == "fence_enter"
    assert rule_key("fence:7:segment_long:2") == "fence_segment_long"  # a route's segment: the kind's rule
    assert rule_key("fence:7:night_overspeed") == "fence_night_overspeed"
    assert rule_key("tfence:12:leave") == "tfence_leave"  # the terminal's own item has rules of its own
    assert rule_key("tfence:3:segment_short") == "tfence_segment_short"
    for key in ("a0", "adas_1", "p_overspeed", "fence_enter", "fence:x:enter", "fence:1:fly", "nonsense", ""):
        assert rule_key(key) == key


def test_every_fence_alarm_kind_has_one_rule_key_named_in_three_languages() -> None:
    from fleet.alarm_catalog import (
        ALARMS,
        FENCE_KINDS,
        FENCE_RULES,
        RULE_KEYS,
        TERMINAL_FENCE_KINDS,
        rule_key,
    )

    assert {k for k in FENCE_RULES if k.startswith("fence_")} == {f"fence_{kind}" for kind in FENCE_KINDS}
    assert {k for k in FENCE_RULES if k.startswith("tfence_")} == {f"tfence_{kind}" for kind in TERMINAL_FENCE_KINDS}
    assert set(TERMINAL_FENCE_KINDS) <= set(FENCE_KINDS)
    assert RULE_KEYS == (*ALARMS, *FENCE_RULES) and not set(FENCE_RULES) & set(ALARMS)
    assert all(":" not in key and "." not in key for key in FENCE_RULES)  # the console's i18n separators
    for key, (prefix, kind) in FENCE_RULES.items():
        assert rule_key(f"{prefix}:42:{kind}") == key
    assert [describe("fence_enter", None, lang) for lang in ("zh-CN", "zh-HK", "en-US")] == [
        "进区域报警", "進區域報警", "Entering area"]
    assert describe("tfence_segment_long", None, "en") == "Road section time too long (terminal)"


def test_the_consoles_settings_screens_name_every_fence_rule_key_as_the_catalogue_does() -> None:
    """The alarm settings screens list the keys of ``alarmSettings:enums.alarmKey``: every fence kind's rule
    key is there, named as ``describe`` names it, in the three languages."""
    import json
    from pathlib import Path

    from fleet.alarm_catalog import FENCE_RULES

    locales = Path(__file__).resolve().parents[3] / "dashboards" / "src" / "locales"
    for lang in ("zh-CN", "zh-HK", "en-US"):
        names = json.loads((locales / lang / "alarmSettings.json").read_text(encoding="utf-8"))["enums"]["alarmKey"]
        assert {key: names.get(key) for key in FENCE_RULES} == {key: describe(key, None, lang) for key in FENCE_RULES}
