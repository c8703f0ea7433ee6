"""The track's alarm SQL (warehouse.queries.track_alarms) is built from the alarm catalogue: every name in
every language is a usable literal, the streams and the track read the same extras keys, and a name
the catalogue gives is the one the SQL carries. (Evaluated over real PostgreSQL in
tests/integration/api/test_track_alarms_api.py.)"""

from __future__ import annotations

import pytest

from fleet.alarm_catalog import ALARMS, SAFETY_ITEMS, describe, level_prefix
from streams.alarms import SAFETY_EXTRAS, VIDEO_FLAGS
from warehouse.queries import track_alarms


@pytest.mark.parametrize("lang", ["zh-CN", "zh-HK", "en-US"])
def test_every_catalogue_name_is_in_the_sql_of_its_language(lang: str) -> None:
    point = track_alarms.point_sql(lang)
    names = track_alarms._alarm_name_sql(lang)
    for key in ALARMS:
        literal = "'" + describe(key, None, lang).replace("'", "''") + "'"
        assert literal in names, key
        if not key.startswith("p_"):  # platform alarms are never on a fix
            assert literal in point, key
    assert f"'{level_prefix(2, lang)}'" in point and point.count("%") == 0


def test_catalogue_text_that_would_break_the_statement_is_refused() -> None:
    for text in ("50% 超速", "{x}"):
        with pytest.raises(ValueError, match="unusable"):
            track_alarms._literal(text)
    assert track_alarms._literal("it's") == "'it''s'"


def test_the_streams_and_the_track_read_the_same_items() -> None:
    assert SAFETY_EXTRAS == SAFETY_ITEMS and VIDEO_FLAGS == "video_alarm_flags"
    assert set(track_alarms.ITEM_KEYS) >= {*SAFETY_ITEMS, VIDEO_FLAGS}


def test_level_prefix_is_what_describe_puts_before_the_name() -> None:
    assert describe("adas_1", 2) == level_prefix(2) + describe("adas_1")
    assert describe("adas_1", 2, "en-US") == "Level 2 Forward collision warning"
    assert level_prefix(7) == "" and level_prefix(None, "en-US") == "" and describe("bsd_1", 1) == "后方接近报警"
