"""JT/T 809 forwarding cost in the link service: CPU per position from a Kafka record's value to 809 frames
written on the main link (exchange.link.service ``handle_record``: the streams' uplink decoder, scope, thinning,
back-fill planning, 0x1201 / 0x1202 / 0x1203 encoding and the socket write), pure Python, one process.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/exchange_forward_bench.py [--records 400] [--runs 5]

Records are gateway batch records of 50 uplinks (0x0200) of 500 vehicles, as ``jt808.uplink.v1`` carries them;
the superior is a loopback TCP peer that answers the login and then reads and drops everything. Kafka's own
consumption (aiokafka fetch and decompression) and the database are not part of it. Cases: real-time 0x1202 in
the 2019 and 2011 layouts, and back-fill (fixes older than FLEET_EXCHANGE_BACKFILL_AFTER_S, 0x1203 with up to 50
positions per frame). Prints markdown rows (median of the runs, µs per position of this process's CPU time, and
the load average). Never a timed assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from datetime import UTC, datetime, timedelta

import orjson

from exchange.link.links import MAIN
from exchange.link.service import PlatformService
from exchange.link.wire import read_frame
from fleet import topics
from fleet.settings import ExchangeSettings
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m
from streams.payloads import Terminal, location_report
from warehouse.queries.exchange import ExchangedVehicle, SuperiorPlatform

VEHICLES = 500
PER_RECORD = 50


async def _sink(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, version: str) -> None:
    frame = await read_frame(reader)  # the login
    login = decode_frame(frame, version=version)
    writer.write(encode_frame(m.LoginResponse.MSG_ID, m.LoginResponse(0, 1), sn=1,
                              centre_id=login.header.centre_id, version=version))
    try:
        while await reader.read(1 << 20):
            pass
    except (asyncio.CancelledError, ConnectionError):
        writer.close()


def _records(count: int, age_s: float) -> list[bytes]:
    terminals = [Terminal(f"0139{i:08d}", i + 1, i + 1, 5) for i in range(VEHICLES)]
    base = datetime.now(UTC) - timedelta(seconds=age_s)
    out, n = [], 0
    for _ in range(count):
        batch = []
        for _ in range(PER_RECORD):
            t = terminals[n % VEHICLES]
            batch.append(location_report(t, fix_at=base + timedelta(seconds=n // VEHICLES), lat=39.9 + n * 1e-7,
                                         lng=116.4, speed_kmh=42.0))
            n += 1
        out.append(orjson.dumps(batch))
    return out


async def _run(version: str, records: list[bytes]) -> float:
    server = await asyncio.start_server(lambda r, w: _sink(r, w, version), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    platform = SuperiorPlatform(1, 5, "bench", "127.0.0.1", port, 1, "pw", 1, version, False, 0, 0, 0, 0,
                                "127.0.0.1", 0, 0, (), datetime.now(UTC))
    service = PlatformService(platform, "postgresql://unused", "unused", ExchangeSettings(backfill_after_s=30))
    service.enterprises = frozenset({5})
    for i in range(VEHICLES):
        service.vehicles[i + 1] = ExchangedVehicle(i + 1, f"京A{i:05d}", 2, f"0139{i:08d}", f"SN{i}")
    links = asyncio.create_task(service.links.run())
    while not service.links.is_up(MAIN):
        await asyncio.sleep(0.01)
    await service.handle_record(topics.JT808_UPLINK, records[0])  # registrations and warm-up
    started = time.process_time()
    for value in records[1:]:
        await service.handle_record(topics.JT808_UPLINK, value)
    spent = time.process_time() - started
    links.cancel()
    server.close()
    await asyncio.gather(links, return_exceptions=True)
    return spent * 1e6 / ((len(records) - 1) * PER_RECORD)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print("| case | µs CPU per position (median of runs) | runs | load average |")
    print("|---|---|---|---|")
    for name, version, age in (("real-time 0x1202, 2019", "2019", 0), ("real-time 0x1202, 2011", "2011", 0),
                               ("back-fill 0x1203, 2019", "2019", 600)):
        records = _records(args.records, age)
        costs = [asyncio.run(_run(version, records)) for _ in range(args.runs)]
        print(f"| {name} | {statistics.median(costs):.1f} | {', '.join(f'{c:.1f}' for c in costs)} "
              f"| {os.getloadavg()[0]:.1f} |")


if __name__ == "__main__":
    main()
