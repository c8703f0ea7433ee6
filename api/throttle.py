"""Login throttling policy, pure: which keys an attempt counts against and what one more attempt does.

An attempt is counted BEFORE the password is checked (the caller holds the keys' row locks), so N
concurrent guesses can never be evaluated more than the limit allows; a success refunds it. Keys:

- the account name from that address: a guesser backs off without locking the owner out;
- the address (any user names), only for addresses the account never signed in from: bounds what
  one address can try, and so the rows it can create, while everyone who signed in from it before
  (the colleagues behind one NAT or proxy) still gets in after an attacker there used it up;
- the account name from everywhere, only for addresses the account never signed in from: many
  addresses guessing one account make new addresses back off (the console would show a captcha),
  while the owner's known addresses still get in.

Addresses are keyed by ``api.addresses.address_key`` (an IPv6 client by its /64); behind a trusted
proxy the address is the forwarded client's (``api.addresses``), never the proxy's.

Names are keyed by a hash, known or not, so unknown names are throttled exactly like known ones.
After ``max_failures`` a key is blocked for ``backoff_s``, doubling with every further failure up
to ``max_block_s``; failures are forgotten ``window_s`` after the first one, unless blocked.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from api.addresses import address_key

ADDRESS, ACCOUNT, PAIR = "1addr", "2acct", "3pair"  # lock order: keys are taken sorted


@dataclass(frozen=True)
class Limit:
    max_failures: int
    window_s: float
    backoff_s: float
    max_block_s: float


@dataclass(frozen=True)
class Bucket:
    failures: int
    window_start: datetime
    blocked_until: datetime | None = None
    refused: int = 0  # attempts refused since the block was set (only the first is audited)

    def expires_at(self, window_s: float) -> datetime:
        end = self.window_start + timedelta(seconds=window_s)
        return max(end, self.blocked_until) if self.blocked_until else end


def seconds_blocked(bucket: Bucket | None, now: datetime) -> int:
    """Whole seconds the key still has to wait (0: it may try)."""
    if bucket is None or bucket.blocked_until is None or bucket.blocked_until <= now:
        return 0
    return max(1, int((bucket.blocked_until - now).total_seconds() + 0.999))


def current(bucket: Bucket | None, now: datetime, limit: Limit) -> Bucket:
    """The bucket as of ``now``: a fresh one when its failures are older than the window."""
    if bucket is None or (
        now - bucket.window_start > timedelta(seconds=limit.window_s) and not seconds_blocked(bucket, now)
    ):
        return Bucket(failures=0, window_start=now)
    return bucket


def count_attempt(bucket: Bucket | None, now: datetime, limit: Limit) -> Bucket | None:
    """The bucket with one more attempt counted, or None when the key is blocked (refuse it).

    The attempt that reaches ``max_failures`` is still admitted, and blocks the next one."""
    state = current(bucket, now, limit)
    if seconds_blocked(state, now):
        return None
    failures = state.failures + 1
    blocked_until = None
    if failures >= limit.max_failures:
        over = failures - limit.max_failures
        block_s = min(limit.max_block_s, limit.backoff_s * 2 ** min(over, 30))
        blocked_until = now + timedelta(seconds=block_s)
    return Bucket(failures=failures, window_start=state.window_start, blocked_until=blocked_until)


def refused(bucket: Bucket) -> Bucket:
    return replace(bucket, refused=bucket.refused + 1)


def refund(bucket: Bucket) -> Bucket:
    """A successful login gives its counted attempt back (never below zero, the block stays)."""
    return replace(bucket, failures=max(0, bucket.failures - 1))


def name_key(user_name: str) -> str:
    return hashlib.sha256(user_name.encode("utf-8", "replace")).hexdigest()[:32]


def keys_for(user_name: str, address: str, *, known_address: bool) -> list[tuple[str, str]]:
    """[(kind, key)] in lock order; the address and account-wide keys only for an address not
    known to the account (its owner's known addresses answer to the pair key alone)."""
    net, name = address_key(address), name_key(user_name)
    keys = [] if known_address else [(ADDRESS, f"{ADDRESS}:{net}"), (ACCOUNT, f"{ACCOUNT}:{name}")]
    keys.append((PAIR, f"{PAIR}:{name}:{net}"))
    return keys
