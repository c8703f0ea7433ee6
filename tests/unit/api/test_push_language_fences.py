"""A fence alarm push reads in the subscriber's language with its fence's name (api/push_language.py)."""

from __future__ import annotations

import json

from api.push_language import localised_bodies


def test_a_fence_alarm_push_names_its_kind_in_the_language_and_keeps_the_fence_name() -> None:
    push = {"type": 2, "data": {"key": "fence:12:enter", "level": None, "fenceName": "东区车场",
                                "desc": "进区域报警 (东区车场)"}}
    bodies = {lang: json.loads(body)["data"]["desc"] for lang, body in localised_bodies(push).items()}
    assert bodies == {"zh-HK": "進區域報警 (东区车场)", "en-US": "Entering area (东区车场)"}
