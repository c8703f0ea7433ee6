"""Dictionary labels in the caller's language (``X-Fleet-Language``, as alarm and permission names).

The ``dictionary`` table keeps each entry's zh-CN name, and the seeded system entries' contents are lists
of ``{..., name, nameEn[, nameHk]}`` (``warehouse/seed_dictionaries.py``). Read in another language:
- an entry's ``name``: a seeded system entry whose name is still the seeded one reads ``ENGLISH`` in
  en-US and its Hong Kong form (``fleet.zh_hk``) in zh-HK; a name an administrator wrote stays as written
  in en-US (there is no translation of it) and is converted in zh-HK;
- its ``content`` (the look-up only): every object of a top-level list that has a ``name`` gets that
  name in the language (``nameEn`` / ``nameHk``, else the converted name); the other keys stay.
zh-CN reads everything as stored. Content that is no JSON, or has another shape, is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from fleet.zh_hk import to_hk
from warehouse.seed_dictionaries import system_entries

# (type, code) of a seeded entry -> its English name.
ENGLISH = MappingProxyType({
    (98, "car_alarm_desc"): "Alarm bit descriptions",
    (98, "device_message_desc"): "Terminal message descriptions",
    (98, "exchange_message_desc"): "Exchange message descriptions",
    (98, "ol_map_config"): "Map configuration",
    (98, "driving_behavior_grade"): "Driving behaviour grades",
    (98, "alarm_notify_rule"): "Alarm notification rule",
    (99, "protocol.jt808_2013"): "JT/T 808-2013",
    (99, "protocol.jt808_2019"): "JT/T 808-2019",
    (99, "protocol.jt1078"): "JT/T 1078-2016 video",
    (99, "ftp.default"): "Default FTP server",
    (99, "media.default"): "Default media gateway",
    (99, "attachment.default"): "Default attachment gateway",
})


@cache
def seeded_names() -> Mapping[tuple[int, str], str]:
    """(type, code) -> the zh-CN name the seed gives a system entry."""
    return MappingProxyType({(type_id, code): name for type_id, code, name, _ in system_entries()})


def entry_name(type_id: Any, code: Any, system: Any, stored: Any, language: str) -> Any:
    """The name of a dictionary entry (``stored``: its name in the table) in ``language``."""
    if language == "zh-CN" or not isinstance(stored, str):
        return stored
    key = (type_id, code)
    seeded = system == 1 and seeded_names().get(key) == stored
    if language == "en-US":
        return ENGLISH.get(key, stored) if seeded else stored
    return to_hk(stored)


def _item_name(item: Mapping[str, Any], language: str) -> str:
    own = item.get("nameEn" if language == "en-US" else "nameHk")
    if isinstance(own, str) and own:
        return own
    name = str(item["name"])
    return to_hk(name) if language == "zh-HK" else name


def content_text(content: Any, language: str) -> Any:
    """A dictionary entry's JSON ``content`` with its list items' names in ``language``."""
    if language == "zh-CN" or not isinstance(content, str):
        return content
    try:
        value = json.loads(content)
    except ValueError:
        return content
    if not isinstance(value, list) or not any(isinstance(i, dict) and isinstance(i.get("name"), str) for i in value):
        return content
    items = [{**i, "name": _item_name(i, language)} if isinstance(i, dict) and isinstance(i.get("name"), str)
             else i for i in value]
    return json.dumps(items, ensure_ascii=False)


def localise_entry(entry: Mapping[str, Any], language: str) -> dict[str, Any]:
    """A look-up row (``warehouse.queries.dictionary.lookup``) read in ``language``."""
    out = dict(entry)
    if language == "zh-CN":
        return out
    out["name"] = entry_name(entry.get("type"), entry.get("code"), entry.get("system"), entry.get("name"), language)
    out["content"] = content_text(entry.get("content"), language)
    return out


def _literal(text: str) -> str:
    """A SQL string literal of text written in code or the seed (never request input)."""
    return "'" + text.replace("'", "''") + "'"


@cache
def name_expression(language: str) -> str:
    """SQL of a dictionary row's name in ``language`` (the list screen's column): the seeded names as
    ``entry_name`` reads them, any other name as stored."""
    if language == "zh-CN":
        return "name"
    cases = " ".join(
        f"WHEN system = 1 AND type = {int(type_id)} AND code = {_literal(code)} AND name = {_literal(zh)}"
        f" THEN {_literal(entry_name(type_id, code, 1, zh, language))}"
        for (type_id, code), zh in seeded_names().items()
    )
    expression = f"CASE {cases} ELSE name END"
    assert "%" not in expression and "{" not in expression  # psycopg placeholders
    return expression
