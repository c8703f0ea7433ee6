"""Access tokens: signing, expiry, forgery; the token secret file; the Principal round trip."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from api.auth import AuthError, Principal, TokenCodec, token_secret, verify_access_token
from fleet.settings import ApiSettings

ALICE = Principal(
    user_id=7, user_name="alice", enterprise_id=3, enterprise_path="/1/3/", permissions={"car": {"query", "get"}}
)


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_token_round_trips_the_principal() -> None:
    codec = TokenCodec("s3cret", ttl_s=60, clock=Clock())
    token, expires_at = codec.issue(ALICE)
    principal = codec.verify(token)
    assert (principal.user_id, principal.user_name, principal.enterprise_id, principal.enterprise_path) == (
        7, "alice", 3, "/1/3/",
    )
    assert principal.permissions == {"car": {"query", "get"}}
    assert principal.can("car", "get") and not principal.can("car", "delete") and not principal.can("gps", "get")
    assert expires_at == 1_800_000_060


def test_rejects_expired_access_token() -> None:
    clock = Clock()
    codec = TokenCodec("s3cret", ttl_s=60, clock=clock)
    token, _ = codec.issue(ALICE)
    clock.now += 59
    codec.verify(token)
    clock.now += 1
    with pytest.raises(AuthError) as info:
        codec.verify(token)
    assert info.value.code == 40002 and info.value.http_status == 401


@pytest.mark.parametrize("token", ["", "garbage", "a.b.c", "x" * 10000])
def test_rejects_garbage_tokens_with_40002(token: str) -> None:
    with pytest.raises(AuthError):
        TokenCodec("s3cret", ttl_s=60).verify(token)


def test_rejects_token_signed_with_another_secret() -> None:
    token, _ = TokenCodec("one", ttl_s=60).issue(ALICE)
    with pytest.raises(AuthError):
        TokenCodec("two", ttl_s=60).verify(token)


def test_tampered_token_is_rejected() -> None:
    codec = TokenCodec("s3cret", ttl_s=60)
    token, _ = codec.issue(ALICE)
    payload, _, signature = token.rpartition(".")
    forged = payload[:-2] + ("AA" if payload[-2:] != "AA" else "BB") + "." + signature
    with pytest.raises(AuthError):
        codec.verify(forged)


def test_tokens_are_unique_per_issue() -> None:
    codec = TokenCodec("s3cret", ttl_s=60, clock=Clock())
    assert codec.issue(ALICE)[0] != codec.issue(ALICE)[0]


def test_secret_is_generated_once_into_var_with_mode_0600(tmp_path: Path) -> None:
    settings = ApiSettings(token_secret="")
    first = token_secret(settings, tmp_path)
    assert first and token_secret(settings, tmp_path) == first
    secret_file = next(tmp_path.iterdir())
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600


def test_configured_secret_wins_over_the_file(tmp_path: Path) -> None:
    assert token_secret(ApiSettings(token_secret="configured"), tmp_path) == "configured"
    assert not list(tmp_path.iterdir())


def test_verify_access_token_accepts_settings() -> None:
    settings = ApiSettings(token_secret="shared-secret", access_token_ttl_s=60)
    token, _ = TokenCodec("shared-secret", ttl_s=60).issue(ALICE)
    assert verify_access_token(settings, token).user_name == "alice"
    with pytest.raises(AuthError):
        verify_access_token(ApiSettings(token_secret="other"), token)
