"""Open platform (platform-spec §2 settings "openPlatform"): integrators' apps and what their tokens may do.

An app (entity ``openApp``, ``api/query/entities_settings.py``) belongs to an enterprise and has a
public ``appKey`` and a secret shown once (at creation, or when an administrator issues a new one)
and kept as its sha256 (32 random bytes need no slow hash). ``POST /oauth2/token.json?grant_type=
client_credentials&client_id=<appKey>&client_secret=<secret>`` (or HTTP Basic) answers an access
token (no refresh token: the app asks again) whose principal is the app: its enterprise and its subtree
(``isParent=false``: the enterprise only), and only the read actions of its allowed API groups (``API_GROUPS``), so
every route's own ``@requires`` answers 403 outside them; routes for signed-in users only and the
STOMP socket refuse app tokens. Each call of an app counts against its per-minute limit in
``open_app_rate`` (one fixed window per app, shared by every API process): past it, 429 with
``data.retryAfter``. A disabled or deleted app, a new secret or other API groups end its tokens
through the same session epoch check as users (migration 0012), within
``FLEET_API_SESSION_CHECK_TTL_S``.

Failure modes: unknown app key or wrong secret -> InvalidCredentials (401, never saying which);
disabled app or enterprise -> Forbidden (403); over the limit -> TooManyAttempts (429).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any

from flask import g, has_request_context

from api.errors import Forbidden, InvalidCredentials, TooManyAttempts
from api.query.grammar import EntityHooks
from warehouse.queries import open_platform as q

# Route groups an app may be allowed (read actions only): name -> (zh-CN, English, {code: actions},
# the main routes, for the console's API catalogue).
API_GROUPS: dict[str, tuple[str, str, dict[str, frozenset[str]], tuple[str, ...]]] = {
    "vehicles": ("车辆与终端", "vehicles and terminals",
                 {"car": frozenset({"query", "get"}), "device": frozenset({"query", "get"}),
                  "group": frozenset({"query", "get"})},
                 ("POST /api/common/query/carView.json", "GET /api/common/carView/{id}.json",
                  "POST /api/common/query/device.json", "GET /api/car/{id}/state.json",
                  "GET /api/device/{id}/bizState.json", "POST /api/common/query/group.json")),
    "positions": ("位置与轨迹", "positions and tracks",
                  {"gps": frozenset({"query", "get"})},
                  ("GET /api/gps/car/{id}/last.json", "GET /api/gps/vin/{vin}/last.json",
                   "POST /api/common/query/gps.json")),
    "drivers": ("驾驶员", "drivers",
                {"driver": frozenset({"query", "get"})},
                ("POST /api/common/query/driver.json", "GET /api/common/driver/{id}.json")),
    "alarms": ("报警", "alarms",
               {"alarm": frozenset({"query", "get"})},
               ("POST /api/common/query/alarm.json",)),
}
APP_KEY_PREFIX = "fw"
ISSUED_SECRETS = "fleet_open_app_secrets"  # flask.g: {app id: secret} created in this request


def new_app_key() -> str:
    return APP_KEY_PREFIX + secrets.token_hex(8)


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def normalised_apis(value: str | None) -> str:
    """The comma list of groups sorted, each once (the field's declaration checked the names)."""
    return ",".join(sorted({item for item in (value or "").split(",") if item}))


def permissions_of(apis: tuple[str, ...] | list[str]) -> dict[str, set[str]]:
    """The permission codes and actions an app's groups grant (unknown names grant nothing)."""
    granted: dict[str, set[str]] = {}
    for name in apis:
        for code, actions in API_GROUPS.get(name, ("", "", {}, ()))[2].items():
            granted.setdefault(code, set()).update(actions)
    return granted


def catalogue() -> list[dict[str, Any]]:
    """The groups as the console's API tab shows them."""
    return [{"name": name, "label": zh, "labelEn": en,
             "permissions": [{"code": code, "actions": sorted(actions)} for code, actions in codes.items()],
             "routes": list(routes)}
            for name, (zh, en, codes, routes) in API_GROUPS.items()]


WRONG_CREDENTIALS = "应用凭证错误 (client_id or client_secret wrong)"


def check_credentials_shape(client_id: str, client_secret: str) -> None:
    """InvalidCredentials for credentials no app can have (before any database work)."""
    if not client_id or not client_secret or len(client_id) > 64 or len(client_secret) > 128:
        raise InvalidCredentials(WRONG_CREDENTIALS)


def authenticate_app(conn: Any, client_id: str, client_secret: str) -> q.OpenApp:
    """The app these credentials name; raises InvalidCredentials or Forbidden (module doc)."""
    check_credentials_shape(client_id, client_secret)
    app = q.app_by_key(conn, client_id)
    given = hash_secret(client_secret)
    if app is None or not hmac.compare_digest(given, app.secret_hash):
        raise InvalidCredentials(WRONG_CREDENTIALS)
    if not app.active:
        raise Forbidden("应用已停用 (this app, or its enterprise, is disabled)")
    q.mark_token_issued(conn, app.app_id)
    return app


def enforce_rate_limit(conn: Any, app_id: int) -> None:
    """Counts the call; TooManyAttempts past the app's calls per minute."""
    calls, limit, left_s = q.count_call(conn, app_id)
    if limit and calls > limit:
        wait_s = max(1, int(left_s + 0.999))
        raise TooManyAttempts(
            f"调用过于频繁，请 {wait_s} 秒后再试 (rate limit of {limit} calls per minute reached; retry in {wait_s} s)",
            data={"retryAfter": wait_s, "limit": limit})


class OpenAppHooks(EntityHooks):
    """A new app gets its key and secret here; the secret is answered once (the create reply)."""

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        # null for a column with a default: the default on create, no change on update
        values = {k: v for k, v in values.items() if not (k in ("state", "rateLimitPerMin") and v is None)}
        if "apis" in values:
            values["apis"] = normalised_apis(values["apis"])
        if action == "create":
            secret = new_secret()
            values.update(appKey=new_app_key(), secretHash=hash_secret(secret), appSecret=secret)
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if action == "create" and has_request_context():
            g.setdefault(ISSUED_SECRETS, {})[record_id] = values["appSecret"]

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        if has_request_context():
            secret = g.get(ISSUED_SECRETS, {}).pop(record.get("id"), None)
            if secret is not None:
                return {**record, "appSecret": secret}
        return record


def issue_new_secret(conn: Any, app_id: int) -> str:
    """Replaces the app's secret (its tokens end: the session epoch moves); the new one, once."""
    secret = new_secret()
    q.set_secret_hash(conn, app_id, hash_secret(secret))
    return secret
