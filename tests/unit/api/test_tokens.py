"""Access tokens: signing, expiry, forgery; the token secret file; the Principal round trip."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from api.auth import AuthError, Principal, SessionGuard, TokenCodec, token_secret, verify_access_token
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


def test_verify_access_token_accepts_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    import api.auth

    monkeypatch.setattr(api.auth, "_guard_of", lambda settings: SessionGuard(lambda uid: (0, True), ttl_s=15))
    settings = ApiSettings(token_secret="shared-secret", access_token_ttl_s=60)
    token, _ = TokenCodec("shared-secret", ttl_s=60).issue(ALICE)
    assert verify_access_token(settings, token).user_name == "alice"
    with pytest.raises(AuthError):
        verify_access_token(ApiSettings(token_secret="other"), token)


# --- session epoch and revocation -------------------------------------------------


def test_token_carries_the_session_epoch() -> None:
    codec = TokenCodec("s3cret", ttl_s=60, clock=Clock())
    token, _ = codec.issue(ALICE, session_epoch=4)
    principal, epoch = codec.decode(token)
    assert principal.user_id == 7 and epoch == 4


class Users:
    """A stand-in for the database's session state: {user_id: (epoch, active)}; counts look-ups."""

    def __init__(self) -> None:
        self.state: dict[int, tuple[int, bool]] = {7: (0, True)}
        self.lookups = 0

    def __call__(self, user_id: int) -> tuple[int, bool] | None:
        self.lookups += 1
        return self.state.get(user_id)


def test_guard_refuses_a_moved_epoch_an_inactive_or_a_deleted_user_after_the_ttl() -> None:
    users, clock = Users(), Clock(0.0)
    guard = SessionGuard(users, ttl_s=1.0, clock=clock)
    guard.check(7, 0)
    users.state[7] = (1, True)  # e.g. the password changed
    guard.check(7, 0)  # still cached
    clock.now += 1.0
    with pytest.raises(AuthError) as info:
        guard.check(7, 0)
    assert info.value.code == 40002 and "revoked" in info.value.message
    guard.check(7, 1)
    users.state[7] = (1, False)
    clock.now += 1.0
    with pytest.raises(AuthError):
        guard.check(7, 1)
    del users.state[7]
    clock.now += 1.0
    with pytest.raises(AuthError):
        guard.check(7, 1)


def test_guard_accepts_at_once_a_token_signed_after_a_bump_it_has_not_seen() -> None:
    """A user whose permissions changed signs in again: the new token carries the new epoch while the
    cache still holds the old one; the new token works at once (the cache is looked up again) and the
    old one stays refused."""
    users, clock = Users(), Clock(0.0)
    guard = SessionGuard(users, ttl_s=15.0, clock=clock)
    guard.check(7, 0)
    users.state[7] = (1, True)  # a role changed: epoch bumped, the user signs in again
    guard.check(7, 1)
    assert users.lookups == 2
    with pytest.raises(AuthError):
        guard.check(7, 0)  # the token from before the change
    with pytest.raises(AuthError):
        guard.check(7, 5)  # a forged future epoch is looked up and refused, not trusted
    assert users.lookups == 3


def test_guard_looks_a_user_up_once_per_ttl() -> None:
    users, clock = Users(), Clock(0.0)
    guard = SessionGuard(users, ttl_s=15.0, clock=clock)
    for _ in range(100):
        guard.check(7, 0)
    assert users.lookups == 1


def test_guard_memory_is_bounded_whatever_user_ids_arrive() -> None:
    users = Users()
    guard = SessionGuard(users, ttl_s=15.0, clock=Clock(0.0), max_entries=50)
    for user_id in range(1000):
        with pytest.raises(AuthError):
            guard.check(10_000 + user_id, 0)
    assert len(guard._cache) <= 50


def test_verify_access_token_checks_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    import api.auth

    users = Users()
    monkeypatch.setattr(api.auth, "_guard_of", lambda settings: SessionGuard(users, ttl_s=15))
    settings = ApiSettings(token_secret="shared-secret", access_token_ttl_s=60)
    token, _ = TokenCodec("shared-secret", ttl_s=60).issue(ALICE, session_epoch=0)
    assert verify_access_token(settings, token).user_id == 7
    users.state[7] = (2, True)
    stale, _ = TokenCodec("shared-secret", ttl_s=60).issue(ALICE, session_epoch=0)
    monkeypatch.setattr(api.auth, "_guard_of", lambda settings: SessionGuard(users, ttl_s=0))
    with pytest.raises(AuthError):
        verify_access_token(settings, stale)


def test_an_unknown_name_waits_one_checks_time_not_the_dummy_hash_made_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first unknown name checks against the dummy hash to measure a check; the dummy hash is made once per
    process, and its making is not counted as the check's time (every later unknown name waits that time)."""
    import time

    import api.tokens
    from api.tokens import TokenService

    def slow_dummy_hash() -> str:
        time.sleep(0.3)
        return "dummy"

    monkeypatch.setattr(api.tokens, "dummy_hash", slow_dummy_hash)
    monkeypatch.setattr(api.tokens, "verify_password", lambda password_hash, password: password_hash == "dummy")
    service = TokenService(None, TokenCodec("s3cret", ttl_s=60), ApiSettings(token_secret="s3cret"))  # type: ignore[arg-type]
    assert service._verify(None, "guess", known=False) is False  # the dummy hash matches; the name is still unknown
    assert service._check_s is not None and service._check_s < 0.1
