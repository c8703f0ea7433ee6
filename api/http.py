"""Request/response helpers shared by the route modules."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import unquote_to_bytes

from flask import request
from flask.json.provider import DefaultJSONProvider

from api.errors import BadRequest, envelope

MAX_JSON_BYTES = 1024 * 1024


def ok(data: Any = None) -> dict[str, Any]:
    return envelope(data)


def json_body() -> Any:
    """The parsed JSON body, or None when it is empty.

    Raises BadRequest, naming the place, for: a body that is not UTF-8 JSON (with the position),
    the literal ``null``, nesting deeper than MAX_JSON_DEPTH, numbers of more than MAX_JSON_DIGITS
    digits or not finite (NaN, Infinity, 1e400), and text with NUL or lone surrogates (PostgreSQL
    cannot store them; they used to surface as 500s from the database driver).
    """
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:
        raise BadRequest(f"请求体过大 (request body larger than {MAX_JSON_BYTES} bytes)")
    if not raw:  # no body; blanks alone are not JSON
        return None
    try:
        value = json.loads(raw.decode("utf-8"), parse_int=_bounded_int)
    except UnicodeDecodeError:
        raise BadRequest("请求体不是 UTF-8 文本 (request body is not valid JSON: not UTF-8 text)") from None
    except RecursionError:
        raise BadRequest(_TOO_DEEP) from None
    except json.JSONDecodeError as exc:
        raise BadRequest(
            f"请求体不是有效的 JSON (request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except ValueError as exc:  # from _bounded_int
        raise BadRequest(f"请求体不是有效的 JSON (request body is not valid JSON: {exc})") from None
    if value is None:
        raise BadRequest("请求体必须是 JSON 对象 (request body must be a JSON object, not null)")
    _check_json(value)
    return value


def json_object() -> dict[str, Any]:
    """The request's JSON object; no body is {}; any other JSON value is a 400."""
    body = json_body()
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (body must be a JSON object)")
    return body


MAX_JSON_DEPTH = 32
MAX_JSON_DIGITS = 100
_TOO_DEEP = f"JSON 嵌套过深 (request body is not valid JSON: nested deeper than {MAX_JSON_DEPTH} levels)"


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_DIGITS:
        raise ValueError(f"number with more than {MAX_JSON_DIGITS} digits")
    return int(digits)


def _check_json(root: Any) -> None:
    """Depth, finite numbers and storable text of a parsed body, without recursion."""
    stack: list[tuple[Any, str, int]] = [(root, "", 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_JSON_DEPTH:
            raise BadRequest(_TOO_DEEP)
        if isinstance(value, dict):
            for key, item in value.items():
                child = f"{where}.{key}" if where else key
                check_text(child + " (key)", key)
                stack.append((item, child, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            check_text(where or "body", value)
        elif isinstance(value, float) and not math.isfinite(value):
            raise BadRequest(
                f"数值超出范围 ({where or 'body'}: number out of range; NaN and Infinity are not JSON numbers)"
            )


def check_text(where: str, text: str) -> None:
    """BadRequest naming ``where`` when ``text`` holds a NUL or a lone surrogate (not UTF-8)."""
    if "\x00" in text:
        raise BadRequest(f"参数含有 NUL 字符 ({where}: contains a NUL (0x00) character)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"参数不是有效的 UTF-8 文本 ({where}: not valid UTF-8 text)") from None


def _check_bytes(where: str, raw: bytes) -> None:
    if b"\x00" in raw:
        raise BadRequest(f"参数含有 NUL 字符 ({where}: contains a NUL (0x00) character)")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(f"参数不是有效的 UTF-8 文本 ({where}: not valid UTF-8 text)") from None


def _check_urlencoded(kind: str, raw: bytes) -> None:
    for pair in raw.split(b"&"):
        name, _, value = pair.partition(b"=")
        name_bytes = unquote_to_bytes(name.replace(b"+", b" "))
        label = f"{kind} '{name_bytes.decode('utf-8', 'replace')}'"
        _check_bytes(label, name_bytes)
        _check_bytes(label, unquote_to_bytes(value.replace(b"+", b" ")))


def reject_unstorable_text() -> None:
    """``before_request``: NUL bytes or invalid UTF-8 in the path, a query parameter, a header value
    or a form field answer 400 naming where, before any route reads them (werkzeug would pass NUL
    through and replace bad UTF-8 silently)."""
    environ = request.environ
    raw_uri = environ.get("RAW_URI") or environ.get("REQUEST_URI")  # the path as sent, still %-encoded
    if raw_uri:
        path = unquote_to_bytes(raw_uri.partition("?")[0].encode("latin-1", "replace"))
    else:
        path = environ.get("PATH_INFO", "").encode("latin-1", "replace")
    _check_bytes("path", path)
    _check_urlencoded("query parameter", request.query_string)
    for name, value in request.headers.items():
        if "\x00" in value:
            raise BadRequest(f"参数含有 NUL 字符 (header '{name}': contains a NUL (0x00) character)")
    if request.mimetype == "application/x-www-form-urlencoded":
        _check_urlencoded("form field", request.get_data(cache=True))
    elif request.mimetype == "multipart/form-data":
        for name, value in request.form.items(multi=True):
            check_text(f"form field '{name}'", value)


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
