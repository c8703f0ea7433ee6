"""GB/T 32960 codec benchmark: ``decode_frame`` of a 2016 real-time frame with a 96-cell pack, one core.

    .venv/bin/python benchmarks/gb32960_bench.py [--runs 7] [--seconds 1.0]

Each frame carries every 2016 information type (vehicle, two motors, engine, position, extremes,
alarms with two fault codes, 96 cell voltages, 32 probe temperatures), about 390 bytes; SOC, speed,
position and cell voltages change from frame to frame. Each run decodes the frame list repeatedly
for ``--seconds``; the rows give, over ``--runs`` runs, the median rate per CPU-second of this process,
its µs per frame, and the median rate with ``to_json`` as well (what ``fleet decode`` and a log line
cost), then what AES-128 data units add per frame (protocols/gb32960/cipher.py): ``encrypt_frame`` (a GB/T 32960
superior link set to AES-128, on top of the relay) and ``decrypt_frame`` (the GB gateway, for an inferior
platform with a key, before decoding), and what the GB/T 32960 exchange spends relaying a frame to a superior
(``exchange.gb32960.forwarding.relay``): of the terminal's edition (the data unit as it came) and of the other
(decoded, written in the 2025 edition by protocols/gb32960/editions.py, encoded). It prints markdown table rows
for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from exchange.gb32960.forwarding import relay
from fleet.gb32960_records import GbUplink
from protocols.gb32960 import decode_frame, encode_frame
from protocols.gb32960.catalogue import REALTIME
from protocols.gb32960.cipher import AesKey, decrypt_frame, encrypt_frame
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages import (
    Alarms,
    CellVoltages,
    Engine,
    Extremes,
    Motor,
    Motors,
    PackTemperatures,
    PackVoltages,
    Position,
    ProbeTemperatures,
    RealtimeReport,
    VehicleData,
)

FRAMES = 2_000
START = datetime(2026, 5, 1, 0, 0, 0, tzinfo=UTC)


def make_frames() -> list[bytes]:
    frames = []
    for i in range(FRAMES):
        volts = tuple(round(3.300 + ((i + c) % 40) * 0.001, 3) for c in range(96))
        report = RealtimeReport(START + timedelta(seconds=i), (
            VehicleData(1, 3, 1, (i % 900) / 10, 12345.6 + i / 10, 612.3, -35.2 + i % 50, 20 + i % 80, 1, 0x2E,
                        5000, 20, 0),
            Motors((Motor(1, 1, 60, 3000 + i % 500, 120.5, 70, 610.0, 40.0),
                    Motor(2, 1, 61, 3010, 118.0, 71, 610.0, 39.5))),
            Engine(2, 0, 0.0),
            Position(0, 113.9 + i * 1e-5, 22.5 + i * 1e-5),
            Extremes(1, 12, 3.339, 1, 40, 3.300, 1, 3, 35, 1, 9, 28),
            Alarms(1, 1 << 11, (1001,), (), (), (2002,)),
            CellVoltages((PackVoltages(1, 612.3, -35.2, 96, 1, volts),)),
            ProbeTemperatures((PackTemperatures(1, tuple(25 + (c % 10) for c in range(32))),)),
        ))
        frames.append(encode_frame(REALTIME, report, vin=f"LNBSCU3H5JR{i:06d}"))
    return frames


def rate(work: Callable[[], int], seconds: float) -> float:
    """Frames per CPU-second of this process while ``work`` runs for about ``seconds`` wall time."""
    done, cpu0, wall_end = 0, time.process_time(), time.perf_counter() + seconds
    while time.perf_counter() < wall_end:
        done += work()
    return done / (time.process_time() - cpu0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    frames = make_frames()
    size = statistics.mean(len(f) for f in frames)

    def decode_all() -> int:
        for frame in frames:
            decode_frame(frame)
        return len(frames)

    def decode_json_all() -> int:
        for frame in frames:
            to_json(decode_frame(frame))
        return len(frames)

    key = AesKey(bytes(range(16)), bytes(range(16, 32)))
    encrypted = [encrypt_frame(frame, key) for frame in frames]

    def encrypt_all() -> int:
        for frame in frames:
            encrypt_frame(frame, key)
        return len(frames)

    def decrypt_all() -> int:
        for frame in encrypted:
            decrypt_frame(frame, key)
        return len(frames)

    uplinks = [GbUplink("gb32960", f"LNBSCU3H5JR{i:06d}", 1, 7, 1, REALTIME, 0xFE, "gb32960-2016", frame.hex(), {},
                        "c", "g", START.isoformat()) for i, frame in enumerate(frames)]
    cars = frozenset({7})

    def relay_all(version: str) -> Callable[[], int]:
        def work() -> int:
            for uplink in uplinks:
                relay(uplink, cars, version, False)
            return len(uplinks)
        return work

    for name, work in (("decode_frame", decode_all), ("decode_frame + to_json", decode_json_all),
                       ("encrypt_frame (AES-128)", encrypt_all), ("decrypt_frame (AES-128)", decrypt_all),
                       ("relay to a 2016 superior (as it came)", relay_all("2016")),
                       ("relay to a 2025 superior (written in 2025)", relay_all("2025"))):
        rates = [rate(work, args.seconds) for _ in range(args.runs)]
        median = statistics.median(rates)
        print(f"| GB/T 32960 {name}, 96 cells, {size:.0f} B | {median:,.0f} frames/CPU-s | "
              f"{1e6 / median:.0f} µs | best {max(rates):,.0f} |")


if __name__ == "__main__":
    main()
