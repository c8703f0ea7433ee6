"""How late real-time positions (0x1202) reach the regulator: receipt time minus fix time, as a
histogram (fixed buckets, so reading it costs the same at any rate).

A JT/T 809 fix time has whole seconds (the terminal's BCD time, or the 2011 record's), so a lag here is
the true one plus up to one second: an upper bound. Back-fills are not counted (they are late on purpose).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

# Upper edges in seconds; the last bucket is everything later.
EDGES_S = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)


class LagHistogram:
    def __init__(self) -> None:
        self.counts = [0] * (len(EDGES_S) + 1)
        self.total = 0
        self.max_s = 0.0

    def add(self, lag_s: float) -> None:
        self.counts[bisect_left(EDGES_S, lag_s)] += 1
        self.total += 1
        if lag_s > self.max_s:
            self.max_s = lag_s

    def at_most(self, share: float) -> float | None:
        """The bucket edge under which ``share`` of the lags fall (None when empty; inf beyond the last)."""
        if not self.total:
            return None
        need, seen = share * self.total, 0
        for edge, count in zip((*EDGES_S, float("inf")), self.counts, strict=True):
            seen += count
            if seen >= need:
                return edge
        return float("inf")

    def as_json(self) -> dict[str, Any]:
        def edge(share: float) -> float | str | None:
            value = self.at_most(share)
            return "inf" if value == float("inf") else value

        return {"positions": self.total, "p50_at_most_s": edge(0.5), "p99_at_most_s": edge(0.99),
                "max_s": round(self.max_s, 3),
                "buckets": {f"<={e:g}s": c for e, c in zip(EDGES_S, self.counts, strict=False)}
                | {f">{EDGES_S[-1]:g}s": self.counts[-1]}}
