"""Reconnect delays of the main link: exponential backoff with full jitter (no retry library is a dependency).

The n-th consecutive failure waits a random time in [0, min(cap, base * 2**n)] (at least ``floor``), so a
superior that restarts is not hit by every inferior platform in the same second, and a link that keeps failing
waits at most ``cap``. A successful login resets the count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Backoff:
    base_s: float = 1.0
    cap_s: float = 60.0
    floor_s: float = 0.2
    rng: random.Random = field(default_factory=random.Random)
    failures: int = 0

    def next_delay(self) -> float:
        """The wait before the next attempt; counts one more failure."""
        ceiling = min(self.cap_s, self.base_s * (2 ** min(self.failures, 32)))
        self.failures += 1
        return max(self.floor_s, self.rng.uniform(0, ceiling))

    def reset(self) -> None:
        self.failures = 0
