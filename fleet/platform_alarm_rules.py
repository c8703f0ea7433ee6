"""Platform alarm rules: the one place their defaults live.

An enterprise without a live ``platform_alarm_rule`` row (migration 0019) is evaluated with
``DEFAULT_RULES``; its most recently updated live row overrides them. The API fills omitted fields of a new rule from
here too (api/query/entities_alarm_settings.py), and the stream step (streams/platform_alarms.py)
reads rules through ``rules_from_row``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class PlatformRules:
    overspeed_enabled: bool = True
    overspeed_limit_kmh: int = 100  # above this speed ...
    overspeed_duration_s: int = 10  # ... for at least this long: p_overspeed
    fatigue_enabled: bool = True
    fatigue_driving_s: int = 4 * 3600  # continuous driving longer than this: p_fatigue
    fatigue_rest_s: int = 20 * 60  # a stop at least this long resets continuous driving
    parking_enabled: bool = True
    parking_timeout_s: int = 30 * 60  # standing with ACC on longer than this: p_parking
    night_enabled: bool = False
    night_start_hour: int = 2  # driving inside [start, end) o'clock, terminal local time: p_night
    night_end_hour: int = 5


DEFAULT_RULES = PlatformRules()
RULE_COLUMNS = tuple(f.name for f in fields(PlatformRules))


def rules_from_row(row: Mapping[str, Any] | None) -> PlatformRules:
    """The rules of a ``platform_alarm_rule`` row (None: the defaults); null columns keep defaults."""
    if row is None:
        return DEFAULT_RULES
    return replace(DEFAULT_RULES, **{k: row[k] for k in RULE_COLUMNS if row.get(k) is not None})

