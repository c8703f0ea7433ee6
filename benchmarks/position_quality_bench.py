"""Cost of the position-quality checks on the positions path: CPU per position of the worker's Python side of
one batch before (streams/validation.py and streams/gps_sql.py as they were at ``--before``, loaded from
git; they are streams/fix_batches.py and warehouse/queries/position_sink.py now) and after (the time
check, the teleport check of streams/plausibility.py, the flagged-fix counting and the 16th COPY field), in
the same run on the same parsed uplinks.

    .venv/bin/python benchmarks/position_quality_bench.py --terminals 2000 --rounds 60 --before merge4 --repeat 3

Each round is one batch: one 0x0200 per terminal, ten seconds after its previous one and ~100 m further
(so every fix runs the implied-speed check against a reference), ``--teleport-share`` of them a jump of
~500 km (flagged). Measured: classify every uplink, assess (after only), build the binary COPY of the rows
and device_last's rows. The database side gains one smallint column per row.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streams import fix_batches, payloads  # noqa: E402
from streams.messages import Uplink, parse_uplink  # noqa: E402
from streams.plausibility import TeleportGuard, count_flagged  # noqa: E402
from streams.validation import Limits, classify_uplink  # noqa: E402
from warehouse.queries import position_sink  # noqa: E402

ZONE = ZoneInfo("Asia/Shanghai")


def old_module(rev: str, path: str, name: str) -> ModuleType:
    """``path`` as it was at git revision ``rev``, loaded as module ``name`` (it imports today's others)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True, capture_output=True,
                            text=True).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)  # our own file, from git
    return module


def rounds_of(terminals: int, rounds: int, teleport_share: float, rng: random.Random) -> list[list[Uplink]]:
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=10 * rounds)
    start = [(30 + rng.random(), 116 + rng.random()) for _ in range(terminals)]
    out = []
    for r in range(rounds):
        at = base + timedelta(seconds=10 * r)
        batch = []
        for i, (lat, lng) in enumerate(start):
            jump = 5.0 if rng.random() < teleport_share else 0.0
            term = payloads.Terminal(f"0139{i:08d}", i + 1, i + 1, 1)
            value = payloads.location_report(term, fix_at=at, received_at=at + timedelta(seconds=1),
                                             lat=round(lat + 0.001 * r + jump, 6), lng=lng, speed_kmh=36.0)
            batch.append(parse_uplink(value))
        out.append(batch)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--terminals", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--teleport-share", type=float, default=0.001)
    parser.add_argument("--before", default="merge4", help="git revision of the code before")
    parser.add_argument("--repeat", type=int, default=3, help="alternating before/after runs (the best of each is kept)")
    args = parser.parse_args()
    old_validation = old_module(args.before, "streams/validation.py", "old_validation")
    old_sql = old_module(args.before, "streams/gps_sql.py", "old_gps_sql")
    batches = rounds_of(args.terminals, args.rounds, args.teleport_share, random.Random(7))
    limits = Limits(max_future_s=600, max_speed_kmh=250)
    old_limits = old_validation.Limits(max_future_s=600, max_speed_kmh=250)

    def before(batch: list[Uplink]) -> None:
        fixes = [f for u in batch for f in old_validation.classify_uplink(u, old_limits).fixes]
        rows = old_sql.split_same_second(fixes)[0]
        copy = old_sql.copy_data(rows)
        newest = old_sql.newest_per_device(rows)
        _ = copy if len(newest) == len(rows) else old_sql.copy_data(newest)

    guard = TeleportGuard(limits)

    def after(batch: list[Uplink]) -> None:
        fixes = [guard.assess(f) for u in batch for f in classify_uplink(u, limits).fixes]
        counts: dict[Any, int] = {}
        count_flagged(fixes, counts, ZONE)
        rows = fix_batches.split_same_second(fixes)[0]
        flagged = any(f.quality for f in rows)
        plausible = [f for f in rows if not f.quality] if flagged else rows
        copy = position_sink.copy_data(rows)
        newest = fix_batches.newest_per_device(plausible)
        _ = copy if not flagged and len(newest) == len(rows) else position_sink.copy_data(newest)

    for batch in batches:  # the memory of every device, as a running worker has it
        guard._reference.setdefault(batch[0].device_id, None)
    runs: list[tuple[str, Callable[[list[Uplink]], None]]] = [("before", before), ("after", after)] * args.repeat
    positions = sum(len(b) for b in batches)
    best: dict[str, float] = {}
    for name, fn in runs:
        guard.forget()
        for uplink in batches[0]:
            guard._reference[uplink.device_id] = None
        started = time.process_time()
        for batch in batches:
            fn(batch)
        us = (time.process_time() - started) / positions * 1e6
        best[name] = min(best.get(name, us), us)
        print(f"{name:>7}: {us:.3f} µs CPU per position ({positions:,} positions)")
    print(f"best of {args.repeat}: before {best['before']:.3f} µs, after {best['after']:.3f} µs, "
          f"difference {best['after'] - best['before']:.3f} µs per position")


if __name__ == "__main__":
    main()
