"""How a field's value is shown: one definition per field (``FieldSpec.display`` and ``choices``) that the
console's tables read from the entity's meta (dashboards/src/features/list/display.ts implements the same
names) and the spreadsheet export applies, so a report's export reads as its screen does:

- ``day``: a report day ``20261130`` as ``2026-11-30``; ``month``: ``202611`` as ``2026-11``;
- ``duration``: seconds as ``h:mm:ss`` (hours past 24 in range sums), rounded to the second;
- ``decimal``: kilometres, speeds and averages rounded half up to 2 decimals (``316.6000000000058`` -> 316.6);
- ``percent``: a ratio (0..1) as ``12.34%``, ``-`` when there is none;
- ``flag``: a yes/no value as ``✓`` / ``✗``;
- ``choices``: a code (``1``, ``2``) as its label (``仪表``, ``GPS``); an unknown code stays as it is.

An empty value is an empty cell whatever the display. Pure; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

DISPLAYS = frozenset({"day", "month", "duration", "decimal", "percent", "flag"})


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        n = float(value)
    except (TypeError, ValueError):
        return None
    return n if math.isfinite(n) else None


def day_text(value: Any) -> Any:
    n = _number(value)
    if n is None or not n.is_integer() or n < 10000101:
        return value
    k = int(n)
    return f"{k // 10000}-{k // 100 % 100:02d}-{k % 100:02d}"


def month_text(value: Any) -> Any:
    n = _number(value)
    if n is None or not n.is_integer() or n < 100001:
        return value
    k = int(n)
    return f"{k // 100}-{k % 100:02d}"


def clock(value: Any) -> Any:
    n = _number(value)
    if n is None:
        return value
    total = max(0, math.floor(n + 0.5))
    return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"


def decimal2(value: Any) -> Any:
    n = _number(value)
    if n is None:
        return value
    rounded = math.floor(n * 100 + 0.5) / 100  # half up, as the console's Math.round
    return int(rounded) if rounded.is_integer() else rounded


def percent(value: Any) -> Any:
    n = _number(value)
    return "-" if n is None else f"{n * 100:.2f}%"


def shown(display: str, choices: Sequence[tuple[Any, str]], value: Any) -> Any:
    """``value`` as the field's display shows it (the value unchanged without a display)."""
    if choices and value is not None:
        return next((label for code, label in choices if str(code) == str(value)), value)
    if display == "percent":
        return percent(value)
    if value is None or value == "":
        return value
    if isinstance(value, Decimal):
        value = float(value)
    if display == "day":
        return day_text(value)
    if display == "month":
        return month_text(value)
    if display == "duration":
        return clock(value)
    if display == "decimal":
        return decimal2(value)
    if display == "flag":
        return "✓" if value else "✗"
    return value
