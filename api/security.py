"""Route guards (bearer token -> Principal, permission check, tenant scope of the request), request
body caps and the browser security headers of every reply."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

from flask import Flask, Request, Response, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from api.auth import Principal, verify_access_token
from api.basic_auth import PROTOCOL_BASIC, auth_protocol, basic_principal
from api.db import get_db
from api.errors import FORBIDDEN_TEXT as FORBIDDEN_TEXT  # the 403 text of platform-spec §8, for the routes
from api.errors import ApiError, AuthError, Forbidden, NotFound, envelope
from api.query.values import MAX_ID, parse_positive_int, subtree_requested
from fleet.browser_headers import STATIC_HEADERS
from fleet.settings import ApiSettings
from warehouse.queries import vehicles
from warehouse.queries.scope import Scope

F = TypeVar("F", bound=Callable[..., Any])


def bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("缺少访问令牌 (missing bearer access token)")
    return token.strip()


def request_principal(*, allow_apps: bool = False) -> Principal:
    """The caller of this request: its Bearer access token, or under authorization protocol 1 its
    Basic userName:password (console-spec §7 "General"; ``api.basic_auth``). Raises AuthError (40002)
    without valid credentials of either kind, InvalidCredentials (401) for a wrong Basic password."""
    scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() == "basic" and auth_protocol(current_app) == PROTOCOL_BASIC:
        return basic_principal(current_app, credentials, request.remote_addr or "")
    return verify_access_token(current_app, bearer_token(), allow_apps=allow_apps)


def requires(code: str, action: str) -> Callable[[F], F]:
    """The route needs a valid access token whose principal holds ``action`` on ``code``.

    Raises AuthError (40002) without a valid token, Forbidden (403) without the permission, granted
    or implied by a held screen code (a read the screen needs, ``api.rights``). An open
    platform app's token is accepted here (its permissions are its API groups' read actions), and
    each of its calls counts against its per-minute limit (TooManyAttempts, 429).
    The view reads the caller with ``current_principal()`` and its scope with ``request_scope()``.
    """

    def decorate(view: F) -> F:
        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            principal = request_principal(allow_apps=True)
            if principal.app_id is not None:  # an open platform app: every call counts on its limit
                _count_app_call(principal.app_id)
            if not principal.may(code, action):
                raise Forbidden.missing(code, action)
            g.principal = principal
            return view(*args, **kwargs)

        guarded.required_permission = (code, action)  # type: ignore[attr-defined]
        return cast(F, guarded)

    return decorate


def _count_app_call(app_id: int) -> None:
    from api.db import get_db
    from api.open_platform import enforce_rate_limit

    with get_db().connection() as conn:
        enforce_rate_limit(conn, app_id)


def authenticated(view: F) -> F:
    """The route needs a valid access token and no particular permission (AuthError otherwise)."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        g.principal = request_principal()
        return view(*args, **kwargs)

    guarded.required_permission = None  # type: ignore[attr-defined]
    return cast(F, guarded)


def current_principal() -> Principal:
    principal: Principal = g.principal
    return principal


def request_scope() -> Scope:
    """The caller's enterprise and its whole subtree; its own enterprise only with ``isParent=false``
    (``subtree_requested``: the one rule)."""
    principal = current_principal()
    return Scope(
        enterprise_id=principal.enterprise_id,
        enterprise_path=principal.enterprise_path,
        subtree=subtree_requested(request.args.get("isParent")),
        user_id=principal.user_id,
    )


# --- browser security headers and request body caps ---------------------------------

# Tile servers of the console's base layers (dashboards/src/features/map/layers/baseLayers.ts).
MAP_TILE_SOURCES = (
    "https://tile.openstreetmap.org",
    "https://*.tianditu.gov.cn",
    "https://*.is.autonavi.com",
    "https://server.arcgisonline.com",
    "https://*.tiles.virtualearth.net",
    "https://*.bdimg.com",
    "https://*.google.com",
)
_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")


def report_scope() -> Scope:
    """``enterpriseId`` (inside the caller's tree, else 404; the caller's own when absent) and its subtree,
    unless ``isParent=false``."""
    principal = current_principal()
    is_parent = subtree_requested(request.args.get("isParent"))
    raw_id = request.args.get("enterpriseId")
    if raw_id is None or raw_id == "":
        return Scope(principal.enterprise_id, principal.enterprise_path, subtree=is_parent)
    enterprise_id = parse_positive_int("enterpriseId", raw_id, 0, MAX_ID)
    with get_db().connection() as conn:
        path = vehicles.enterprise_path(conn, enterprise_id)
    caller = Scope(principal.enterprise_id, principal.enterprise_path, subtree=True)
    if path is None or not caller.contains_path(path):
        raise NotFound(f"企业 {raw_id} 不存在 (enterprise {raw_id} does not exist)")
    return Scope(enterprise_id, path, subtree=is_parent)


