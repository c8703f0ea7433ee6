"""Platform alarm rules (streams/platform_alarms.py): evaluation cost per live fix, pure (no database):
2,000 devices x 20 rounds of fixes 10 s apart, speeds 60-109 km/h (some overspeed episodes), in batches
of 500 as the uplinks agent hands them over.

    .venv/bin/python benchmarks/platform_alarms_bench.py [--devices 2000] [--rounds 20]
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta

from protocols.jt808.catalogue import LOCATION_REPORT
from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED, Fix, Uplink
from streams.platform_alarms import PlatformAlarms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    t0 = datetime(2026, 11, 25, 4, 0, tzinfo=UTC)
    platform = PlatformAlarms(db=None)  # type: ignore[arg-type]  # rules: the defaults
    platform.loaded = True
    uplinks, fixes = [], []
    for r in range(args.rounds):
        at = t0 + timedelta(seconds=10 * r)
        for d in range(args.devices):
            fixes.append([Fix(d, None, 1, at, 30.0, 120.0, 5.0, 60.0 + d % 50, 0, 0, STATUS_POSITIONED | STATUS_ACC_ON,
                              None, None, {}, at)])
            uplinks.append(Uplink(str(d), d, None, 1, LOCATION_REPORT, at, {}))
    episodes = 0
    start = time.perf_counter()
    for i in range(0, len(uplinks), 500):
        episodes += len(platform.plan(uplinks[i:i + 500], fixes[i:i + 500]).episodes)
    elapsed = time.perf_counter() - start
    per_fix_us = elapsed / len(uplinks) * 1e6
    print("| fixes | episodes | total ms | us per fix | CPU share of one core at 2,000 fixes/s |")
    print(f"| {len(uplinks)} | {episodes} | {elapsed * 1000:.1f} | {per_fix_us:.2f} | {per_fix_us * 2000 / 1e6:.2%} |")


if __name__ == "__main__":
    main()
