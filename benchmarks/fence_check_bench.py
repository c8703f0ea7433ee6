"""Platform fence check (fleet.geofence.FenceChecker), pure: CPU per position of the check alone, for
both spatial indexes (shapely 2 STRtree over prepared geometries, H3 cells).

10,000 fences over a province-sized box (Guangdong, 109.7-117.2 E, 20.2-25.5 N): circles of 100 m - 2 km,
rectangles and polygons of 0.5-10 km (a tenth with a hole), bus routes of 3-8 segments (1-4 km each,
corridor 50-200 m) and district-like areas of 20-60 km across with 200 vertices; 10,000 vehicles each
bound to 3-8 fences, starting next to one of them; fixes 30 s apart at 20-90 km/h, in batches of 500
(the uplinks agent's ``batch_size``). CPU is ``time.process_time()`` around ``check`` only, with the
streams worker's garbage collector settings (``FLEET_STREAMS_GC_THRESHOLD``, fleet/gc_tuning.py).

    .venv/bin/python benchmarks/fence_check_bench.py [--fences 10000] [--vehicles 10000] [--rounds 10]
        [--index strtree,h3] [--h3-resolution 8] [--repeat 5]

H3 is the comparison, not a dependency: `.venv/bin/pip install h3==4.5.0` to measure it.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import random
import resource
import statistics
import time
from datetime import UTC, datetime, timedelta

from fleet.gc_tuning import tune_gc
from fleet.geofence import (
    Attr,
    Circle,
    Fence,
    FenceChecker,
    FenceType,
    Position,
    Rectangle,
    Route,
    RouteSegment,
    VehicleState,
    polygon,
)
from fleet.settings import StreamsSettings

WEST, SOUTH, EAST, NORTH = 109.7, 20.2, 117.2, 25.5
M_PER_DEG = 111_195.0
IN_OUT = frozenset({Attr.IN_TO_PLATFORM, Attr.OUT_TO_PLATFORM})


def offset(lng: float, lat: float, east_m: float, north_m: float) -> tuple[float, float]:
    return lng + east_m / (M_PER_DEG * math.cos(math.radians(lat))), lat + north_m / M_PER_DEG


def ring(rng: random.Random, lng: float, lat: float, radius_m: float, n: int) -> list[tuple[float, float]]:
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))  # a star: one radius per vertex, no crossing
    radii = [radius_m * rng.uniform(0.7, 1.0) for _ in angles]
    return [offset(lng, lat, r * math.cos(a), r * math.sin(a)) for a, r in zip(angles, radii, strict=True)]


def make_fence(rng: random.Random, fid: int) -> tuple[Fence, tuple[float, float]]:
    lng, lat = rng.uniform(WEST, EAST), rng.uniform(SOUTH, NORTH)
    kind = rng.random()
    if kind < 0.40:
        return Fence(fid, f"c{fid}", FenceType.ALARM, Circle((lng, lat), rng.uniform(100, 2000)), attributes=IN_OUT), (lng, lat)
    if kind < 0.55:
        half = rng.uniform(250, 2500)
        top_left, bottom_right = offset(lng, lat, -half, half), offset(lng, lat, half, -half)
        return Fence(fid, f"r{fid}", FenceType.OVERSPEED, Rectangle(top_left, bottom_right), speed_limit_kmh=60,
                     overspeed_s=10), (lng, lat)
    if kind < 0.75:
        radius = rng.uniform(500, 5000)
        shell = ring(rng, lng, lat, radius, rng.randint(6, 20))
        holes = [ring(rng, lng, lat, radius * 0.2, 6)] if rng.random() < 0.1 else []
        fence_type = FenceType.STAY if rng.random() < 0.3 else FenceType.ALARM
        return Fence(fid, f"p{fid}", fence_type, polygon(shell, *holes), attributes=IN_OUT, stay_limit_s=600), (lng, lat)
    if kind < 0.95:
        points, heading = [(lng, lat)], rng.uniform(0, 2 * math.pi)
        segments = []
        for _ in range(rng.randint(3, 8)):
            heading += rng.uniform(-0.8, 0.8)
            length = rng.uniform(1000, 4000)
            nxt = offset(*points[-1], length * math.cos(heading), length * math.sin(heading))
            segments.append(RouteSegment((points[-1], nxt), rng.uniform(50, 200), min_time_s=60, max_time_s=900,
                                         speed_limit_kmh=60))
            points.append(nxt)
        return Fence(fid, f"b{fid}", FenceType.ROUTE, Route(tuple(segments))), (lng, lat)
    shell = ring(rng, lng, lat, rng.uniform(10_000, 30_000), 200)
    return Fence(fid, f"d{fid}", FenceType.ALARM, polygon(shell), attributes=IN_OUT), (lng, lat)


def scenario(n_fences: int, n_vehicles: int, seed: int = 25):
    rng = random.Random(seed)
    made = [make_fence(rng, fid) for fid in range(1, n_fences + 1)]
    fences = [f for f, _ in made]
    anchors = {f.fence_id: a for f, a in made}
    bindings: dict[int, list[int]] = {}
    starts: dict[int, tuple[float, float, float, float]] = {}
    for device in range(1, n_vehicles + 1):
        bound = rng.sample(range(1, n_fences + 1), rng.randint(3, 8))
        bindings[device] = bound
        lng, lat = offset(*anchors[bound[0]], rng.uniform(-3000, 3000), rng.uniform(-3000, 3000))
        starts[device] = (lng, lat, rng.uniform(0, 2 * math.pi), rng.uniform(20, 90))
    return fences, bindings, starts, rng


def rounds(starts, rng: random.Random, n_rounds: int) -> list[list[Position]]:
    t0 = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
    state = dict(starts)
    out = []
    for r in range(n_rounds):
        at = t0 + timedelta(seconds=30 * r)
        batch = []
        for device, (lng, lat, heading, speed) in state.items():
            step = speed / 3.6 * 30
            lng, lat = offset(lng, lat, step * math.cos(heading), step * math.sin(heading))
            heading += rng.uniform(-0.5, 0.5)
            speed = min(110.0, max(0.0, speed + rng.uniform(-15, 15)))
            state[device] = (lng, lat, heading, speed)
            batch.append(Position(device, at, lng, lat, speed))
        out.append(batch)
    return out


def run(index: str, fences, bindings, batches, resolution: int, repeat: int) -> dict[str, float]:
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.process_time()
    checker = FenceChecker(fences, bindings, index=index, h3_resolution=resolution)
    build_s = time.process_time() - t
    # the streams worker's collector settings (streams/__main__.py): the fences, loaded at start, frozen
    tune_gc(StreamsSettings().gc_threshold)
    per_run = []
    for _ in range(repeat):  # fresh states each time: the same work, so the spread is the machine's
        states: dict[int, VehicleState] = {}
        cpu = 0.0
        events = positions = 0
        for batch in batches:
            for i in range(0, len(batch), 500):
                chunk = batch[i:i + 500]
                t = time.process_time()
                events += len(checker.check(chunk, states).events)
                cpu += time.process_time() - t
                positions += len(chunk)
        per_run.append(cpu / positions * 1e6)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"build_s": build_s, "us": statistics.median(per_run), "min_us": min(per_run), "max_us": max(per_run),
            "positions": positions, "events": events,
            "rss_mb": max(rss - rss0, 0) / 1024, "invalid": len(checker.invalid)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fences", type=int, default=10_000)
    parser.add_argument("--vehicles", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--index", default="strtree,h3")
    parser.add_argument("--h3-resolution", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5, help="runs over the same fixes; the median is reported")
    args = parser.parse_args()
    fences, bindings, starts, rng = scenario(args.fences, args.vehicles)
    batches = rounds(starts, rng, args.rounds)
    print(f"fences {args.fences}, vehicles {args.vehicles}, rounds {args.rounds}, load {os.getloadavg()[0]:.1f}")
    print("| index | build s | CPU us per position, median (min-max) | positions | events | RSS growth MiB | invalid fences |")
    print("|---|---|---|---|---|---|---|")
    for index in args.index.split(","):
        if index == "h3" and importlib.util.find_spec("h3") is None:
            print("| h3 | (not installed: `.venv/bin/pip install h3==4.5.0` for the comparison) |")
            continue
        r = run(index, fences, bindings, batches, args.h3_resolution, args.repeat)
        name = index if index != "h3" else f"h3 (res {args.h3_resolution})"
        print(f"| {name} | {r['build_s']:.1f} | {r['us']:.1f} ({r['min_us']:.1f}-{r['max_us']:.1f}) | {r['positions']:,} | "
              f"{r['events']:,} | "
              f"{r['rss_mb']:.0f} | {r['invalid']} |")


if __name__ == "__main__":
    main()
