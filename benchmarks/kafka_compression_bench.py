"""What FLEET_KAFKA_COMPRESSION makes of the gateways' batch records: bytes per uplink and CPU per uplink.

    .venv/bin/python benchmarks/kafka_compression_bench.py [--vehicles 100] [--rounds 200]

A batch record holds what a gateway received for one partition within its 20 ms window: at most one frame of a
vehicle (a real terminal reports every 1-30 s), so each batch here is ``--vehicles`` distinct vehicles' uplinks,
as the gateways write them (fleet/uplink_records.batch_value of each uplink's JSON):

- JT/T 808: a real 0x0200 frame of each vehicle (own position, speed, heading, mileage) through
  ``streams.payloads.frame_uplink`` (raw hex and decoded message);
- GB/T 32960: a real 2016 real-time frame with a 96-cell pack, each vehicle its own cell voltages (3.200-3.500 V),
  SOC and position, through ``streams.gb_payloads.frame_record``.

Each codec is aiokafka's own function (what the producer runs on a batch; the broker keeps it as written): bytes
per uplink after compression, and the CPU to compress and to inflate one uplink's share (median of ``--rounds``
batches). Identical vehicles would compress far better than a real fleet's: the chain benchmarks' terminals
repeat their frames, so their figures of Kafka bytes are lower than these. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from aiokafka import codec

from fleet.uplink_records import batch_value

CODECS: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    "zstd": (codec.zstd_encode, codec.zstd_decode),
    "gzip": (codec.gzip_encode, codec.gzip_decode),
}


def jt808_batch(vehicles: int, rnd: random.Random) -> bytes:
    from protocols.jt808 import encode_frame
    from protocols.jt808.catalogue import LOCATION_REPORT
    from protocols.jt808.messages.t0200_location_report import LocationReport
    from streams.payloads import Terminal, frame_uplink

    now = datetime.now(UTC).replace(microsecond=0)
    values = []
    for i in range(vehicles):
        terminal = Terminal(phone=f"0139{i:08d}", device_id=i + 1, car_id=i + 1, enterprise_id=1 + i % 3)
        body = LocationReport(alarm_flags=0, status_flags=0x3, lat=22.5 + rnd.random(), lng=113.8 + rnd.random(),
                              altitude_m=rnd.randrange(0, 120), speed_kmh=round(rnd.random() * 90, 1),
                              direction_deg=rnd.randrange(360), fix_at=now,
                              extras={"mileage_km": round(rnd.random() * 200_000, 1)})
        frame = encode_frame(LOCATION_REPORT, body, phone=terminal.phone, seq=rnd.randrange(65536))
        values.append(orjson.dumps(frame_uplink(terminal, frame)))
    return batch_value(values)


def gb32960_batch(vehicles: int, rnd: random.Random) -> bytes:
    from protocols.gb32960 import encode_frame
    from protocols.gb32960.catalogue import REALTIME
    from protocols.gb32960.messages.realtime import RealtimeReport
    from streams.gb_payloads import GbVehicle, frame_record, random_cells, realtime_blocks

    now = datetime.now(UTC).replace(microsecond=0)
    values = []
    for i in range(vehicles):
        vehicle = GbVehicle(vin=f"LBENCH{i:011d}", device_id=i + 1, car_id=i + 1, enterprise_id=1 + i % 3)
        cells = random_cells(rnd)
        blocks = realtime_blocks(lat=22.5 + rnd.random(), lng=113.8 + rnd.random(), soc_pct=rnd.randrange(20, 95),
                                 speed_kmh=round(rnd.random() * 90, 1), cells=cells)
        frame = encode_frame(REALTIME, RealtimeReport(now, blocks), vin=vehicle.vin)
        values.append(orjson.dumps(frame_record(vehicle, frame)))
    return batch_value(values)


def per_uplink_us(work: Callable[[], object], vehicles: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return statistics.median(times) / vehicles * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100, help="uplinks per batch record (distinct vehicles)")
    parser.add_argument("--rounds", type=int, default=200, help="batches compressed per codec (median taken)")
    args = parser.parse_args(argv)
    rnd = random.Random(20261207)
    print("| uplinks | JSON B / uplink | codec | B / uplink | ratio | compress µs / uplink | inflate µs / uplink |")
    print("|---|---|---|---|---|---|---|")
    for name, build in (("JT/T 808 0x0200", jt808_batch), ("GB/T 32960 0x02, 96 cells", gb32960_batch)):
        batch = build(args.vehicles, rnd)
        for codec_name, (encode, decode) in CODECS.items():
            packed = encode(batch)
            assert decode(packed) == batch
            compress = per_uplink_us(lambda: encode(batch), args.vehicles, args.rounds)  # noqa: B023
            inflate = per_uplink_us(lambda: decode(packed), args.vehicles, args.rounds)  # noqa: B023
            print(f"| {name} | {len(batch) / args.vehicles:,.0f} | {codec_name} | {len(packed) / args.vehicles:,.0f} |"
                  f" {len(batch) / len(packed):.1f} | {compress:.2f} | {inflate:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
