"""Request/response helpers shared by the route modules."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from flask import request
from flask.json.provider import DefaultJSONProvider

from api.errors import BadRequest, envelope

MAX_JSON_BYTES = 1024 * 1024


def ok(data: Any = None) -> dict[str, Any]:
    return envelope(data)


def json_body() -> Any:
    """The parsed JSON body, or None when it is empty. Invalid JSON raises BadRequest with the position."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:
        raise BadRequest(f"request body larger than {MAX_JSON_BYTES} bytes")
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise BadRequest("request body is not valid JSON: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadRequest(
            f"request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


class FleetJSONProvider(DefaultJSONProvider):
    """Times as ISO 8601 in UTC (``2026-11-21T07:30:00+00:00``), decimals as numbers, UTF-8 text."""

    ensure_ascii = False
    sort_keys = False

    @staticmethod
    def default(o: Any) -> Any:
        if isinstance(o, datetime):
            return (o if o.tzinfo else o.replace(tzinfo=UTC)).astimezone(UTC).isoformat()
        if isinstance(o, date):
            return o.isoformat()
        if isinstance(o, Decimal):
            return float(o)
        if isinstance(o, set | frozenset):
            return sorted(o)
        return DefaultJSONProvider.default(o)
