"""Dictionary labels in the caller's language (api/dictionary_names.py)."""

from __future__ import annotations

import json

from api.dictionary_names import ENGLISH, content_text, entry_name, name_expression, seeded_names


def test_every_seeded_system_entry_has_an_english_name() -> None:
    assert set(seeded_names()) == set(ENGLISH)


def test_an_edited_system_name_is_not_replaced_by_the_seeded_translation() -> None:
    assert entry_name(98, "car_alarm_desc", 1, "报警位描述", "en-US") == "Alarm bit descriptions"
    assert entry_name(98, "car_alarm_desc", 1, "我的报警位", "en-US") == "我的报警位"
    assert entry_name(98, "car_alarm_desc", 0, "报警位描述", "en-US") == "报警位描述"  # an enterprise's own entry
    assert entry_name(98, "car_alarm_desc", 1, "报警位描述", "zh-CN") == "报警位描述"


def test_content_that_is_no_list_of_names_is_left_as_it_is() -> None:
    for content in ("not json", '{"name": "报警"}', "[1, 2]", "", None):
        assert content_text(content, "en-US") == content
    assert json.loads(content_text('[{"name": "报警", "nameEn": "Alarm"}, "x"]', "en-US")) == [
        {"name": "Alarm", "nameEn": "Alarm"}, "x"]


def test_the_list_expression_names_each_seeded_entry_once() -> None:
    expression = name_expression("en-US")
    assert expression.count("WHEN") == len(ENGLISH) and "'Map configuration'" in expression
    assert name_expression("zh-CN") == "name"
