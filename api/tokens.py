"""The OAuth2-style token endpoint logic: password grant, refresh grant (rotating), throttling.

Failure modes: wrong user name or password -> InvalidCredentials (the reply never says which);
throttled (``api.throttle``: per account and address; per address and per account for addresses
the account never signed in from) -> TooManyAttempts with ``data = {retryAfter, captchaRequired}``;
no free slot for the password check -> Unavailable (503); unknown, used, revoked or expired refresh
token, or one of a user who changed the password since -> AuthError (40002, the console signs in
again). Client credentials past their rate (``api.token_rate``) -> TooManyAttempts.

Password checks (argon2id, 64 MiB each) run in two lanes so a flood never delays a genuine login:
an unknown user name takes no slot at all (it waits as long as a real check takes, without the
CPU or memory, so the timing still does not tell which names exist); an account signing in from an
address it signed in from before has a lane of its own (``login_known_verify_concurrency``) beside
the shared one (``login_verify_concurrency``), so wrong passwords on existing accounts from new
addresses cannot hold its owner up either.

Every failed or refused login is audited in ``api_login_audit`` (time, name, address, reason);
refusals only once per block, so a flood of refused attempts costs no rows.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import Connection

from api.auth import Principal, TokenCodec
from api.db import Database
from api.errors import AuthError, InvalidCredentials, TooManyAttempts, Unavailable
from api.offload import Offloader
from api.throttle import (
    ACCOUNT,
    Bucket,
    Limit,
    address_key,
    count_attempt,
    current,
    keys_for,
    refund,
    refused,
    seconds_blocked,
)
from api.token_rate import TokenRate
from fleet.settings import ApiSettings
from warehouse.passwords import dummy_hash, hash_password
from warehouse.passwords import verify_password_or_dummy as verify_password
from warehouse.queries import auth as q

log = logging.getLogger("fleet.api.login")
SWEEP_INTERVAL_S = 60.0
MAX_NAME_CHARS = 128
MAX_PASSWORD_CHARS = 256
MAX_IMITATION_S = 1.0  # an unknown name never waits longer than this, whatever a check took


def _utcnow() -> datetime:
    return datetime.now(UTC)


def hash_refresh_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Admission:
    """The outcome of counting one login attempt before its password is checked."""

    admitted: bool
    wait_s: int  # refused: how long to wait; admitted: the wait a failure of this attempt sets
    captcha: bool  # the account-wide key is involved: a captcha would let a human through
    keys: tuple[tuple[str, str], ...]


class TokenService:
    def __init__(
        self,
        db: Database,
        codec: TokenCodec,
        settings: ApiSettings,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._db = db
        self._codec = codec
        self._settings = settings
        self._clock = clock
        self.shared_lane = Offloader(settings.login_verify_concurrency)
        self.known_lane = Offloader(settings.login_known_verify_concurrency)
        self._token_rate = TokenRate(settings.token_client_per_min, settings.token_address_per_min)
        self._check_s: float | None = None  # moving average of a real check's time (unknown names wait it)
        self._limits = {
            "1addr": self._limit(settings.login_address_max_failures),
            "2acct": self._limit(settings.login_account_max_failures),
            "3pair": self._limit(settings.login_max_failures),
        }
        self._last_sweep = 0.0
        self._sweep_lock = threading.Lock()

    def _limit(self, max_failures: int) -> Limit:
        s = self._settings
        return Limit(max(1, max_failures), s.login_lockout_s, s.login_backoff_s, s.login_lockout_s)

    def password_grant(self, user_name: str, password: str, address: str = "") -> dict[str, Any]:
        """Tokens for the right password; see the module doc for the failures."""
        if not user_name or not password:
            raise InvalidCredentials("用户名和密码不能为空 (user name and password are required)")
        if len(user_name) > MAX_NAME_CHARS or len(password) > MAX_PASSWORD_CHARS:
            raise InvalidCredentials()
        now = self._clock()
        account = self.check_password(user_name, password, address, now=now)
        with self._db.connection() as conn:
            return self._issue(conn, account.user_id, family=secrets.token_hex(12), now=now)

    def new_password_hash(self, password: str) -> str:
        """The argon2 hash of a new password, computed off the hub like every check. Raises
        Unavailable when every slot stays busy."""
        try:
            return self.shared_lane.run(hash_password, password)
        except TimeoutError:
            raise Unavailable("服务繁忙，请稍后再试 (too many password operations at once, try again shortly)") from None

    def check_password(
        self, user_name: str, password: str, address: str, *, now: datetime | None = None,
        wrong: Callable[[], Exception] = InvalidCredentials,
    ) -> q.UserAccount:
        """Counts the attempt, checks the password off the hub, and on success clears the
        account's failures from ``address`` and remembers the address. Raises TooManyAttempts
        (throttled), ``wrong()`` (wrong password, unknown or disabled user), Unavailable (busy)."""
        now = now or self._clock()
        self._sweep(now)
        with self._db.connection() as conn:
            account = q.account_by_user_name(conn, user_name)
            known = account is not None and q.is_known_address(conn, account.user_id, address_key(address))
            admission = self._count_attempt(conn, user_name, address, known, now)
        if not admission.admitted:
            raise self._throttled(admission)
        try:
            ok = self._verify(account, password, known)
        except TimeoutError:
            self._give_back(admission, now, success=False)
            raise Unavailable("登录繁忙，请稍后再试 (too many sign-ins at once, try again shortly)") from None
        if ok and account is not None and account.active:
            with self._db.connection() as conn:
                self._settle_success(conn, admission, now)
                q.remember_address(conn, account.user_id, address_key(address), now)
            return account
        reason = "unknown_user" if account is None else "wrong_password" if not ok else "disabled"
        with self._db.connection() as conn:
            q.audit_login(conn, now, user_name, address, reason)
        # Committed before we answer (raising inside the block would roll it back).
        if admission.wait_s:
            raise self._throttled(admission)
        raise wrong()

    def _verify(self, account: q.UserAccount | None, password: str, known: bool) -> bool:
        """The password check in its lane (module doc). An unknown name sleeps a real check's time
        (cooperatively under gevent) once one has been measured; the very first one still checks
        against the dummy hash to measure it."""
        if account is None and self._check_s is not None:
            time.sleep(min(self._check_s, MAX_IMITATION_S))
            return False
        lane = self.known_lane if known else self.shared_lane
        return bool(lane.run(self._timed_verify, account.password_hash if account else None, password))

    def _timed_verify(self, password_hash: str | None, password: str) -> bool:
        # The dummy hash is made once per process, outside the timing: counted in, the first unknown name's
        # check measured a hash and a check, and every unknown name then waited twice a real check's time.
        checked = password_hash if password_hash is not None else dummy_hash()
        started = time.perf_counter()
        ok = verify_password(checked, password) and password_hash is not None
        took = time.perf_counter() - started
        self._check_s = took if self._check_s is None else 0.8 * self._check_s + 0.2 * took
        return ok

    def _count_attempt(
        self, conn: Connection[Any], user_name: str, address: str, known: bool, now: datetime
    ) -> Admission:
        """Locks the attempt's keys in order and counts it on each; stops at the first blocked key
        (so a refused attempt creates no rows beyond it). Audits the first refusal of a block."""
        keys = keys_for(user_name, address, known_address=known)
        counted: list[tuple[str, str, Bucket]] = []
        wait_s, captcha = 0, False
        for kind, key in keys:
            limit = self._limits[kind]
            bucket = self._lock(conn, key, now, limit)
            after = count_attempt(bucket, now, limit)
            if after is None:
                blocked = refused(current(bucket, now, limit))
                self._save(conn, key, blocked, limit)
                if blocked.refused == 1:
                    q.audit_login(conn, now, user_name, address, "throttled")
                return Admission(False, seconds_blocked(blocked, now), kind == ACCOUNT, tuple(keys))
            counted.append((kind, key, after))
            wait_s = max(wait_s, seconds_blocked(after, now))
            captcha = captcha or (kind == ACCOUNT and after.blocked_until is not None)
        for kind, key, after in counted:
            self._save(conn, key, after, self._limits[kind])
        return Admission(True, wait_s, captcha, tuple(keys))

    def _settle_success(self, conn: Connection[Any], admission: Admission, now: datetime) -> None:
        """The account's failures from this address are forgiven; the other keys get the
        attempt back (their failures by others stay)."""
        self._give_back(admission, now, success=True, conn=conn)

    def _give_back(
        self, admission: Admission, now: datetime, *, success: bool, conn: Connection[Any] | None = None
    ) -> None:
        if conn is None:
            with self._db.connection() as own:
                self._give_back(admission, now, success=success, conn=own)
            return
        for kind, key in admission.keys:
            limit = self._limits[kind]
            if success and kind == "3pair":
                q.delete_throttle_row(conn, key)
                continue
            bucket = self._lock(conn, key, now, limit)
            if bucket is not None:
                after = refund(bucket)
                if success and after.failures < limit.max_failures:
                    after = Bucket(after.failures, after.window_start, None, 0)
                self._save(conn, key, after, limit)

    @staticmethod
    def _lock(conn: Connection[Any], key: str, now: datetime, limit: Limit) -> Bucket | None:
        failures, window_start, blocked_until, refused_n = q.lock_throttle_row(
            conn, key, now, now + timedelta(seconds=limit.window_s))
        if failures == 0 and blocked_until is None and refused_n == 0:
            return None  # new (or fully refunded) row
        return Bucket(failures, window_start, blocked_until, refused_n)

    @staticmethod
    def _save(conn: Connection[Any], key: str, bucket: Bucket, limit: Limit) -> None:
        q.save_throttle_row(conn, key, bucket.failures, bucket.window_start, bucket.blocked_until,
                            bucket.refused, bucket.expires_at(limit.window_s))

    def _throttled(self, admission: Admission) -> TooManyAttempts:
        wait_s = max(1, admission.wait_s)
        return TooManyAttempts(
            f"登录失败次数过多，请 {wait_s} 秒后再试 (too many failed logins; try again in {wait_s} s)",
            data={"retryAfter": wait_s, "captchaRequired": admission.captcha},
        )

    def _sweep(self, now: datetime) -> None:
        """At most once a minute per process: expired throttle rows and old audit rows go."""
        tick = time.monotonic()
        with self._sweep_lock:
            if tick - self._last_sweep < SWEEP_INTERVAL_S:
                return
            self._last_sweep = tick
        try:
            with self._db.connection() as conn:
                q.sweep_login_state(conn, now, now - timedelta(days=self._settings.login_audit_retention_days))
        except Exception as exc:  # the sweep is housekeeping; a login never fails because of it
            log.warning("login state sweep failed: %r", exc)

    def refresh_grant(self, refresh_token: str) -> dict[str, Any]:
        if not refresh_token or len(refresh_token) > 512:
            raise AuthError("refresh_token 无效 (refresh token missing or invalid)")
        now = self._clock()
        with self._db.connection() as conn:
            consumed = q.consume_refresh_token(conn, hash_refresh_token(refresh_token), now)
            if consumed is not None:
                user_id, family = consumed
                return self._issue(conn, user_id, family=family, now=now)
        # Committed: a family revoked because a used token came back stays revoked.
        raise AuthError("refresh_token 无效或已过期 (refresh token invalid, used or expired)")

    def check_client(self, client_id: str, client_secret: str, address: str = "") -> None:
        """Authorization protocol 2 (console-spec §7 "General"): the password and refresh grants'
        client authentication, an active open platform app's key and secret, rated and refused like
        ``client_credentials_grant``."""
        from api import open_platform

        open_platform.check_credentials_shape(client_id, client_secret)
        with self._db.connection() as conn:
            over = self._token_rate.count(conn, client_id, address)
        if over is not None:
            raise over
        with self._db.connection() as conn:
            open_platform.authenticate_app(conn, client_id, client_secret)

    def client_credentials_grant(self, client_id: str, client_secret: str, address: str = "") -> dict[str, Any]:
        """An open platform app's access token (``api.open_platform``): no refresh token, the app asks
        again. TooManyAttempts past the rate of ``api.token_rate`` (checked first, counted even for
        wrong credentials), InvalidCredentials for a wrong key or secret, Forbidden for a disabled app."""
        from api import open_platform

        open_platform.check_credentials_shape(client_id, client_secret)
        now = self._clock()
        with self._db.connection() as conn:
            over = self._token_rate.count(conn, client_id, address)
        if over is not None:
            raise over
        with self._db.connection() as conn:
            app = open_platform.authenticate_app(conn, client_id, client_secret)
        principal = Principal(
            user_id=0, user_name=f"app:{app.app_key}", enterprise_id=app.enterprise_id,
            enterprise_path=app.enterprise_path, permissions=open_platform.permissions_of(app.apis),
            app_id=app.app_id,
        )
        access_token, _ = self._codec.issue(principal, app.session_epoch)
        return {
            "access_token": access_token,
            "expires_in": self._codec.ttl_s,
            "create_time": int(now.timestamp() * 1000),
            "token_type": "bearer",
            "scope": ",".join(app.apis),
        }

    def password_principal(
        self, user_name: str, password: str, address: str = "", *,
        wrong: Callable[[], Exception] = InvalidCredentials,
    ) -> tuple[Principal, int]:
        """(principal, session epoch) for the right password, without issuing tokens: the
        authorization protocol 1's Basic credentials (``api.basic_auth``). The attempt is counted
        and throttled like a sign-in; the failures are ``password_grant``'s."""
        if not user_name or not password:
            raise wrong()
        if len(user_name) > MAX_NAME_CHARS or len(password) > MAX_PASSWORD_CHARS:
            raise wrong()
        account = self.check_password(user_name, password, address, wrong=wrong)
        with self._db.connection() as conn:
            return self._principal(conn, account.user_id)

    @staticmethod
    def _principal(conn: Connection[Any], user_id: int) -> tuple[Principal, int]:
        account = q.account_by_id(conn, user_id)
        if account is None or not account.active:
            raise AuthError("账号已停用 (account disabled)")
        principal = Principal(
            user_id=account.user_id,
            user_name=account.user_name,
            enterprise_id=account.enterprise_id,
            enterprise_path=account.enterprise_path,
            permissions=q.permissions_of(conn, account.user_id),
        )
        return principal, account.session_epoch

    def _issue(self, conn: Connection[Any], user_id: int, *, family: str, now: datetime) -> dict[str, Any]:
        principal, session_epoch = self._principal(conn, user_id)
        access_token, _ = self._codec.issue(principal, session_epoch)
        refresh_token = secrets.token_urlsafe(32)
        expires_at = now + timedelta(seconds=self._settings.refresh_token_ttl_s)
        q.store_refresh_token(conn, hash_refresh_token(refresh_token), user_id, family, expires_at)
        return {
            "access_token": access_token,
            "refresh_token": refresh_token,
            "expires_in": self._codec.ttl_s,
            "create_time": int(now.timestamp() * 1000),
            "token_type": "bearer",
        }
