"""Coercion of request values to a field's type; every failure is a BadRequest naming the field."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from api.errors import BadRequest
from protocols.china_time import CHINA_TZ

# "json": a structured value (an object or a list: a fence's geometry) written and read whole, never filtered.
FieldType = Literal["int", "float", "str", "time", "bool", "json"]

# Times without an offset are the console's local time: China Standard Time, as on the wire (JT/T 808).
NAIVE_TIME_ZONE = CHINA_TZ

# Exactly what api/openapi.yaml documents: anything else is a 400 (a contract the fuzzer checks).
_TRUE = {"true", "1"}
_FALSE = {"false", "0"}
MAX_ID = 2**63 - 1  # bigint
MAX_PAGE_NO = 2**31 - 1  # OFFSET = (pageNo - 1) * pageSize stays far inside bigint
MAX_TEXT_CHARS = 1000  # one filter value
MIN_EPOCH_MS = -62135596800000  # 0001-01-01T00:00:00Z
MAX_EPOCH_MS = 253402300799999  # 9999-12-31T23:59:59.999Z
INT_TEXT = re.compile(r"-?[0-9]{1,18}")  # always inside bigint
FLOAT_TEXT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")
_DIGITS = re.compile(r"[0-9]{1,20}")


def parse_flag(name: str, raw: str | None, default: bool = False) -> bool:
    """A boolean query parameter: ``true`` or ``1``, ``false`` or ``0``."""
    if raw is None:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise BadRequest(f"参数不合法 (query parameter '{name}' must be true, false, 1 or 0, got {raw[:40]!r})")


def subtree_requested(raw: str | None) -> bool:
    """The ``isParent`` query parameter: whether a request reads or acts on its enterprise's whole subtree.

    The one tenant rule of the API: a parent acts on its subtree (its subsidiaries' vehicles, alarms,
    logs, commands) unless the request says ``isParent=false``, as a screen that wants only its own
    enterprise does. platform-spec §6 scopes to the own enterprise unless isParent is set, so a
    group's administrator saw nothing of its subsidiaries on every call that forgot the flag; the
    default is the subtree instead, and the spec's ``isParent`` / ``isParent=true`` / bare
    ``[&isParent]`` keep their meaning. The subtree is the caller's (or the named enterprise's, itself
    inside the caller's): never a parent's nor a sibling's. Raises BadRequest for any other value."""
    if raw == "":
        return True
    return parse_flag("isParent", raw, default=True)


def parse_positive_int(name: str, raw: str | None, default: int, maximum: int = MAX_PAGE_NO) -> int:
    """A positive integer query parameter of ASCII digits; above ``maximum`` is a 400 too."""
    if raw is None:
        return default
    if not _DIGITS.fullmatch(raw):
        raise BadRequest(f"参数不合法 (query parameter '{name}' must be an integer, got {raw[:40]!r})")
    value = int(raw)
    if value < 1:
        raise BadRequest(f"参数不合法 (query parameter '{name}' must be at least 1, got {value})")
    if value > maximum:
        raise BadRequest(f"参数不合法 (query parameter '{name}' must be at most {maximum}, got {value})")
    return value


def coerce(field: str, ftype: FieldType, value: Any) -> Any:
    """``value`` as the Python type bound for a column of ``ftype``. None passes through.

    Only values the column can hold pass: integers inside bigint, finite numbers, text of at
    most MAX_TEXT_CHARS, times between the years 1 and 9999. Anything else is a BadRequest naming
    ``field``, so no value can make PostgreSQL (or Python's datetime) fail with a 500.
    """
    if value is None:
        return None
    try:
        return _COERCERS[ftype](value)
    except (TypeError, ValueError, OverflowError, OSError):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:60] + "..."
        raise BadRequest(f"参数类型不符 (field '{field}' expects {_DESCRIPTION[ftype]}, got {shown})") from None


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("fraction")
        value = int(value)
    if isinstance(value, str):
        if not INT_TEXT.fullmatch(value):
            raise ValueError(value)
        value = int(value)
    if not isinstance(value, int):
        raise TypeError(type(value).__name__)
    if not -(2**63) <= value < 2**63:
        raise OverflowError("bigint")
    return value


def _to_float(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str) and FLOAT_TEXT.fullmatch(value):
        result = float(value)
    else:
        raise TypeError(type(value).__name__)
    if not math.isfinite(result):
        raise ValueError("not finite")
    return result


def _to_str(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, int | float) and not isinstance(value, str):
        return str(_to_int(value))  # an id typed as a number; same range as integers
    if isinstance(value, str) and len(value) <= MAX_TEXT_CHARS:
        return value
    raise TypeError(type(value).__name__)


def _to_time(value: Any) -> datetime:
    """ISO 8601 text (naive means UTC+8) or epoch milliseconds (a number) of the years 1-9999."""
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, int | float):
        if not MIN_EPOCH_MS <= value <= MAX_EPOCH_MS:
            raise OverflowError("epoch")
        return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=value)
    if not isinstance(value, str) or len(value) > 64:
        raise TypeError(type(value).__name__)
    parsed = datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=NAIVE_TIME_ZONE)
    # In UTC: PostgreSQL refuses offsets beyond 15:59 (RFC 3339 allows 23:59). A time that leaves
    # the years 1-9999 on the way is clamped to their ends (no data lies there).
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC) if parsed.year == 1 else datetime.max.replace(tzinfo=UTC)


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise ValueError(value)


_COERCERS = {"int": _to_int, "float": _to_float, "str": _to_str, "time": _to_time, "bool": _to_bool}
_DESCRIPTION = {
    "int": "an integer inside the 64-bit range",
    "float": "a finite number",
    "str": f"a string of at most {MAX_TEXT_CHARS} characters",
    "time": "a time (ISO 8601 of the years 1-9999, or epoch milliseconds)",
    "bool": "true or false",
}
