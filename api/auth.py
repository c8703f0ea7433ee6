"""Who is calling: access tokens, the principal they carry, the token secret, and revocation.

Access tokens are HMAC-signed (itsdangerous) JSON carrying the principal, ``iat``, ``exp`` and the
user's session epoch (``sep``), so any process holding the secret (REST workers, the STOMP socket)
verifies the signature without a database round trip. Refresh tokens are opaque, stored hashed in
``api_refresh_token`` and rotated on every use (``api.tokens``).

Revocation: database triggers (migration 0004) bump ``app_user.session_epoch`` when a user is
disabled, moved, renamed, loses a role or permission, changes the password, or the enterprise is
disabled or moved; a deleted user has no row. ``verify_access_token`` compares the token's epoch
with the user's current one through a small per-process cache (``SessionGuard``, entries trusted
for ``ApiSettings.session_check_ttl_s``), so a revoked token stops working within that TTL and the
hot path is a dictionary look-up.

Public API (the STOMP socket builds on it; keep the names):

- ``Principal``: user_id, user_name, enterprise_id, enterprise_path, permissions {code: {actions}}
- ``AuthError``: raised for a missing, malformed, forged, expired or revoked token (code 40002)
- ``verify_access_token(app_or_settings, token) -> Principal``; may also raise the database's
  errors (``psycopg.OperationalError``, ``psycopg_pool.PoolTimeout``) when it has to look the user
  up and the database is down (REST answers 503).
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask
from itsdangerous import BadSignature, URLSafeSerializer

from api.db import EXTENSION_KEY as DB_KEY
from api.db import Database
from api.errors import AuthError
from api.rights import allows
from fleet.secret_files import generated_secret
from fleet.settings import ApiSettings, StackSettings, database_url
from warehouse.queries.auth import session_state
from warehouse.queries.open_platform import app_session_state

__all__ = ["AuthError", "Principal", "SessionGuard", "TokenCodec", "token_secret", "verify_access_token"]

_SALT = "fleetwatch.access.v1"
SECRET_FILE_NAME = "api-token-secret"
EXTENSION_KEY = "fleet_tokens"
GUARD_KEY = "fleet_session_guard"
REVOKED = "会话已被撤销，请重新登录 (session revoked: the account or its permissions changed; sign in again)"


@dataclass(frozen=True, eq=False)
class Principal:
    """The authenticated caller. ``enterprise_path`` is the materialised path, e.g. ``/1/3/``."""

    user_id: int
    user_name: str
    enterprise_id: int
    enterprise_path: str
    permissions: dict[str, set[str]] = field(default_factory=dict)
    # An open platform app's token (api/open_platform.py): the app's id; user_id is then 0.
    app_id: int | None = None

    @property
    def subject(self) -> int:
        """The session guard's key: the user id, or minus the app id for an app."""
        return -self.app_id if self.app_id is not None else self.user_id

    def can(self, code: str, action: str) -> bool:
        """Whether the caller's roles grant ``action`` on ``code`` (what granting to others needs)."""
        return action in self.permissions.get(code, set())

    def may(self, code: str, action: str) -> bool:
        """Whether the caller may make the call: granted, or a read a held screen code implies
        (``api.rights``), such as the live map's car list for a role with only the live map. An open
        platform app has no screens: its API groups' rights are exactly what it may call."""
        if self.app_id is not None:
            return self.can(code, action)
        return allows(self.permissions, code, action)

    def to_claims(self) -> dict[str, Any]:
        claims: dict[str, Any] = {
            "uid": self.user_id,
            "un": self.user_name,
            "eid": self.enterprise_id,
            "ep": self.enterprise_path,
            "perm": {code: sorted(actions) for code, actions in sorted(self.permissions.items())},
        }
        if self.app_id is not None:
            claims["app"] = self.app_id
        return claims

    @classmethod
    def from_claims(cls, claims: dict[str, Any]) -> Principal:
        try:
            perms = claims["perm"]
            if not isinstance(perms, dict):
                raise TypeError("perm")
            app = claims.get("app")
            return cls(
                user_id=int(claims["uid"]),
                user_name=str(claims["un"]),
                enterprise_id=int(claims["eid"]),
                enterprise_path=str(claims["ep"]),
                permissions={str(c): {str(a) for a in acts} for c, acts in perms.items()},
                app_id=None if app is None else int(app),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise AuthError() from exc


class TokenCodec:
    """Signs and verifies access tokens. ``clock`` returns epoch seconds (injectable for tests)."""

    def __init__(self, secret: str, ttl_s: int, clock: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("token secret is empty")
        self._serializer = URLSafeSerializer(secret, salt=_SALT)
        self.ttl_s = ttl_s
        self._clock = clock

    def issue(self, principal: Principal, session_epoch: int = 0) -> tuple[str, int]:
        """Returns (token, expires_at epoch seconds)."""
        now = int(self._clock())
        expires_at = now + self.ttl_s
        claims = principal.to_claims() | {
            "iat": now, "exp": expires_at, "sep": session_epoch, "jti": secrets.token_hex(8)}
        return self._serializer.dumps(claims), expires_at

    def verify(self, token: str) -> Principal:
        """Raises AuthError when the token is empty, malformed, signed with another key or expired."""
        return self.decode(token)[0]

    def decode(self, token: str) -> tuple[Principal, int]:
        """(principal, session epoch) of a valid token; AuthError like ``verify``. Tokens issued
        before epochs existed count as epoch 0."""
        if not token or len(token) > 8192:
            raise AuthError()
        try:
            claims = self._serializer.loads(token)
        except BadSignature as exc:
            raise AuthError() from exc
        if not isinstance(claims, dict):
            raise AuthError()
        exp = claims.get("exp")
        if not isinstance(exp, int) or exp <= self._clock():
            raise AuthError()
        epoch = claims.get("sep", 0)
        if not isinstance(epoch, int):
            raise AuthError()
        return Principal.from_claims(claims), epoch


class SessionGuard:
    """Refuses tokens of users whose session epoch moved on, who are inactive or gone.

    ``lookup(subject)`` returns (session_epoch, active) or None (deleted); ``subject`` is a user id,
    or minus an open platform app's id (``Principal.subject``); its answers are trusted
    for ``ttl_s`` seconds per user, at most ``max_entries`` users (the cache is cleared when full,
    so memory stays bounded whatever tokens arrive). Lookup errors propagate (nothing is cached).
    """

    def __init__(
        self,
        lookup: Callable[[int], tuple[int, bool] | None],
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 10_000,
    ) -> None:
        self._lookup = lookup
        self.ttl_s = ttl_s
        self._clock = clock
        self._max_entries = max_entries
        self._cache: dict[int, tuple[float, tuple[int, bool] | None]] = {}
        self._lock = threading.Lock()

    def check(self, user_id: int, epoch: int) -> None:
        now = self._clock()
        cached = self._cache.get(user_id)
        # A token newer than the cached epoch was signed after a bump this cache has not seen (the user
        # signed in again after a change): the cache is what is stale, not the token. Look again.
        stale = cached is not None and cached[1] is not None and cached[1][0] < epoch
        if cached is None or stale or now - cached[0] >= self.ttl_s:
            state = self._lookup(user_id)
            with self._lock:
                if len(self._cache) >= self._max_entries:
                    self._cache.clear()
                self._cache[user_id] = (now, state)
        else:
            state = cached[1]
        if state is None or not state[1] or state[0] != epoch:
            raise AuthError(REVOKED)


def database_guard(db: Database, ttl_s: float) -> SessionGuard:
    def lookup(subject: int) -> tuple[int, bool] | None:
        with db.connection() as conn:
            return session_state(conn, subject) if subject > 0 else app_session_state(conn, -subject)

    return SessionGuard(lookup, ttl_s)


def token_secret(settings: ApiSettings, var_dir: Path | None = None) -> str:
    """``settings.token_secret``, or a random secret generated once into ``var_dir`` (mode 0600).

    Every process of one deployment reads the same file, so tokens issued by one worker verify in
    another. Raises OSError when the directory cannot be created or the file read.
    """
    if settings.token_secret:
        return settings.token_secret
    directory = var_dir if var_dir is not None else StackSettings().var_dir
    return _secret_from_file(Path(directory) / SECRET_FILE_NAME)


@functools.lru_cache(maxsize=8)
def _secret_from_file(path: Path) -> str:
    return generated_secret(path, lambda: secrets.token_urlsafe(48))


@functools.lru_cache(maxsize=8)
def _codec_for(secret: str, ttl_s: int) -> TokenCodec:
    return TokenCodec(secret, ttl_s)


@functools.lru_cache(maxsize=8)
def _guard_for(url: str, ttl_s: float) -> SessionGuard:
    db = Database(url, max_size=2)
    db.open()
    return database_guard(db, ttl_s)


@functools.lru_cache(maxsize=8)
def _guard_of(settings: ApiSettings) -> SessionGuard:
    return _guard_for(database_url(), settings.session_check_ttl_s)


def session_guard(app: Flask) -> SessionGuard:
    """The app's one ``SessionGuard`` (made on first use over the app's database)."""
    guard: SessionGuard = app.extensions.get(GUARD_KEY) or app.extensions.setdefault(
        GUARD_KEY,
        database_guard(app.extensions[DB_KEY], app.config["FLEET_API_SETTINGS"].session_check_ttl_s),
    )
    return guard


APP_REFUSED = "开放平台应用的令牌不能调用此接口 (an open platform app's token cannot be used here)"


def verify_access_token(app_or_settings: Flask | ApiSettings, token: str, *, allow_apps: bool = False) -> Principal:
    """The principal of a valid, unrevoked access token; raises AuthError otherwise.

    Pass the Flask app built by ``create_app`` (uses its codec and database) or the ``ApiSettings``
    of the deployment (the secret is resolved as in ``token_secret``; users are looked up in the
    configured database). Revocation is seen within ``session_check_ttl_s``. An open platform app's
    token is refused (AuthError) unless ``allow_apps`` (routes guarded by ``requires``).
    """
    codec: TokenCodec
    guard: SessionGuard
    if isinstance(app_or_settings, Flask):
        codec = app_or_settings.extensions[EXTENSION_KEY]
        guard = session_guard(app_or_settings)
    else:
        codec = _codec_for(token_secret(app_or_settings), app_or_settings.access_token_ttl_s)
        guard = _guard_of(app_or_settings)
    principal, epoch = codec.decode(token)
    if principal.app_id is not None and not allow_apps:
        raise AuthError(APP_REFUSED)
    guard.check(principal.subject, epoch)
    return principal
