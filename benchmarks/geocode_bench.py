"""Reverse geocoding (fleet.geo): load time and memory of the offline data, lookups per second.

Runs in a fresh process so load time and resident memory are the geocoder's own:

    .venv/bin/python benchmarks/geocode_bench.py [--points 200000] [--seed 7]

Cases: points uniform in China's bounding box (many fall outside the polygons, as sea points do); a
random walk in Beijing (steps of ~30 m, like a moving vehicle's fixes); 10,000 parked vehicles asked
for at random (the popup, the detail page and reports asking again for the same places).
"""

from __future__ import annotations

import argparse
import random
import resource
import time
import tracemalloc

from tabulate import tabulate


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rate(fn, points: list[tuple[float, float]]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    for lng, lat in points:
        fn(lng, lat)
    elapsed = time.perf_counter() - started
    return len(points) / elapsed, elapsed / len(points) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    before = rss_mib()
    started = time.perf_counter()
    from fleet.geo import Geocoder, OfflineGeocoder  # pydantic settings and the package's code

    imported = time.perf_counter()
    offline = OfflineGeocoder()
    offline.reverse(116.3975, 39.9087)
    import_ms, load_ms = (imported - started) * 1000, (time.perf_counter() - imported) * 1000
    loaded = rss_mib()

    uniform = [(rng.uniform(73.5, 135.1), rng.uniform(18.1, 53.6)) for _ in range(args.points)]
    inside = sum(1 for lng, lat in uniform[:20_000] if offline.reverse(lng, lat).adcode) / 20_000
    walk, lng, lat = [], 116.39, 39.91
    for _ in range(args.points):
        lng += rng.gauss(0, 0.0003)
        lat += rng.gauss(0, 0.0003)
        walk.append((lng, lat))

    rows = []
    per_s, us = rate(offline.reverse, uniform)
    rows.append(["offline, uniform over China's box (no cache)", f"{per_s:,.0f}", f"{us:.1f}"])
    per_s, us = rate(offline.reverse, walk)
    rows.append(["offline, Beijing random walk (no cache)", f"{per_s:,.0f}", f"{us:.1f}"])
    walking = Geocoder(offline, cache_size=100_000, cache_decimals=4)
    per_s, us = rate(walking.reverse, walk)
    info = walking.cache_info()
    rows.append([f"Geocoder, the walk (hit rate {info.hits / (info.hits + info.misses):.0%}: moving fixes rarely repeat)",
                 f"{per_s:,.0f}", f"{us:.1f}"])
    del walking
    parked = [(rng.uniform(115.9, 116.9), rng.uniform(39.6, 40.2)) for _ in range(10_000)]
    repeated = [parked[rng.randrange(len(parked))] for _ in range(args.points)]
    fleet = Geocoder(offline, cache_size=100_000, cache_decimals=4)
    per_s, us = rate(fleet.reverse, repeated)
    info = fleet.cache_info()
    rows.append([f"Geocoder, 10,000 parked vehicles asked at random (hit rate {info.hits / (info.hits + info.misses):.0%})",
                 f"{per_s:,.0f}", f"{us:.1f}"])
    del fleet, uniform, walk, repeated
    full = Geocoder(offline, cache_size=100_000, cache_decimals=4)
    tracemalloc.start()
    for i in range(100_000):
        full.reverse(116.0 + (i % 1000) * 0.001, 39.5 + (i // 1000) * 0.001)
    cache_mib = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    print(f"points per case: {args.points:,}; {inside:.0%} of the uniform points are inside China's districts")
    print(f"import fleet.geo {import_ms:.0f} ms; open the data + first lookup {load_ms:.0f} ms; RSS {before:.0f} -> {loaded:.0f} MiB "
          f"(+{loaded - before:.0f}); a full cache (100,000 points) adds {cache_mib:.0f} MiB")
    print(tabulate(rows, headers=["case", "lookups/s", "µs/lookup"], tablefmt="github"))


if __name__ == "__main__":
    main()
