"""The device reports' counter columns are named by the alarm keys themselves: the console asks for them by
the keys of its alarm-name enum (alarmSettings:enums.alarmKey, fence rule keys aside), so a key the API
renamed (``gbf_battery`` as ``gbfBattery``) would make the alarm overview answer 400 for every row."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from api.query.entities_reports import DEVICE_DAY_REPORT, DEVICE_MONTH_REPORT, DEVICE_YEAR_REPORT
from api.query.grammar import EntitySpec
from fleet.alarm_catalog import ALARMS

LOCALES = Path(__file__).resolve().parents[3] / "dashboards" / "src" / "locales"


@pytest.mark.parametrize("entity", [DEVICE_DAY_REPORT, DEVICE_MONTH_REPORT, DEVICE_YEAR_REPORT], ids=lambda e: e.name)
def test_every_alarm_key_is_a_counter_field_of_its_own_name(entity: EntitySpec) -> None:
    missing = [key for key in ALARMS if key not in entity.fields]
    assert not missing, missing
    assert all(entity.fields[key].column == key for key in ALARMS)


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK", "en-US"])
def test_the_console_s_alarm_keys_are_the_report_counters(language: str) -> None:
    names = json.loads((LOCALES / language / "alarmSettings.json").read_text("utf-8"))["enums"]["alarmKey"]
    counted = [key for key in names if not re.fullmatch(r"t?fence_[a-z_]+", key)]  # alarmKeys.ts isFenceRuleKey
    assert sorted(counted) == sorted(ALARMS)
