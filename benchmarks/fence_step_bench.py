"""Cost of the uplinks step "fences" (streams/fences.py), the whole step: worker CPU per position, before
(the code at ``--before``) and after (this tree), in one run on the same batches.

    .venv/bin/python benchmarks/fence_step_bench.py --before a941a1c [--fences 10000] [--vehicles 10000]
        [--rounds 10] [--repeat 3]

The scenario is benchmarks/fence_check_bench.py's (10,000 fences over Guangdong, 10,000 vehicles each bound
to 3-8 of them, a fix every 30 s: 10,000 positions/s), handed to the step as the pipeline hands it a batch
of ``batch_size`` (500) parsed uplinks: ``Uplink`` + ``Fix`` objects of 0x0200s. Measured with
``time.process_time()`` around ``FenceStep.run``: building the check's input, the check, the events' alarm
rows and push data, the kept states' JSON and the statements' parameters (``insert_params``), i.e. all the
worker does but the round trips to PostgreSQL (its CPU is the database's): the database calls are
replaced by recorders. Each side runs in its own process (``git archive`` of ``--before`` for the before
side), alternating, best of ``--repeat``, with the streams worker's garbage collector settings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def measure(n_fences: int, n_vehicles: int, n_rounds: int) -> dict[str, Any]:
    """In this process, with the code on sys.path: CPU per position of the whole step."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import orjson
    from fence_check_bench import rounds, scenario

    from fleet.gc_tuning import tune_gc
    from fleet.geofence import FenceChecker
    from fleet.geofence.rules import utc
    from fleet.settings import StreamsSettings
    from protocols.jt808.catalogue import LOCATION_REPORT
    from streams import fences as step_module
    from streams.alarm_model import insert_params
    from streams.fences import FenceStep
    from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED, Fix, Uplink

    fences, bindings, starts, rng = scenario(n_fences, n_vehicles)
    t = time.process_time()
    checker = FenceChecker(fences, bindings)
    build_s = time.process_time() - t
    received = datetime(2026, 12, 1, 2, 10, tzinfo=UTC)
    batches: list[tuple[list[Uplink], list[list[Fix]]]] = []
    for positions in rounds(starts, rng, n_rounds):
        for i in range(0, len(positions), 500):
            uplinks, fixes = [], []
            for p in positions[i:i + 500]:
                uplinks.append(Uplink(f"0{p.device_id:011d}", p.device_id, p.device_id, 1, LOCATION_REPORT, received, {}))
                fixes.append([Fix(p.device_id, p.device_id, 1, p.at, p.lat, p.lng, 50.0, p.speed_kmh, 0, 0,
                                  STATUS_ACC_ON | STATUS_POSITIONED, None, None, {}, received)])
            batches.append((uplinks, fixes))
    written = {"rows": 0, "states": 0}
    state_rows = getattr(step_module, "state_rows", None)

    class Bench(FenceStep):
        """The step with its round trips replaced by the client-side work they need."""

        async def refresh(self, force: bool = False) -> FenceChecker:
            return checker

        async def _read_states(self, devices: set[int]) -> None:
            self.read |= devices

        async def _write(self, episodes, ends, refines, states, devices):  # type: ignore[no-untyped-def]
            insert_params(episodes, devices)
            ids = sorted(states)
            if state_rows is None:  # the step before: every state's JSON and fix time made here
                [orjson.dumps(states[d].to_json()).decode() for d in ids]
                [utc(states[d].last_at) for d in ids]
            else:
                state_rows(states, ids, self.gap_texts)
            written["rows"] += len(episodes)
            written["states"] += len(states)
            return []

    async def sink(topic: str, key: bytes | None, value: bytes) -> None:
        return None

    tune_gc(StreamsSettings().gc_threshold)
    step = Bench(None, sink)  # type: ignore[arg-type]
    step.checker, step.names = checker, {f.fence_id: f.name for f in fences}

    async def run_all() -> float:
        cpu = 0.0
        for uplinks, fixes in batches:
            t = time.process_time()
            await step.run(uplinks, fixes)
            cpu += time.process_time() - t
        return cpu

    cpu = asyncio.run(run_all())
    n = sum(len(u) for u, _ in batches)
    return {"us": cpu / n * 1e6, "positions": n, "rows": written["rows"], "states": written["states"],
            "build_s": build_s}


def tree_of(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "fence_step_bench.py"), "--measure",
                          "--fences", str(args.fences), "--vehicles", str(args.vehicles), "--rounds", str(args.rounds)],
                         check=True, capture_output=True, text=True, env=env, cwd=tree)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="a941a1c", help="git revision of the step before")
    parser.add_argument("--fences", type=int, default=10_000)
    parser.add_argument("--vehicles", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="alternating before/after runs (the best of each)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.fences, args.vehicles, args.rounds)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": tree_of(args.before, Path(tmp) / "before"), "after": REPO}
        best: dict[str, dict[str, Any]] = {}
        for _ in range(args.repeat):
            for side, tree in trees.items():
                r = child(tree, args)
                if side not in best or r["us"] < best[side]["us"]:
                    best[side] = r
    print(f"fences {args.fences}, vehicles {args.vehicles}, rounds {args.rounds}, before {args.before}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"| code | CPU us per position (whole step, best of {args.repeat}) | positions | alarm rows | states written |")
    print("|---|---|---|---|---|")
    for side, r in best.items():
        print(f"| {side} | {r['us']:.1f} | {r['positions']:,} | {r['rows']:,} | {r['states']:,} |")


if __name__ == "__main__":
    main()
