"""Login throttling policy, pure: what a failure or a login attempt does to an account's state.

``max_failures`` failed logins within ``lockout_s`` of the first lock the account name for
``lockout_s``; while locked even the right password is refused (that is what stops guessing).
A successful login clears the state. The state lives in ``api_login_failure`` so every worker
process sees the same counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class ThrottleState:
    failures: int
    first_failed_at: datetime
    locked_until: datetime | None = None


def seconds_locked(state: ThrottleState | None, now: datetime) -> int:
    """Whole seconds the account still has to wait (0: it may try)."""
    if state is None or state.locked_until is None or state.locked_until <= now:
        return 0
    return max(1, int((state.locked_until - now).total_seconds() + 0.999))


def after_failure(
    state: ThrottleState | None, now: datetime, *, max_failures: int, lockout_s: int
) -> ThrottleState:
    """The state after one more failed login at ``now``."""
    window = timedelta(seconds=lockout_s)
    if state is None or now - state.first_failed_at > window or (
        state.locked_until is not None and state.locked_until <= now
    ):
        state = ThrottleState(failures=0, first_failed_at=now)
    failures = state.failures + 1
    if failures >= max_failures:
        return ThrottleState(failures=failures, first_failed_at=state.first_failed_at, locked_until=now + window)
    return ThrottleState(failures=failures, first_failed_at=state.first_failed_at)
