"""Push bodies in the subscriber's language (STOMP CONNECT header ``X-Fleet-Language``, as on HTTP).

A console.events.v1 push is encoded once per language, not once per subscriber: ``localised_bodies``
answers {language: body} for the languages whose body differs from the event's own (zh-CN). What changes:
- an alarm push (types 2 and 13): ``data.desc``, the alarm's name (``describe_alarm(key, level, language,
  fenceName)``: a fence alarm also names its fence);
- a bilingual ``data.message`` ("中文 (english)", a command result or a security event) becomes its Chinese
  part (the spec's text, for every subscriber) and gains ``data.localMessage`` in the language, as the error
  envelope does (``api.errors.envelope``).
Anything else (positions, pushes without these fields) is sent as it came. Never raises on odd data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from api.errors import LANGUAGES, chinese_text, localise
from fleet.alarm_catalog import describe_alarm

ALARM_PUSH_TYPES = frozenset({2, 13})


def _localised(push: Mapping[str, Any], language: str) -> dict[str, Any] | None:
    data = push.get("data")
    if not isinstance(data, Mapping):
        return None
    changed = dict(data)
    if push.get("type") in ALARM_PUSH_TYPES and isinstance(data.get("key"), str):
        level = data.get("level")
        fence_name = data.get("fenceName")
        changed["desc"] = describe_alarm(data["key"], level if isinstance(level, int) else None, language,
                                         fence_name if isinstance(fence_name, str) else None)
    message = data.get("message")
    if isinstance(message, str) and chinese_text(message) != message:
        changed["message"] = chinese_text(message)
        changed["localMessage"] = localise(message, language)
    return {**push, "data": changed} if changed != data else None


def localised_bodies(push: Mapping[str, Any], encode: Any = None) -> dict[str, bytes]:
    """{language: JSON body} of the languages for which ``push`` reads differently."""
    dump = encode or (lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    out: dict[str, bytes] = {}
    for language in LANGUAGES:
        changed = _localised(push, language)
        if changed is not None:
            out[language] = dump(changed)
    return out
