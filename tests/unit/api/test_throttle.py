"""Login throttling policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.throttle import ThrottleState, after_failure, seconds_locked

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def fail(times: int, start: datetime = T0, step_s: int = 1, state: ThrottleState | None = None) -> ThrottleState:
    for i in range(times):
        state = after_failure(state, start + timedelta(seconds=i * step_s), max_failures=3, lockout_s=60)
    assert state is not None
    return state


def test_locks_account_after_max_failures() -> None:
    assert seconds_locked(fail(2), T0 + timedelta(seconds=2)) == 0
    state = fail(3)
    assert seconds_locked(state, T0 + timedelta(seconds=2)) == 60


def test_lock_expires_after_lockout() -> None:
    state = fail(3)
    assert seconds_locked(state, T0 + timedelta(seconds=61)) == 1
    assert seconds_locked(state, T0 + timedelta(seconds=62)) == 0


def test_failures_outside_the_window_do_not_count() -> None:
    state = fail(2, step_s=1)
    state = after_failure(state, T0 + timedelta(seconds=200), max_failures=3, lockout_s=60)
    assert state.failures == 1 and seconds_locked(state, T0 + timedelta(seconds=200)) == 0


def test_counting_restarts_after_a_lock_expired() -> None:
    state = fail(3)
    state = after_failure(state, T0 + timedelta(seconds=120), max_failures=3, lockout_s=60)
    assert state.failures == 1 and state.locked_until is None


def test_unknown_account_has_no_lock() -> None:
    assert seconds_locked(None, T0) == 0
