"""The OAuth2-style token endpoint logic: password grant, refresh grant (rotating), throttling.

Failure modes: wrong user name or password -> InvalidCredentials (the reply never says which);
throttled account -> TooManyAttempts naming the wait; unknown, used, revoked or expired refresh
token -> AuthError (40002, the console signs in again).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import Connection

from api.auth import Principal, TokenCodec
from api.db import Database
from api.errors import AuthError, InvalidCredentials, TooManyAttempts
from api.throttle import ThrottleState, after_failure, seconds_locked
from fleet.settings import ApiSettings
from warehouse.passwords import dummy_hash, verify_password
from warehouse.queries import auth as q


def _utcnow() -> datetime:
    return datetime.now(UTC)


def hash_refresh_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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

    def password_grant(self, user_name: str, password: str) -> dict[str, Any]:
        if not user_name or not password:
            raise InvalidCredentials("用户名和密码不能为空 (user name and password are required)")
        now = self._clock()
        with self._db.connection() as conn:
            wait_s = seconds_locked(self._state(conn, user_name), now)
            if wait_s:
                raise TooManyAttempts(self._locked_message(wait_s), data={"retryAfter": wait_s})
            account = q.account_by_user_name(conn, user_name)
        # Verify outside the transaction: argon2 is deliberately slow and holds no lock.
        ok = verify_password(account.password_hash if account else dummy_hash(), password)
        with self._db.connection() as conn:
            if ok and account is not None and account.active:
                q.clear_login_failures(conn, user_name)
                return self._issue(conn, account.user_id, family=secrets.token_hex(12), now=now)
            state = self._record_failure(conn, user_name, now)
        # The failure is committed before we answer (raising inside the block would roll it back).
        wait_s = seconds_locked(state, now)
        if wait_s:
            raise TooManyAttempts(self._locked_message(wait_s), data={"retryAfter": wait_s})
        raise InvalidCredentials()

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

    def _issue(self, conn: Connection[Any], user_id: int, *, family: str, now: datetime) -> dict[str, Any]:
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
        access_token, _ = self._codec.issue(principal)
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

    @staticmethod
    def _state(conn: Connection[Any], user_name: str, *, for_update: bool = False) -> ThrottleState | None:
        row = q.login_failure_state(conn, user_name, for_update=for_update)
        return None if row is None else ThrottleState(*row)

    def _record_failure(self, conn: Connection[Any], user_name: str, now: datetime) -> ThrottleState:
        q.lock_login_failure_row(conn, user_name, now)
        current = self._state(conn, user_name, for_update=True)
        if current is not None and current.failures == 0 and current.locked_until is None:
            current = None  # the row was just created
        state = after_failure(
            current, now, max_failures=self._settings.login_max_failures, lockout_s=self._settings.login_lockout_s
        )
        q.save_login_failure_state(conn, user_name, state.failures, state.first_failed_at, state.locked_until)
        return state

    @staticmethod
    def _locked_message(wait_s: int) -> str:
        return f"登录失败次数过多，请 {wait_s} 秒后再试 (too many failed logins; try again in {wait_s} s)"