def content_security_policy(host: str, *, media_port: int) -> str:
    """The CSP of every reply. ``host`` is the request's Host (name[:port]); the console's STOMP
    socket is on it, its video streams (later) on ``media_port`` of the same name, over http/ws
    and https/wss. A Host that is not a plain name or address only gets ``'self'``."""
    connect = ["'self'"]
    media = ["'self'", "blob:"]
    if _HOST.match(host):
        name = host[: host.index("]") + 1] if host.startswith("[") else host.split(":", 1)[0]
        connect += [f"ws://{host}", f"wss://{host}"]
        stream = [f"{scheme}://{name}:{media_port}" for scheme in ("http", "https")]
        connect += stream + [f"{scheme}://{name}:{media_port}" for scheme in ("ws", "wss")]
        media += stream
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],  # antd (cssinjs) injects <style> at run time
        "img-src": ["'self'", "data:", "blob:", *MAP_TILE_SOURCES],
        "font-src": ["'self'", "data:"],
        "connect-src": connect,
        "media-src": media,
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def body_limit(settings: ApiSettings, path: str) -> int:
    """Largest request body of ``path``: tiny for the token endpoint, an upload's size for a
    spreadsheet import (``POST /api/common/import/{entity}.json``), MAX_JSON_BYTES-sized elsewhere."""
    if path.startswith("/oauth2/"):
        return settings.token_max_body_bytes
    if path.startswith("/api/common/import/") and path.endswith(".json"):
        return settings.import_max_body_bytes
    return settings.max_body_bytes


class PayloadTooLarge(ApiError):
    http_status = 413
    code = 413
    default_message = "请求体过大 (request body too large)"


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"请求体过大 (request body larger than {limit} bytes)", data={"maxBytes": limit})


class CappedRequest(Request):
    """Flask's request with the route's body cap: whoever reads the body first (a form, JSON, a
    before_request hook) gets a 413 instead of an unbounded read; a chunked body is cut at the cap."""

    @property
    def max_content_length(self) -> int | None:
        if self._max_content_length is not None:
            return self._max_content_length
        settings: ApiSettings | None = current_app.config.get("FLEET_API_SETTINGS") if current_app else None
        return None if settings is None else body_limit(settings, self.path)

    @max_content_length.setter
    def max_content_length(self, value: int | None) -> None:
        self._max_content_length = value

    @property
    def max_form_memory_size(self) -> int | None:
        if self._max_form_memory_size is not None:
            return self._max_form_memory_size
        return self.max_content_length

    @max_form_memory_size.setter
    def max_form_memory_size(self, value: int | None) -> None:
        self._max_form_memory_size = value


def register_security(app: Flask, settings: ApiSettings) -> None:
    """Body caps (first ``before_request``: a declared oversized body is refused unread, 413 in the
    envelope) and the security headers on every reply (``after_request``, errors included)."""
    app.request_class = CappedRequest

    def refuse_oversized_body() -> None:
        limit = body_limit(settings, request.path)
        if request.content_length is not None:
            if request.content_length > limit:
                raise _too_large(limit)
        elif "chunked" in request.headers.get("Transfer-Encoding", "").lower():
            # Chunked (no length): read at most one byte past the cap now, so nothing later reads
            # more, and a body past the cap is a 413 rather than silently cut (werkzeug cuts it).
            raw = request.environ["wsgi.input"].read(limit + 1)
            if len(raw) > limit:
                raise _too_large(limit)
            request.environ["wsgi.input"] = io.BytesIO(raw)
            request.environ["CONTENT_LENGTH"] = str(len(raw))

    def secure_headers(response: Response) -> Response:
        for name, value in STATIC_HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault(
            "Content-Security-Policy", content_security_policy(request.host, media_port=settings.media_port))
        return response

    def too_large(exc: HTTPException) -> tuple[Response, int]:
        # werkzeug's 413 (a chunked body past the cap, too many form parts) in the envelope
        error = _too_large(body_limit(settings, request.path))
        return jsonify(envelope(error.data, code=error.code, message=error.message)), 413

    app.before_request_funcs.setdefault(None, []).insert(0, refuse_oversized_body)
    app.after_request(secure_headers)
    app.register_error_handler(413, too_large)
