"""Cost of the same-second accounting on the positions path (``split_same_second``, streams/fix_batches.py,
streams/gps_sql.py when measured): CPU per position of the in-batch de-duplication before (a set of
(device, second) keys) and after (a dict keeping the first fix, and comparing a repeat with it), in the
same run on the same batches.

    .venv/bin/python benchmarks/same_second_bench.py --batch 2000 --rounds 200 --repeat-share 0.01

The batches are what the worker's positions step gets: one fix per terminal, ``--repeat-share`` of them
sent twice (a resend whose ack was lost). The database side is unchanged for a batch that stores: only
the fallback after a COPY conflict (a replay) runs one more SELECT of the conflicting keys.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from streams.fix_batches import split_same_second
from streams.messages import Fix


def before(fixes: Iterable[Fix]) -> list[Fix]:
    """The de-duplication the positions step ran before: the first fix per key, nothing counted."""
    seen: set[tuple[int, Any]] = set()
    out: list[Fix] = []
    for fix in fixes:
        key = (fix.device_id, fix.fix_at)
        if key not in seen:
            seen.add(key)
            out.append(fix)
    return out


def batch(size: int, repeat_share: float, rng: random.Random) -> list[Fix]:
    now = datetime.now(UTC).replace(microsecond=0)
    fixes = [Fix(i, i, 1, now - timedelta(seconds=rng.randint(0, 30)), 30 + rng.random(), 116 + rng.random(), 50.0,
                 40.0, 90, 0, 3, 1000.0, None, {}, now) for i in range(size)]
    fixes += rng.sample(fixes, int(size * repeat_share))
    return fixes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeat-share", type=float, default=0.01)
    args = parser.parse_args()
    rng = random.Random(7)
    batches = [batch(args.batch, args.repeat_share, rng) for _ in range(20)]
    positions = sum(len(b) for b in batches) * (args.rounds // 20)
    results = {}
    for name, fn in (("before", before), ("after", lambda b: split_same_second(b)[0]), ("before again", before)):
        started = time.process_time()
        for _ in range(args.rounds // 20):
            for b in batches:
                fn(b)
        results[name] = (time.process_time() - started) / positions * 1e6
    for name, us in results.items():
        print(f"{name:>13}: {us:.3f} µs CPU per position ({positions:,} positions)")


if __name__ == "__main__":
    main()
