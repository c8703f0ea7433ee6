"""Footprint benchmark (docs/scaling.md): bytes per stored row, per Kafka value, per idle TCP socket.

1. **Rows.** Bytes on disk per ``gps`` row and per ``message_log`` row (a 0x0200 and a heartbeat 0x0002),
   written the way the streams worker writes them: real frames (the simulator's 0x0200 with its additional
   items: mileage, satellites, signal), decoded by the codec, made uplink records (streams.payloads.frame_uplink),
   parsed by the worker's parser and written by its binary COPY paths (warehouse.queries.position_sink, warehouse.queries.message_log) in
   batches of ``--batch``, time-major (every device's fix of one tick, then the next tick) as live ingest
   interleaves devices. Then VACUUM ANALYZE and ``pg_total_relation_size`` of each day partition (heap + TOAST +
   indexes) / its rows. The gps rows and 0x0200 frames go to day D's partitions, the heartbeats to day D+1's
   message_log partition, so each figure is one partition's. Native partitioning (no TimescaleDB here).
   Private PostgreSQL (fsync off) under a temporary directory.
2. **Kafka values.** Bytes of the gateway's ``jt808.uplink.v1`` value (gateway.payloads.uplink_value) for
   the same 0x0200 and a heartbeat, as one uplink inside a batch record.
3. **Sockets.** Kernel slab memory per idle established TCP socket: ``--sockets`` loopback connections
   (two sockets each) opened and held, /proc/meminfo ``Slab`` before and after, three times (median).
   Slab is machine-wide, so other processes' allocations are noise in it: run it on a quiet machine.

Not a test: prints tables for docs/scaling.md.

    .venv/bin/python benchmarks/footprint_bench.py --devices 1000 --ticks 300 --heartbeats 100000 --sockets 9000
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from protocols.jt808.catalogue import HEARTBEAT, LOCATION_REPORT

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EXTRAS = {"gnss_satellites": 12, "rssi": 25}


def location_frame(d: int, tick: int, fix_at: datetime) -> bytes:
    from protocols.jt808 import encode_frame
    from protocols.jt808.messages.t0200_location_report import LocationReport

    report = LocationReport(
        alarm_flags=0, status_flags=0x3 if d % 5 else 0x2, lat=39.9 + d * 1e-4 + tick * 1e-5,
        lng=116.3 + d * 1e-4 + tick * 1.3e-5, altitude_m=40 + d % 20, speed_kmh=(d * 7 + tick) % 90,
        direction_deg=(d * 13 + tick) % 360, fix_at=fix_at,
        extras={"mileage_km": round(1000 + d + tick * 0.15, 1), **EXTRAS})
    return encode_frame(LOCATION_REPORT, report.encode("2013"), phone=f"0138{d:08d}", seq=tick % 65536)


def rows_footprint(devices: int, ticks: int, interval_s: float, heartbeats: int, batch: int) -> tuple[list[list[Any]], str]:
    import psycopg
    from psycopg import sql

    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from protocols.jt808 import encode_frame
    from streams import message_log as mlog
    from streams.messages import parse_fix, parse_uplink
    from streams.payloads import Terminal, frame_uplink
    from warehouse.migrate import apply
    from warehouse.partitions import MESSAGE_LOG, ensure_gps_partitions, ensure_partitions
    from warehouse.queries import message_log as mlog_rows
    from warehouse.queries import position_sink

    day = (datetime.now(UTC) - timedelta(days=3)).date()
    start = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
    terminals = [Terminal(f"0138{d:08d}", 1_000_000 + d, 2_000_000 + d, 1) for d in range(devices)]
    positions = devices * ticks
    results: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="footprint-bench-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)
        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        try:
            apply(pg.url)
            with psycopg.connect(pg.url) as conn:
                ensure_gps_partitions(conn, day, 1)
                ensure_partitions(conn, MESSAGE_LOG, day, 1)
                conn.commit()
                fixes: list[Any] = []
                logs: list[Any] = []

                def flush() -> None:
                    with conn.cursor() as cur:
                        if fixes:
                            with cur.copy(position_sink.COPY_GPS) as copy:
                                copy.write(position_sink.copy_data(fixes))
                        if logs:
                            with cur.copy(mlog_rows.COPY) as copy:
                                copy.write(mlog_rows.copy_data(logs))
                    conn.commit()
                    fixes.clear()
                    logs.clear()

                started = time.perf_counter()
                wire = 0
                for tick in range(ticks):
                    fix_at = start + timedelta(seconds=tick * interval_s)
                    received = fix_at + timedelta(seconds=0.3)
                    for d in range(devices):
                        frame = location_frame(d, tick, fix_at)
                        wire += len(frame)
                        uplink = parse_uplink(frame_uplink(terminals[d], frame, received_at=received))
                        fixes.append(parse_fix(uplink, uplink.body))
                        logs.extend(mlog.uplink_rows([uplink]))
                        if len(fixes) >= batch:
                            flush()
                flush()
                next_day = start + timedelta(days=1)
                for i in range(heartbeats):
                    d = i % devices
                    frame = encode_frame(HEARTBEAT, b"", phone=terminals[d].phone, seq=i // devices)
                    received = next_day + timedelta(seconds=(i // devices) * 60, microseconds=d)
                    logs.extend(mlog.uplink_rows([parse_uplink(frame_uplink(terminals[d], frame, received_at=received))]))
                    if len(logs) >= batch:
                        flush()
                flush()
                load_s = time.perf_counter() - started

                conn.autocommit = True
                conn.execute("VACUUM ANALYZE")
                first, second = day.strftime("%Y%m%d"), (day + timedelta(days=1)).strftime("%Y%m%d")
                for label, table, rows in (
                    ("gps (0x0200 fixes)", f"gps_{first}", positions),
                    ("message_log, 0x0200 frames", f"message_log_{first}", positions),
                    ("message_log, 0x0002 heartbeats", f"message_log_{second}", heartbeats),
                ):
                    found = conn.execute(
                        sql.SQL("SELECT pg_total_relation_size(%s::regclass), pg_relation_size(%s::regclass),"
                                " pg_indexes_size(%s::regclass), (SELECT count(*) FROM {})").format(sql.Identifier(table)),
                        (table, table, table)).fetchone()
                    assert found is not None
                    total, heap, indexes, counted = found
                    if counted != rows:
                        raise SystemExit(f"{table}: {counted} rows, expected {rows}")
                    results.append([label, f"{rows:,}", f"{total / rows:.0f}", f"{heap / rows:.0f}",
                                    f"{indexes / rows:.0f}", f"{(total - heap - indexes) / rows:.0f}"])
        finally:
            pg.destroy()
    note = (f"{devices} devices x {ticks} fixes every {interval_s:g} s (time-major), {heartbeats:,} heartbeats, batches of"
            f" {batch}; mean 0x0200 frame {wire / positions:.0f} bytes on the wire; written in {load_s:.1f} s")
    return results, note


def kafka_values() -> list[list[Any]]:
    from gateway.payloads import TerminalIdentity, uplink_value
    from protocols.jt808 import decode_frame, encode_frame, to_json

    identity = TerminalIdentity("013800000123", 1_000_123, 2_000_123, 17)
    now = datetime.now(UTC).replace(microsecond=0)
    rows = []
    for label, frame in (("0x0200 (simulator's items)", location_frame(123, 4711, now)),
                         ("0x0002 heartbeat", encode_frame(HEARTBEAT, b"", phone="013800000123", seq=4712))):
        message = to_json(decode_frame(frame))
        value = uplink_value(identity, msg_id=message["header"]["msg_id"], seq=message["header"]["seq"],
                             protocol_version="2013", raw_hex=frame.hex(), message=message,
                             connection_id="gw-12-123456", gateway_id="gw-12",
                             received_at=datetime.now(UTC).isoformat())
        rows.append([label, len(frame), len(value) + 1])  # + the comma between uplinks of a batch record
    return rows


def _slab_kib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Slab:"):
            return int(line.split()[1])
    raise RuntimeError("no Slab in /proc/meminfo")


def socket_footprint(count: int, repeats: int = 3) -> list[float]:
    """Kernel slab bytes per idle established socket, once per repeat."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(4096)
    port = server.getsockname()[1]
    per_socket = []
    try:
        for _ in range(repeats):
            time.sleep(1)
            before = _slab_kib()
            pairs = []
            for _ in range(count):
                client = socket.create_connection(("127.0.0.1", port))
                accepted, _ = server.accept()
                pairs.append((client, accepted))
            time.sleep(1)
            per_socket.append((_slab_kib() - before) * 1024 / (2 * count))
            for client, accepted in pairs:
                client.close()
                accepted.close()
    finally:
        server.close()
    return per_socket


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devices", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=300, help="fixes per device (one per --interval)")
    p.add_argument("--interval", type=float, default=10.0, help="seconds between a device's fixes")
    p.add_argument("--heartbeats", type=int, default=100_000, help="heartbeat frames written to the next day")
    p.add_argument("--batch", type=int, default=500, help="rows per COPY (the worker's FLEET_STREAMS_BATCH_SIZE)")
    p.add_argument("--sockets", type=int, default=9000, help="loopback connections held (0: skip); needs 2x fds")
    args = p.parse_args(argv)

    from tabulate import tabulate

    rows, note = rows_footprint(args.devices, args.ticks, args.interval, args.heartbeats, args.batch)
    print(tabulate(rows, headers=["partition", "rows", "bytes/row total", "heap", "indexes", "TOAST + maps"],
                   tablefmt="github"))
    print(f"\n{note}\n")
    print(tabulate(kafka_values(), headers=["jt808.uplink.v1 uplink", "frame bytes", "JSON bytes in a batch record"],
                   tablefmt="github"))
    if args.sockets:
        runs = socket_footprint(args.sockets)
        print(f"\nkernel slab per idle TCP socket ({args.sockets:,} loopback connections = {2 * args.sockets:,} sockets):"
              f" {', '.join(f'{r:,.0f}' for r in runs)} B; median {statistics.median(runs):,.0f} B")
    print(f"\nload average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
