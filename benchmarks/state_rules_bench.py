"""CPU of the ACC / business-state rule per position (``streams.state_rules.apply_fix``, the states step of both
protocols' pipelines), pure, one core.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/state_rules_bench.py [--fixes 10000] [--repeat 7]

One online vehicle driving at 40 km/h with ACC on, a fix a second: the steady state (no transition), the rule's
cost on nearly every position. Prints the best of ``--repeat`` runs in µs a fix.
"""

from __future__ import annotations

import argparse
import timeit
from datetime import UTC, datetime, timedelta


def main() -> None:
    from streams.messages import Fix
    from streams.state_rules import DeviceState, Rules, apply_fix

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    fixes = [Fix(device_id=1, car_id=1, enterprise_id=1, fix_at=start + timedelta(seconds=i), lat=30.0, lng=120.0,
                 altitude_m=0.0, speed_kmh=40.0, direction_deg=0, alarm_flags=0, status_flags=3, mileage_km=None,
                 fuel_l=None, extras={}, received_at=start) for i in range(args.fixes)]
    rules, first = Rules(), DeviceState(1, 1, 1, online=True)

    def run() -> None:
        state = first
        for fix in fixes:
            state, _ = apply_fix(state, fix, 0.0, rules)

    best = min(timeit.repeat(run, number=1, repeat=args.repeat))
    print(f"apply_fix: {best / len(fixes) * 1e6:.2f} µs a fix (best of {args.repeat}, {len(fixes)} fixes)")


if __name__ == "__main__":
    main()
