"""Summarise a ``py-spy record --format raw`` profile (collapsed stacks): where the time goes.

    .venv/bin/python benchmarks/profile_summary.py PROFILE.raw [--top 25] [--idle]

Prints the share of samples per self frame (the function on top of the stack) and per inclusive
frame (anywhere on the stack), plus a few buckets named after the pipeline steps. Idle samples
(the event loop waiting in select/epoll) are left out unless ``--idle``: py-spy runs with
``--nonblocking`` and samples idle threads too. Used by ingest_bench.py --profile.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

IDLE = re.compile(r"\b(select|poll|epoll|_run_once|wait|sleep|_worker) \((selectors|threading|queue|"
                  r"concurrent/futures/thread)\.py")

# bucket name -> substrings of a frame (first match along the stack, leaf first)
BUCKETS: list[tuple[str, tuple[str, ...]]] = [
    ("json decode", ("json/decoder.py", "json/__init__.py:loads", "loads (json", "orjson")),
    ("parse/validate (fleet.uplink_messages / streams.validation)", ("fleet/uplink_messages.py", "streams/validation.py")),
    ("state rules + states agent", ("streams/state_rules.py", "streams/states.py")),
    ("live coalescing/console", ("streams/live.py", "streams/console.py")),
    # streams/gps_sql.py: where the batch shaping and the binary rows were before (older profiles)
    ("SQL parameter building (fix_batches, position_sink)", ("streams/fix_batches.py", "warehouse/queries/position_sink.py",
                                                             "warehouse/queries/arrays.py", "streams/gps_sql.py")),
    ("psycopg (adapt, send, wait)", ("psycopg/",)),
    ("aiokafka fetch/decode", ("aiokafka/",)),
    ("faust stream/agent machinery", ("faust/", "mode/")),
    ("asyncio loop", ("asyncio/",)),
]


def parse(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def bucket_of(frames: list[str]) -> str:
    for frame in reversed(frames):  # leaf first
        for name, needles in BUCKETS:
            if any(n in frame for n in needles):
                return name
    return "other"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("profile", type=Path)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--idle", action="store_true", help="count idle (waiting) samples too")
    args = p.parse_args(argv)
    stacks = parse(args.profile)
    busy = [(f, n) for f, n in stacks if args.idle or not IDLE.search(f[-1])]
    total = sum(n for _, n in stacks)
    busy_total = sum(n for _, n in busy) or 1
    print(f"{args.profile}: {total} samples, {busy_total} busy ({busy_total / max(total, 1):.0%})")
    self_c: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    buckets: Counter[str] = Counter()
    for frames, n in busy:
        self_c[frames[-1]] += n
        for frame in set(frames):
            incl[frame] += n
        buckets[bucket_of(frames)] += n
    print("\n## buckets (leaf-most match)")
    for name, n in buckets.most_common():
        print(f"{n / busy_total:6.1%}  {name}")
    print(f"\n## self time, top {args.top}")
    for frame, n in self_c.most_common(args.top):
        print(f"{n / busy_total:6.1%}  {frame}")
    print(f"\n## inclusive time, top {args.top} (project frames)")
    ours = [(f, n) for f, n in incl.items() if any(s in f for s in ("streams/", "gateway/", "protocols/"))]
    for frame, n in sorted(ours, key=lambda x: -x[1])[: args.top]:
        print(f"{n / busy_total:6.1%}  {frame}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
