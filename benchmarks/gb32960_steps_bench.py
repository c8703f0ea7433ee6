"""Worker CPU per GB/T 32960 frame of the GB steps (streams/gb_uplinks.py), all but the round trips.

    .venv/bin/python benchmarks/gb32960_steps_bench.py [--vehicles 5000] [--rounds 4] [--batch 500] [--repeat 3]

The frames: real-time 0x02 frames of 2016 vehicles with a 96-cell pack and 4 probes (whole vehicle, one
motor, position, extremes, alarms, cell voltages, probe temperatures: 321 bytes), as the GB gateway writes
them (``streams.gb_payloads``: ``encode_frame`` then ``to_json(decode_frame(frame))`` in a GbUplink record, as
Kafka bytes); every vehicle one frame a round, 10 s apart; 2 % of the frames with an insulation alarm raised,
5 % of the vehicles charging. Measured with ``time.process_time()`` around what the worker runs per batch of
``--batch`` records: the parse (``parse_gb``: JSON, the record contract, blocks to state columns, the fix and
its validation), the live coalescer, the positions step's client side (``position_sink.copy_data``: the
binary COPY of gps / device_last), the charging plan, the nev_state / nev_reading parameters (JSON columns
wrapped), the alarm plan and its insert parameters, the ACC / business-state rule of each real-time fix
(``gb_transitions``; its rare log writes and pushes not counted), the message log's COPY of every frame
(``gb_message_log``). The database's own CPU is not the worker's and is not
counted; the statements are the steps' (one COPY + one upsert for positions, one upsert + one unnest
insert for state, one read + upsert for charging, rarely an alarm insert). Best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any


def frames(n_vehicles: int, n_rounds: int) -> list[bytes]:
    import orjson

    from streams.gb_payloads import GbVehicle, realtime

    rng = random.Random(32960)
    start = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
    vehicles = [GbVehicle(f"LBENCH{i:011d}", i + 1, i + 1, 1 + i % 50) for i in range(n_vehicles)]
    charging = {v.device_id for v in vehicles if rng.random() < 0.05}
    out = []
    for r in range(n_rounds):
        at = start + timedelta(seconds=10 * r)
        for v in vehicles:
            alarm = rng.random() < 0.02
            on_charge = v.device_id in charging
            out.append(orjson.dumps(realtime(
                v, at, received_at=at + timedelta(seconds=1), lat=22.5 + rng.random() / 10, lng=114.0 + rng.random() / 10,
                speed_kmh=0.0 if on_charge else round(rng.uniform(0, 80), 1), soc_pct=rng.randint(20, 95),
                charging=1 if on_charge else 3, current_a=-60.0 if on_charge else 20.0,
                alarm_level=2 if alarm else 0, alarm_flags=(1 << 11) if alarm else 0)))
    return out


def measure(values: list[bytes], batch: int) -> dict[str, Any]:
    from fleet.gc_tuning import tune_gc
    from fleet.settings import StreamsSettings
    from streams import gb_alarms, gb_charging, message_log
    from streams.alarm_model import insert_params
    from streams.console import LiveCoalescer
    from streams.gb_frames import GbFrame
    from streams.gb_uplinks import parse_gb, reading_rows, state_rows
    from streams.state_rules import DeviceState, Rules, apply_fix
    from streams.validation import Limits
    from warehouse.queries import gb_states, position_sink
    from warehouse.queries import message_log as mlog_rows

    tune_gc(StreamsSettings().gc_threshold)
    limits = Limits(max_future_s=300, max_speed_kmh=220)
    live = LiveCoalescer()
    marks: dict[int, gb_charging.Mark] = {}
    known: dict[int, gb_alarms.DeviceKeys] = {}
    counts = {"sessions": 0, "episodes": 0, "fixes": 0, "transitions": 0}
    settings = StreamsSettings()
    rules = Rules(no_signal_after_s=settings.no_signal_after_s, driving_min_speed_kmh=settings.driving_min_speed_kmh)
    devices: dict[int, DeviceState] = {}
    phones = {i: f"0147{i:08d}" for i in range(100_000)}

    async def run() -> float:
        cpu = 0.0
        for i in range(0, len(values), batch):
            t = time.process_time()
            parsed, plan = parse_gb(values[i:i + batch], limits, UTC)
            fixes = plan.fixes
            for fix in fixes:
                live.add(fix, 1)
            position_sink.copy_data(fixes)
            for state_fixes in plan.state_fixes_by_event:  # gb_transitions' own rule (its writes are rare)
                for fix in state_fixes:
                    known_state = devices.get(fix.device_id) or DeviceState(fix.device_id, fix.car_id,
                                                                            fix.enterprise_id, online=True)
                    devices[fix.device_id], changes = apply_fix(known_state, fix, 0.0, rules)
                    counts["transitions"] += len(changes)
            data = [f for f in parsed if isinstance(f, GbFrame) and f.state]
            sessions = gb_charging.plan_sessions(data, marks)
            [s.row() for s in sessions]
            rows = state_rows(data)
            gb_states.states_json(rows)
            reading_rows(data)
            planned = gb_alarms.plan(parsed, known)
            known.update(planned.states)
            insert_params(planned.episodes, planned.devices)
            mlog_rows.copy_data(message_log.gb_rows(parsed, phones), with_protocol=True)  # gb_message_log
            cpu += time.process_time() - t
            counts["sessions"] += len(sessions)
            counts["episodes"] += len(planned.episodes)
            counts["fixes"] += len(fixes)
            live.drain()
        return cpu

    cpu = asyncio.run(run())
    return {"us_per_frame": cpu / len(values) * 1e6, "frames": len(values), **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    values = frames(args.vehicles, args.rounds)
    results = [measure(values, args.batch) for _ in range(args.repeat)]
    best = min(results, key=lambda r: r["us_per_frame"])
    print(f"{'frames':>8} {'bytes/record':>12} {'µs CPU/frame':>13} {'frames/s/core':>14} {'sessions':>9} {'alarms':>7}")
    print(f"{best['frames']:>8} {sum(map(len, values)) // len(values):>12} {best['us_per_frame']:>13.1f}"
          f" {1e6 / best['us_per_frame']:>14,.0f} {best['sessions']:>9} {best['episodes']:>7}")
    print(json.dumps({**best, "all_us": [round(r['us_per_frame'], 1) for r in results]}))


if __name__ == "__main__":
    main()
