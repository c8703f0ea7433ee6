"""Who is calling: access tokens, the principal they carry, and the token secret.

Access tokens are HMAC-signed (itsdangerous) JSON carrying the principal and an expiry, so any process
holding the secret (REST workers, the STOMP socket) verifies them without a database round trip.
Refresh tokens are opaque, stored hashed in ``api_refresh_token`` and rotated on every use
(``api.tokens``). Consequence of stateless access tokens: a permission change or a disabled account
takes effect at the next refresh (at most ``access_token_ttl_s`` later).

Public API (the STOMP socket builds on it; keep the names):

- ``Principal``: user_id, user_name, enterprise_id, enterprise_path, permissions {code: {actions}}
- ``AuthError``: raised for a missing, malformed, forged or expired token (envelope code 40002)
- ``verify_access_token(app_or_settings, token) -> Principal``
"""

from __future__ import annotations

import functools
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask
from itsdangerous import BadSignature, URLSafeSerializer

from api.errors import AuthError
from fleet.settings import ApiSettings, StackSettings

__all__ = ["AuthError", "Principal", "TokenCodec", "token_secret", "verify_access_token"]

_SALT = "fleetwatch.access.v1"
SECRET_FILE_NAME = "api-token-secret"
EXTENSION_KEY = "fleet_tokens"


@dataclass(frozen=True, eq=False)
class Principal:
    """The authenticated caller. ``enterprise_path`` is the materialised path, e.g. ``/1/3/``."""

    user_id: int
    user_name: str
    enterprise_id: int
    enterprise_path: str
    permissions: dict[str, set[str]] = field(default_factory=dict)

    def can(self, code: str, action: str) -> bool:
        return action in self.permissions.get(code, set())

    def to_claims(self) -> dict[str, Any]:
        return {
            "uid": self.user_id,
            "un": self.user_name,
            "eid": self.enterprise_id,
            "ep": self.enterprise_path,
            "perm": {code: sorted(actions) for code, actions in sorted(self.permissions.items())},
        }

    @classmethod
    def from_claims(cls, claims: dict[str, Any]) -> Principal:
        try:
            perms = claims["perm"]
            if not isinstance(perms, dict):
                raise TypeError("perm")
            return cls(
                user_id=int(claims["uid"]),
                user_name=str(claims["un"]),
                enterprise_id=int(claims["eid"]),
                enterprise_path=str(claims["ep"]),
                permissions={str(c): {str(a) for a in acts} for c, acts in perms.items()},
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

    def issue(self, principal: Principal) -> tuple[str, int]:
        """Returns (token, expires_at epoch seconds)."""
        now = int(self._clock())
        expires_at = now + self.ttl_s
        claims = principal.to_claims() | {"iat": now, "exp": expires_at, "jti": secrets.token_hex(8)}
        return self._serializer.dumps(claims), expires_at

    def verify(self, token: str) -> Principal:
        """Raises AuthError when the token is empty, malformed, signed with another key or expired."""
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
        return Principal.from_claims(claims)


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
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_text(encoding="ascii").strip()
        if not secret:
            raise OSError(f"token secret file {path} is empty; delete it to regenerate") from None
        return secret
    secret = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secret + "\n")
    return secret


@functools.lru_cache(maxsize=8)
def _codec_for(secret: str, ttl_s: int) -> TokenCodec:
    return TokenCodec(secret, ttl_s)


def verify_access_token(app_or_settings: Flask | ApiSettings, token: str) -> Principal:
    """The principal of a valid access token; raises AuthError otherwise.

    Pass the Flask app built by ``create_app`` (uses its codec) or the ``ApiSettings`` of the
    deployment (the secret is resolved as in ``token_secret``).
    """
    codec: TokenCodec
    if isinstance(app_or_settings, Flask):
        codec = app_or_settings.extensions[EXTENSION_KEY]
    else:
        codec = _codec_for(token_secret(app_or_settings), app_or_settings.access_token_ttl_s)
    return codec.verify(token)
