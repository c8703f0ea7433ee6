"""Login throttling policy: counting before the check, back-off, windows, keys, refunds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.throttle import (
    ACCOUNT,
    ADDRESS,
    PAIR,
    Bucket,
    Limit,
    address_key,
    count_attempt,
    keys_for,
    refund,
    seconds_blocked,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LIMIT = Limit(max_failures=3, window_s=300, backoff_s=10, max_block_s=60)


def attempts(times: int, start: datetime = T0, step_s: float = 0, bucket: Bucket | None = None) -> Bucket:
    for i in range(times):
        after = count_attempt(bucket, start + timedelta(seconds=i * step_s), LIMIT)
        assert after is not None, f"attempt {i + 1} was refused"
        bucket = after
    assert bucket is not None
    return bucket


def test_attempts_up_to_the_limit_are_admitted_and_the_last_blocks_the_next() -> None:
    assert seconds_blocked(attempts(2), T0) == 0
    third = attempts(3)
    assert seconds_blocked(third, T0) == 10
    assert count_attempt(third, T0 + timedelta(seconds=9), LIMIT) is None


def test_back_off_doubles_with_each_further_failure_up_to_the_cap() -> None:
    bucket = attempts(3)
    waits = []
    now = T0
    for _ in range(5):
        now += timedelta(seconds=seconds_blocked(bucket, now))
        after = count_attempt(bucket, now, LIMIT)
        assert after is not None
        bucket = after
        waits.append(seconds_blocked(bucket, now))
    assert waits == [20, 40, 60, 60, 60]


def test_failures_older_than_the_window_are_forgotten() -> None:
    bucket = attempts(2)
    later = count_attempt(bucket, T0 + timedelta(seconds=301), LIMIT)
    assert later is not None and later.failures == 1 and later.blocked_until is None


def test_a_refund_gives_back_one_attempt_but_never_below_zero() -> None:
    assert refund(attempts(2)).failures == 1
    assert refund(refund(attempts(1))).failures == 0


def test_expiry_covers_the_window_and_the_block() -> None:
    bucket = Bucket(failures=9, window_start=T0, blocked_until=T0 + timedelta(seconds=900))
    assert bucket.expires_at(300) == T0 + timedelta(seconds=900)
    assert Bucket(failures=1, window_start=T0).expires_at(300) == T0 + timedelta(seconds=300)


def test_keys_are_taken_address_first_and_the_address_and_account_keys_only_for_unknown_addresses() -> None:
    unknown = keys_for("admin", "203.0.113.9", known_address=False)
    assert [kind for kind, _ in unknown] == [ADDRESS, ACCOUNT, PAIR]
    assert [key for _, key in unknown] == sorted(key for _, key in unknown)
    # An address the account signed in from before answers to the pair key alone: others failing
    # from the same NAT or proxy (the address key) never lock its owner out.
    known = keys_for("admin", "203.0.113.9", known_address=True)
    assert [kind for kind, _ in known] == [PAIR]


def test_names_are_hashed_into_keys_of_fixed_size() -> None:
    long_name = "x" * 10_000
    for _, key in keys_for(long_name, "203.0.113.9", known_address=False):
        assert long_name not in key and len(key) < 120


def test_ipv6_clients_are_keyed_by_their_64_prefix() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert address_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_key("198.51.100.7") == "198.51.100.7"
