"""The regulator in a box under load: positions per second it takes in and its CPU per position.

Starts ``fleet exchange-sim`` as its own process (schedule off), logs in a scripted inferior (the unit
tests' one, protocols.jt809 only), sends pre-encoded 0x1202 frames of ``--vehicles`` vehicles at
``--rate`` for ``--duration`` seconds, then reads the status over HTTP until every position is counted.
Prints sent / counted / duplicates / errors, the achieved rate, the drain time after the last frame and
the regulator's CPU (user + system, /proc) per position.

    .venv/bin/python benchmarks/regulator_bench.py --rate 10000 --duration 30 --vehicles 1000 [--version 2019] [--encrypted]
        [--status-vehicles 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.procstat import cpu_s  # noqa: E402
from protocols.jt809 import messages as m  # noqa: E402
from tests.unit.exchange.inferior import KEYS, Inferior, position  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(port: int, vehicles: int = 0) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/status?vehicles={vehicles}", timeout=10) as reply:
        return json.loads(reply.read())


async def run(args: argparse.Namespace) -> dict:
    port, status_port = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [str(Path(sys.executable).parent / "fleet"), "exchange-sim", "--port", str(port), "--status-port", str(status_port),
           "--account", f"1001:secret:7001:{args.version}", "--inspection-minutes", "0", "--count-minutes", "0",
           "--no-urging", "--video-minutes", "0"]
    if args.encrypted:
        cmd += ["--keys", f"{KEYS.m1}:{KEYS.ia1}:{KEYS.ic1}", "--encrypt-key", "256178"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                status(status_port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        inferior = Inferior(version=args.version, keys=KEYS if args.encrypted else None, key=4321)
        await inferior.connect(port)
        plates = [f"测A{i:05d}" for i in range(args.vehicles)]
        total = int(args.rate * args.duration)
        frames = [inferior.frame(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(
            plates[i % args.vehicles], 2, position(i // args.vehicles, args.version))) for i in range(total)]
        writer = inferior._main_writer
        assert writer is not None
        cpu0, t0 = cpu_s(proc.pid), time.perf_counter()
        step = max(1, int(args.rate / 100))  # 10 ms slices
        for start in range(0, total, step):
            writer.write(b"".join(frames[start : start + step]))
            await writer.drain()
            due = t0 + (start + step) / args.rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        t_sent = time.perf_counter()
        counted = 0
        while time.perf_counter() - t_sent < 120:
            got = await asyncio.to_thread(status, status_port, args.status_vehicles)
            counted = got["counts"]["real_time"]
            if counted >= total:
                break
            await asyncio.sleep(0.05)
        t_done, cpu1 = time.perf_counter(), cpu_s(proc.pid)
        await inferior.close()
        return {"version": args.version, "encrypted": args.encrypted, "vehicles": args.vehicles, "sent": total,
                "counted": counted, "duplicates": got["counts"]["duplicates"], "errors": sum(got["errors"].values()),
                "offered_per_s": round(total / (t_sent - t0)), "counted_per_s": round(counted / (t_done - t0)),
                "drain_after_last_s": round(t_done - t_sent, 2),
                "cpu_us_per_position": round((cpu1 - cpu0) / max(counted, 1) * 1e6, 1),
                "regulator_cpu_share": round((cpu1 - cpu0) / (t_done - t0), 2)}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=10000)
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--vehicles", type=int, default=1000)
    parser.add_argument("--version", choices=["2011", "2019"], default="2011")
    parser.add_argument("--encrypted", action="store_true")
    parser.add_argument("--status-vehicles", type=int, default=0,
                        help="vehicles in each status read while draining (every 50 ms; the reads cost the regulator CPU)")
    result = asyncio.run(run(parser.parse_args()))
    print(" ".join(f"{k}={v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
