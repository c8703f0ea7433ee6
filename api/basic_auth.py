"""The authorization protocols (console-spec §7 "General", platform-spec §9) and protocol 1's HTTP Basic.

``ApiSettings.auth_protocol`` (``FLEET_API_AUTH_PROTOCOL``):

- 3 (the default, platform-spec §9): every call carries ``Authorization: Bearer <access token>``.
- 1: a call may instead carry ``Authorization: Basic base64(userName:password)``, on REST and in the
  STOMP CONNECT frame; Bearer tokens keep working (open platform apps, sessions signed in before).
- 2: Bearer tokens, and the password and refresh grants of ``/oauth2/token.json`` must authenticate
  the client with HTTP Basic ``client_id:client_secret`` of an active open platform app.

A Basic credential is checked like a sign-in (``TokenService.password_principal``: counted by the
sign-in throttle before the argon2 check, audited when wrong), then trusted for
``basic_auth_cache_s`` under the sha256 of the header, so the hashing cost is not paid per request.
A trusted credential still goes through the session guard on every use: a user disabled, moved,
stripped of a role or whose password changed is refused within ``session_check_ttl_s`` (the entry
is dropped and the password checked again).

Failure modes: a malformed Basic header or a wrong password -> InvalidCredentials (401, the spec's
401 text); Basic under protocol 2 or 3 -> AuthError (40002, "use Bearer"); throttled -> 429.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
import time
from collections.abc import Callable

from flask import Flask

from api.auth import Principal, session_guard
from api.errors import AuthError, InvalidCredentials
from api.services import SERVICE_KEY

PROTOCOL_BASIC = 1
PROTOCOL_CLIENT_BASIC = 2
PROTOCOL_BEARER = 3
CACHE_KEY = "fleet_basic_credentials"
# The status catalogue's 401 (platform-spec §8; the console's common:httpStatus.401).
UNAUTHORIZED_TEXT = "用户没有权限（令牌、用户名、密码错误）。"
WRONG_BASIC = f"{UNAUTHORIZED_TEXT} (wrong user name or password)"
BASIC_REFUSED = ("Basic 认证未启用，请使用访问令牌 (Basic authentication is only accepted under authorization "
                 "protocol 1; send 'Authorization: Bearer <access token>')")


def auth_protocol(app: Flask) -> int:
    return int(app.config["FLEET_API_SETTINGS"].auth_protocol)


def basic_credentials(value: str) -> tuple[str, str]:
    """(user name, password) of the credentials part of a Basic header (after ``Basic ``);
    InvalidCredentials when it is not base64 of UTF-8 ``name:password``."""
    try:
        text = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        raise InvalidCredentials(WRONG_BASIC) from None
    user_name, colon, password = text.partition(":")
    if not colon or not user_name or not password:
        raise InvalidCredentials(WRONG_BASIC)
    return user_name, password


class CredentialCache:
    """Verified Basic credentials: sha256(header) -> (principal, session epoch), each trusted for
    ``ttl_s``; at most ``max_entries`` (cleared when full, so memory stays bounded)."""

    def __init__(self, ttl_s: float, clock: Callable[[], float] = time.monotonic,
                 max_entries: int = 10_000) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._max_entries = max_entries
        self._entries: dict[str, tuple[float, Principal, int]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(header: str) -> str:
        return hashlib.sha256(header.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> tuple[Principal, int] | None:
        entry = self._entries.get(key)
        if entry is None or self._clock() - entry[0] >= self.ttl_s:
            return None
        return entry[1], entry[2]

    def put(self, key: str, principal: Principal, epoch: int) -> None:
        with self._lock:
            if len(self._entries) >= self._max_entries:
                self._entries.clear()
            self._entries[key] = (self._clock(), principal, epoch)

    def drop(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)


def _cache(app: Flask) -> CredentialCache:
    cache: CredentialCache = app.extensions.get(CACHE_KEY) or app.extensions.setdefault(
        CACHE_KEY, CredentialCache(app.config["FLEET_API_SETTINGS"].basic_auth_cache_s))
    return cache


def basic_principal(app: Flask, credentials: str, address: str) -> Principal:
    """The user of a Basic header's ``credentials`` (the part after ``Basic ``) under protocol 1.

    Raises AuthError (protocol 2 or 3), InvalidCredentials (malformed or wrong), TooManyAttempts
    (the sign-in throttle), Unavailable (every password-check slot busy)."""
    if auth_protocol(app) != PROTOCOL_BASIC:
        raise AuthError(BASIC_REFUSED)
    cache = _cache(app)
    key = cache.key(credentials.strip())
    hit = cache.get(key)
    if hit is not None:
        principal, epoch = hit
        try:
            session_guard(app).check(principal.subject, epoch)
            return principal
        except AuthError:  # revoked since: check the password again (it may have changed)
            cache.drop(key)
    user_name, password = basic_credentials(credentials)
    principal, epoch = app.extensions[SERVICE_KEY].password_principal(
        user_name, password, address, wrong=lambda: InvalidCredentials(WRONG_BASIC))
    cache.put(key, principal, epoch)
    return principal
