"""Permission names in the caller's language (api/permission_names.py)."""

from __future__ import annotations

from api.permission_names import ENGLISH, permission_name
from warehouse.seed import PERMISSIONS


def test_every_seeded_permission_has_an_english_name() -> None:
    assert sorted(set(PERMISSIONS) - set(ENGLISH)) == []


def test_names_follow_the_language_and_an_unknown_code_keeps_its_stored_name() -> None:
    assert permission_name("monitor", "实时监控", "en-US") == "Live monitoring"
    assert permission_name("monitor", "实时监控", "zh-HK") == "即時監控"
    assert permission_name("monitor", "实时监控", "zh-CN") == "实时监控"
    assert permission_name("brandNew", "新权限", "en-US") == "新权限"
