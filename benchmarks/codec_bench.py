"""JT/T 808 codec benchmark: 0x0200 ``decode_frame`` rate on one core, pure Python.

    .venv/bin/python benchmarks/codec_bench.py [--runs 7] [--seconds 1.0] [--cpu 0]

Frames are realistic and all different: a 2013 header, the 28-byte basic block and four additional
items (mileage, fuel, signal strength, satellites), about 60 bytes on the wire; serial, position,
speed and heading change from frame to frame. Two timestamp patterns:

- ``live``: 10,000 terminals reporting every 10 s, so frames decoded in one second share about ten
  fix times (what a gateway sees, and what the codec's time cache is for);
- ``distinct``: every frame has its own fix time (a blind-area backlog), so the cache never helps.

Each run decodes the frame list repeatedly for ``--seconds``. The table shows, over ``--runs`` runs,
the median rate per CPU-second of this process (steady on a shared machine: time the core spends on
other processes is not counted), its µs per frame, the best run, and the median wall-clock rate.
It prints markdown table rows for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from protocols.jt808.catalogue import LOCATION_REPORT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocols.jt808 import FrameReader, LocationReport, decode_frame, encode_frame, to_json

FRAMES = 10_000
START = datetime(2025, 5, 1, 8, 0, 0, tzinfo=UTC)


def make_frames(distinct_times: bool) -> list[bytes]:
    frames = []
    for i in range(FRAMES):
        fix_at = START + timedelta(seconds=i if distinct_times else i // 1000)
        report = LocationReport(
            alarm_flags=0,
            status_flags=0x00000003,
            lat=22.5 + i * 1e-5,
            lng=113.9 + i * 1e-5,
            altitude_m=40 + i % 50,
            speed_kmh=(i % 1200) / 10,
            direction_deg=i % 360,
            fix_at=fix_at,
            extras={"mileage_km": 12345.6 + i / 10, "fuel_l": 40.5, "rssi": 25, "gnss_satellites": 12},
        )
        frames.append(encode_frame(LOCATION_REPORT, report, phone=f"0139{i:08d}", seq=i & 0xFFFF))
    return frames


def rate(work: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Items per CPU-second and per wall-second of ``work`` (which returns how many items it
    processed), over about ``seconds``. CPU time excludes the time other processes hold the core,
    so it is the steadier figure on a shared machine."""
    done = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        done += work()
        wall = time.perf_counter()
        if wall >= deadline:
            return done / (time.process_time() - cpu0), done / (wall - wall0)


def median_rates(work: Callable[[], int], runs: int, seconds: float) -> tuple[float, float, float]:
    """Median CPU rate, median wall rate, best CPU rate."""
    work()  # warm caches and the specialising interpreter
    results = [rate(work, seconds) for _ in range(runs)]
    cpu = [r[0] for r in results]
    return statistics.median(cpu), statistics.median(r[1] for r in results), max(cpu)


def decode_all(frames: list[bytes]) -> Callable[[], int]:
    def work() -> int:
        for frame in frames:
            decode_frame(frame)
        return len(frames)

    return work


def decode_and_json_all(frames: list[bytes]) -> Callable[[], int]:
    def work() -> int:
        for frame in frames:
            to_json(decode_frame(frame))
        return len(frames)

    return work


def read_stream(frames: list[bytes]) -> Callable[[], int]:
    stream = b"".join(frames)
    chunks = [stream[i : i + 1460] for i in range(0, len(stream), 1460)]  # one TCP segment each

    def work() -> int:
        reader = FrameReader()
        count = 0
        for chunk in chunks:
            count += len(reader.feed(chunk))
        return count

    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="duration of one run")
    parser.add_argument("--cpu", type=int, default=None, help="pin to this CPU (Linux)")
    args = parser.parse_args()
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})

    live, distinct = make_frames(distinct_times=False), make_frames(distinct_times=True)
    size = statistics.mean(len(f) for f in live)
    cases = [
        ("0x0200 decode_frame, live fix times", decode_all(live)),
        ("0x0200 decode_frame, every fix time distinct", decode_all(distinct)),
        ("0x0200 decode_frame + to_json (extras parsed)", decode_and_json_all(live)),
        ("FrameReader.feed, 1460-byte chunks", read_stream(live)),
    ]
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}, frame {size:.0f} bytes, {args.runs} runs x {args.seconds:g} s")
    print("| benchmark | frames/s per CPU-second (median) | µs/frame | best run | wall-clock frames/s (median) |")
    print("|---|---:|---:|---:|---:|")
    for name, work in cases:
        cpu, wall, best = median_rates(work, args.runs, args.seconds)
        print(f"| {name} | {cpu:,.0f} | {1e6 / cpu:.2f} | {best:,.0f} | {wall:,.0f} |", flush=True)

if __name__ == "__main__":
    main()
