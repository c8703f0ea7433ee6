"""Coercion of request values to a field's type; every failure is a BadRequest naming the field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal

from api.errors import BadRequest

FieldType = Literal["int", "float", "str", "time", "bool"]

# Times without an offset are the console's local time: China Standard Time, as on the wire (JT/T 808).
NAIVE_TIME_ZONE = timezone(timedelta(hours=8))

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", ""}


def parse_flag(name: str, raw: str | None, default: bool = False) -> bool:
    """A boolean query parameter: true/1/yes/on or false/0/no/off/empty."""
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise BadRequest(f"query parameter '{name}' must be true or false, got {raw!r}")


def parse_positive_int(name: str, raw: str | None, default: int) -> int:
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter '{name}' must be an integer, got {raw!r}") from None
    if value < 1:
        raise BadRequest(f"query parameter '{name}' must be at least 1, got {value}")
    return value


def coerce(field: str, ftype: FieldType, value: Any) -> Any:
    """``value`` as the Python type bound for a column of ``ftype``. None passes through."""
    if value is None:
        return None
    try:
        return _COERCERS[ftype](value)
    except (TypeError, ValueError, OverflowError):
        raise BadRequest(f"field '{field}' expects {_DESCRIPTION[ftype]}, got {value!r}") from None


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("fraction")
        value = int(value)
    result = int(value) if isinstance(value, int) else int(str(value).strip())
    if not -(2**63) <= result < 2**63:
        raise OverflowError("bigint")
    return result


def _to_float(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return float(value.strip())
    raise TypeError(type(value).__name__)


def _to_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TypeError(type(value).__name__)


def _to_time(value: Any) -> datetime:
    """ISO 8601 text (naive means UTC+8) or epoch milliseconds."""
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000.0, UTC)
    if not isinstance(value, str):
        raise TypeError(type(value).__name__)
    text = value.strip()
    if text.isdigit():
        return datetime.fromtimestamp(int(text) / 1000.0, UTC)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=NAIVE_TIME_ZONE)


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(value)


_COERCERS = {"int": _to_int, "float": _to_float, "str": _to_str, "time": _to_time, "bool": _to_bool}
_DESCRIPTION = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "time": "a time (ISO 8601, or epoch milliseconds)",
    "bool": "true or false",
}
