"""GB/T 32960 end to end: terminals -> GB gateway -> Kafka -> streams worker (the GB steps) -> PostgreSQL.

    .venv/bin/python benchmarks/gb32960_chain_bench.py --rate 5000 --duration 300 [--vehicles N] [--cells 96]

The stack of benchmarks/ingest_bench.py (private PostgreSQL and Kafka, one streams worker) with the GB gateway
(``python -m gateway.gb``) instead of the JT/T 808 one. ``--vehicles`` cars (default: the rate, so each reports
once a second) are inserted with a VIN and a gb32960 (2016) master device each. The terminals run in a child
process of this script (``_terminals``, asyncio): each connects, logs in with a vehicle login 0x01 and waits
for its success answer, then sends real-time frames 0x02 at ``rate / vehicles`` per second, spread evenly over
each second: a 2016 frame with whole vehicle, one motor, position, extremes, alarms, a ``--cells`` pack's cell
voltages and four probes (streams.gb_payloads.realtime_blocks; 321 bytes with 96 cells), its collection time
the second it is sent (one frame per vehicle and second). Each frame is built once per vehicle with the codec
and only its time and BCC are rewritten per send, so the load's own CPU stays small beside the chain's.

Measured:
- sent, acknowledged (the gateway's 0x02 answers with the success flag, which it sends after Kafka has the
  frame), stored (``gps`` rows of the run's devices and collection times; ``nev_reading`` rows as the GB steps'
  own table), lost (acknowledged and not in ``gps``), duplicated (a device and fix time twice in ``gps``);
- the acknowledgement's round trip at the terminal (send to answer), p50 / p99 / max;
- CPU (user + system, /proc) of the gateway, the worker, Kafka, PostgreSQL and the terminals' process from the
  first real-time frame to the last row stored: seconds, cores, and microseconds per stored frame.

Exit status 1 when an acknowledged frame is not stored or one is stored twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

VIN_PREFIX = "LGBCHAIN"  # + 9 digits: 17 characters
DATA_AT = 24  # the data unit's offset in a 2016 frame: ## (2), command, answer flag, VIN (17), encryption, length (2)


def vin_of(index: int) -> str:
    return f"{VIN_PREFIX}{index:09d}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=5000.0, help="real-time frames per second, all vehicles")
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of real-time frames")
    parser.add_argument("--vehicles", type=int, default=0, help="vehicles (connections); default: the rate")
    parser.add_argument("--cells", type=int, default=96, help="cells in each frame's pack")
    parser.add_argument("--settle", type=float, default=60.0, help="seconds without a new stored row that end the wait")
    parser.add_argument("--logs", type=Path, default=None, help="copy the components' logs here")
    parser.add_argument("--profile", type=Path, default=None,
                        help="py-spy raw profiles of the GB gateway and the streams worker, into this folder"
                             " (benchmarks/profile_summary.py reads them; py-spy is no project dependency)")
    return parser.parse_args(argv)


# -- the terminals (child process) ------------------------------------------------------------------

class _Terminal:
    __slots__ = ("index", "template", "base_x", "writer", "last_second", "buffer", "sent_at")

    def __init__(self, index: int, template: bytes) -> None:
        self.index = index
        self.template = template
        self.base_x = template[-1] ^ _xor(template[DATA_AT:DATA_AT + 6])  # the BCC without the time's bytes
        self.writer: asyncio.StreamWriter | None = None
        self.last_second = -1
        self.buffer = b""
        self.sent_at: dict[bytes, float] = {}  # the time bytes of a frame awaiting its answer -> when sent


def _xor(data: bytes) -> int:
    x = 0
    for b in data:
        x ^= b
    return x


def _answers(buffer: bytes) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """Complete frames at the start of ``buffer``: (command, answer flag, data unit), and the rest."""
    out = []
    while len(buffer) >= DATA_AT + 1:
        if buffer[:2] != b"##":
            raise ValueError(f"answer does not start with ##: {buffer[:32].hex()}")
        total = DATA_AT + int.from_bytes(buffer[22:24], "big") + 1
        if len(buffer) < total:
            break
        out.append((buffer[2], buffer[3], buffer[DATA_AT:total - 1]))
        buffer = buffer[total:]
    return out, buffer


def terminals_child(port: int, vehicles: int, rate: float, duration: float, cells: int, out_path: str) -> None:
    """Logs ``vehicles`` terminals in, prints "LOGGED_IN", sends for ``duration`` s, waits for the answers,
    writes {sent, acked, latencies} to ``out_path`` as JSON."""
    from protocols.gb32960 import encode_frame
    from protocols.gb32960.messages import VehicleLogin
    from protocols.gb32960.messages.realtime import RealtimeReport
    from protocols.gb32960.values import write_time
    from streams.gb_payloads import random_cells, realtime_blocks

    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    start = datetime.now(UTC)
    terms = [_Terminal(i, encode_frame(0x02, RealtimeReport(start, realtime_blocks(
        lat=22.5 + (i % 997) / 10_000, lng=114.0 + (i % 991) / 10_000, soc_pct=20 + i % 75, cells=random_cells(random.Random(i), cells))),
        vin=vin_of(i))) for i in range(1, vehicles + 1)]
    acked: list[tuple[int, str]] = []
    refused: list[tuple[int, int]] = []
    latencies: list[float] = []
    sent: list[tuple[int, str]] = []
    closed: list[tuple[int, str]] = []
    cpu_from: list[float] = []  # the process's CPU when the real-time frames start

    async def read(term: _Terminal, reader: asyncio.StreamReader) -> None:
        try:
            while chunk := await reader.read(65536):
                frames, term.buffer = _answers(term.buffer + chunk)
                now = time.monotonic()
                for command, flag, data in frames:
                    if command != 0x02:
                        continue
                    at = term.sent_at.pop(data[:6], None)
                    if flag == 0x01:
                        acked.append((term.index, data[:6].hex()))
                        if at is not None:
                            latencies.append(now - at)
                    else:
                        refused.append((term.index, flag))
        except (OSError, ValueError) as exc:
            closed.append((term.index, repr(exc)))
            return
        closed.append((term.index, "closed by the gateway"))

    async def login(term: _Terminal, gate: asyncio.Semaphore, tasks: list[asyncio.Task[None]]) -> None:
        async with gate:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.transport.set_write_buffer_limits(high=1 << 20)
            writer.write(encode_frame(0x01, VehicleLogin(datetime.now(UTC), 1, f"8986{term.index:016d}", 0, ()),
                                      vin=vin_of(term.index)))
            buffer = b""
            while True:
                async with asyncio.timeout(60):
                    chunk = await reader.read(4096)
                if not chunk:
                    raise ConnectionError(f"{vin_of(term.index)}: closed before the login's answer")
                frames, buffer = _answers(buffer + chunk)
                if frames:
                    break
            command, flag, _ = frames[0]
            if command != 0x01 or flag != 0x01:
                raise RuntimeError(f"{vin_of(term.index)}: login answered command {command:#04x} flag {flag:#04x}")
            term.writer = writer
            term.buffer = buffer
            tasks.append(asyncio.create_task(read(term, reader)))

    async def main() -> None:
        gate = asyncio.Semaphore(200)
        readers: list[asyncio.Task[None]] = []
        await asyncio.gather(*(login(t, gate, readers) for t in terms))
        print("LOGGED_IN", flush=True)
        cpu_from.append(time.process_time())
        slots = 50  # each second in 50 steps of 20 ms, each with its share of the frames
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        step = 0
        times: dict[int, tuple[bytes, int]] = {}
        while loop.time() - t0 < duration:
            # the frames due in this step go to the next vehicles in turn
            lo, hi = int(step * rate / slots), int((step + 1) * rate / slots)
            second = int(time.time())
            if second not in times:
                t6 = write_time(datetime.fromtimestamp(second, UTC))
                times = {second: (t6, _xor(t6))}
            t6, x6 = times[second]
            now = time.monotonic()
            for n in range(lo, hi):
                term = terms[n % len(terms)]
                if term.last_second == second or term.writer is None:
                    continue  # one frame per vehicle and second (the fix time is the key)
                term.last_second = second
                tpl = term.template
                term.writer.write(tpl[:DATA_AT] + t6 + tpl[DATA_AT + 6:-1] + bytes((term.base_x ^ x6,)))
                term.sent_at[t6] = now
                sent.append((term.index, t6.hex()))
            step += 1
            delay = t0 + step / slots - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
        deadline = loop.time() + 60
        while len(acked) + len(refused) < len(sent) and loop.time() < deadline:
            await asyncio.sleep(0.2)
        for term in terms:
            if term.writer is not None:
                term.writer.close()
        for task in readers:
            task.cancel()

    asyncio.run(main())
    latencies.sort()
    Path(out_path).write_text(json.dumps({"cpu_s": time.process_time() - cpu_from[0], "sent": sent, "acked": acked, "refused": refused[:100],
                                          "refused_count": len(refused), "closed": closed[:20],
                                          "closed_count": len(closed), "latencies": latencies}))


# -- the stack --------------------------------------------------------------------------------------

def add_vehicles(db_url: str, count: int) -> dict[int, int]:
    """``count`` new-energy cars of the demo's parent enterprise, each with a gb32960 2016 master device;
    returns vehicle index -> device id."""
    import psycopg

    from warehouse.seed import seed_demo

    summary = seed_demo(db_url, terminals=1)
    enterprise_id = int(next(iter(summary["enterprises"].values())))  # the parent
    with psycopg.connect(db_url) as conn:
        conn.execute(
            "INSERT INTO car (enterprise_id, plate_number, plate_color, vin, car_type)"
            " SELECT %s, '粤B' || lpad(i::text, 5, '0') || 'D', 4, %s || lpad(i::text, 9, '0'), 2"
            " FROM generate_series(1, %s) i", (enterprise_id, VIN_PREFIX, count))
        conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, protocol, protocol_version, car_id)"
            " SELECT %s, '1329' || lpad(i::text, 8, '0'), 'GBC' || lpad(i::text, 9, '0'), 'gb32960 bench ' || i,"
            " 'gb32960', '2016', c.id FROM generate_series(1, %s) i"
            " JOIN car c ON c.vin = %s || lpad(i::text, 9, '0')", (enterprise_id, count, VIN_PREFIX))
        conn.execute("UPDATE car c SET master_device_id = d.id FROM device d WHERE d.car_id = c.id"
                     " AND c.vin LIKE %s", (VIN_PREFIX + "%",))
        rows = conn.execute("SELECT c.vin, d.id FROM car c JOIN device d ON d.id = c.master_device_id"
                            " WHERE c.vin LIKE %s", (VIN_PREFIX + "%",)).fetchall()
    return {int(vin[len(VIN_PREFIX):]): int(device_id) for vin, device_id in rows}



def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import ingest_bench as ib
    import psycopg
    from exchange_chain_bench import percentile
    from tabulate import tabulate

    from fleet.kafka_admin import log_bytes as kafka_log_bytes
    from fleet.services._system import free_port
    from fleet.topics import GB32960_UPLINK
    from protocols.gb32960.values import read_time
    from tests.support.processes import wait_for_port

    vehicles = args.vehicles or int(args.rate)
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gb32960-chain-bench-")))
        db_url, bootstrap = ib.start_servers(stack, workdir, ib.parse_args([]))
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        device_of = add_vehicles(db_url, vehicles)
        ib.start_worker(stack, workdir, env, ib.new_group(bootstrap), 0,
                        profile=args.profile / "streams.raw" if args.profile else None)
        port = free_port()
        gateway_log = workdir / "gb-gateway.log"
        gateway = ib.spawn(stack, "gateway.gb", {**env, "FLEET_GB_GATEWAY_HOST": "127.0.0.1",
                                                 "FLEET_GB_GATEWAY_PORT": str(port),
                                                 "FLEET_GB_GATEWAY_EMISSION_PORT": str(free_port())}, gateway_log,
                           args.profile / "gb-gateway.raw" if args.profile else None)
        wait_for_port(port, 60, gateway)

        out_path = workdir / "terminals.json"
        child = subprocess.Popen([sys.executable, __file__, "_terminals", str(port), str(vehicles), str(args.rate),
                                  str(args.duration), str(args.cells), str(out_path)],
                                 cwd=REPO, env=env, stdout=subprocess.PIPE)
        stack.callback(child.kill)
        logins_from = time.monotonic()
        assert child.stdout is not None
        line = child.stdout.readline().decode().strip()
        if line != "LOGGED_IN":
            raise SystemExit(f"the terminals did not log in ({line!r}); see {gateway_log}")
        logins_s = time.monotonic() - logins_from
        ib.CPU.start()
        load_before = os.getloadavg()
        started = time.monotonic()
        child.wait()
        if child.returncode != 0:
            raise SystemExit(f"the terminals' process failed ({child.returncode})")
        out = json.loads(out_path.read_text())

        def key(index: int, t6: str) -> tuple[int, datetime]:
            return device_of[index], read_time(bytes.fromhex(t6), 0)[0]

        sent = {key(i, t) for i, t in out["sent"]}
        acked = {key(i, t) for i, t in out["acked"]}
        stored, last_growth = ib.wait_drained(db_url, sent, args.settle)
        cpu = ib.CPU.stop()
        load_after = os.getloadavg()
        rows = ib.reconcile(db_url, sent, acked)
        first, last = min(t for _, t in sent), max(t for _, t in sent)
        with psycopg.connect(db_url) as conn:
            readings = conn.execute("SELECT count(*) FROM nev_reading WHERE device_id = ANY(%s) AND collected_at"
                                    " BETWEEN %s AND %s", (sorted(device_of.values()), first, last)).fetchone()[0]  # type: ignore[index]
        span = max(last_growth - started, 1e-9)
        log_bytes = kafka_log_bytes(bootstrap, GB32960_UPLINK)
        latencies = out["latencies"]
        result: dict[str, Any] = {
            "vehicles": vehicles, "cells_per_frame": args.cells, "target_frames_per_s": args.rate,
            "duration_s": args.duration, "logins_s": round(logins_s, 1),
            "sent": len(sent), "sent_per_s": round(len(sent) / args.duration, 1),
            "acknowledged": len(acked), "refused_answers": out["refused_count"],
            "connections_closed": out["closed_count"], "stored_gps": rows["stored"], "stored_nev_reading": readings,
            "acked_not_stored": rows["acked_lost"], "sent_not_stored": rows["lost"], "stored_twice": rows["duplicated"],
            "first_frame_to_last_row_s": round(span, 1),
            # what the broker keeps a frame in (FLEET_KAFKA_COMPRESSION): logins and the run's other records included
            "kafka_log_bytes_per_frame": round(log_bytes / max(len(sent), 1)),
            "stored_per_s": round(rows["stored"] / span, 1),
            "loadavg_before": " / ".join(f"{x:.2f}" for x in load_before),
            "loadavg_after": " / ".join(f"{x:.2f}" for x in load_after),
        }
        if latencies:
            result.update({"ack_rtt_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
                           "ack_rtt_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
                           "ack_rtt_max_ms": round(latencies[-1] * 1000, 1)})
        cpu["terminals"] = out["cpu_s"]  # measured by the terminals' process itself (it has exited)
        names = {"gateway.gb": "gb_gateway", "streams": "streams", "kafka": "kafka", "postgres": "postgres",
                 "terminals": "terminals"}
        for name, label in names.items():
            seconds = round(cpu.get(name, 0.0), 1)
            result[f"cpu_s_{label}"] = seconds
            result[f"cores_{label}"] = round(seconds / span, 2)
            result[f"cpu_us_per_frame_{label}"] = round(seconds / max(rows["stored"], 1) * 1e6, 1)
        if out["closed"]:
            result["first_closed"] = str(out["closed"][:3])
        print(tabulate(sorted(result.items()), headers=["metric", "value"], tablefmt="github"))
        if args.logs is not None:
            import shutil

            args.logs.mkdir(parents=True, exist_ok=True)
            for log_file in [*workdir.glob("*.log"), *workdir.glob("*.out")]:
                shutil.copy(log_file, args.logs / log_file.name)
        return 0 if rows["acked_lost"] == 0 and rows["duplicated"] == 0 else 1


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "_terminals":
        port_arg, n, rate_arg, duration_arg, cells_arg, path = sys.argv[2:8]
        terminals_child(int(port_arg), int(n), float(rate_arg), float(duration_arg), int(cells_arg), path)
    else:
        sys.exit(main())
