"""Signed, short-lived stream URLs: the API signs, the media server verifies.

A token is ``<payload>.<signature>``, both base64url without padding: the payload is compact JSON
``{"s": streamId, "e": enterpriseId, "u": userId, "k": "view" | "talk", "x": expiry (epoch s), "p": the
user's session epoch when signed (the media server closes the socket once it moves on)}`` and
the signature HMAC-SHA256 over the payload text with the media secret
(``FLEET_MEDIA_SERVER_SECRET``, or one generated into ``var/media-secret`` that the API and the media
server share). ``verify`` raises ``TokenError`` (``reason``: missing, malformed, signature, expired,
kind) and never trusts a field before the signature matched. The internal API between the two (stream
registration, heartbeats) is authenticated with ``internal_key(secret)``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from fleet.secret_files import generated_secret

SECRET_FILE = "media-secret"


class TokenError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class StreamClaims:
    stream_id: str
    enterprise_id: int
    user_id: int | None
    kind: str  # "view" or "talk"
    expires_at: int
    session_epoch: int | None = None  # app_user.session_epoch at signing; None: not carried


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: bytes, payload: str) -> str:
    return _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())


def sign(secret: bytes, stream_id: str, enterprise_id: int, user_id: int | None, *, kind: str = "view",
         ttl_s: float = 120.0, now: float | None = None, session_epoch: int | None = None) -> tuple[str, int]:
    """(token, expiry epoch s)."""
    expires = int((time.time() if now is None else now) + ttl_s)
    claims: dict[str, object] = {"s": stream_id, "e": enterprise_id, "u": user_id, "k": kind, "x": expires}
    if session_epoch is not None:
        claims["p"] = session_epoch
    body = json.dumps(claims, separators=(",", ":"))
    payload = _b64(body.encode())
    return f"{payload}.{_mac(secret, payload)}", expires


def verify(secret: bytes, token: str | None, *, kind: str = "view", now: float | None = None) -> StreamClaims:
    if not token:
        raise TokenError("missing")
    payload, _, signature = token.partition(".")
    if not payload or not signature or len(token) > 2048:
        raise TokenError("malformed")
    if not hmac.compare_digest(_mac(secret, payload), signature):
        raise TokenError("signature")
    try:
        data = json.loads(_unb64(payload))
        claims = StreamClaims(str(data["s"]), int(data["e"]), None if data.get("u") is None else int(data["u"]),
                              str(data["k"]), int(data["x"]), None if data.get("p") is None else int(data["p"]))
    except (ValueError, KeyError, TypeError):
        raise TokenError("malformed") from None
    if claims.expires_at < (time.time() if now is None else now):
        raise TokenError("expired")
    if claims.kind != kind:
        raise TokenError("kind")
    return claims


def internal_key(secret: bytes) -> str:
    """The bearer key of the API -> media server calls (derived, so one secret is configured)."""
    return hmac.new(secret, b"fleet-media-internal", hashlib.sha256).hexdigest()


def media_secret(configured: str, var_dir: Path) -> bytes:
    """The configured secret, else the one in ``var_dir/media-secret`` (made, mode 0600, on first use)."""
    if configured:
        return configured.encode()
    return generated_secret(var_dir / SECRET_FILE, lambda: secrets.token_urlsafe(32)).encode()
