"""Cost of the uplinks agent's alarms step (streams/alarms.py): worker CPU per position with and without it.

    .venv/bin/python benchmarks/alarm_step_bench.py --rate 2000 --duration 30 --terminals 1000

One private PostgreSQL and Kafka (or FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP), seeded terminals, then
for each mode (``FLEET_STREAMS_ALARMS_ENABLED`` true, false, true again) a fresh worker and consumer group
gets ``--rate`` positions/s for ``--duration`` s, produced straight to ``jt808.uplink.v1`` (as
ingest_bench.py ``--source direct``). Worker CPU is measured from /proc between the first record sent
and the last gps row stored. Alarm share (realistic for a fleet, and much more than the simulator's
0.2 %): ``--held-share`` of the terminals hold one 0x0200 bit that flips every ``--flip-s`` seconds (each
flip a row or an end), and ``--adas-share`` of the positions carry an ADAS item (an instantaneous alarm,
pushes 2 and 13; no attachments, so no 0x9208).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import ingest_bench as ib  # noqa: E402
import orjson  # noqa: E402
import psycopg  # noqa: E402
from tabulate import tabulate  # noqa: E402

from fleet.topics import JT808_UPLINK  # noqa: E402
from streams import payloads  # noqa: E402
from streams.console import iso  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rate", type=float, default=2000.0, help="positions per second")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of sending per mode")
    p.add_argument("--terminals", type=int, default=1000)
    p.add_argument("--held-share", type=float, default=0.05, help="share of terminals holding a flipping bit")
    p.add_argument("--flip-s", type=int, default=20, help="fix seconds between flips of that bit")
    p.add_argument("--adas-share", type=float, default=0.002, help="share of positions with an ADAS item")
    p.add_argument("--modes", default="on,off,on", help="alarm step on/off per run, in order")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    p.add_argument("--durable", action="store_true")
    p.add_argument("--settle", type=float, default=60.0)
    return p.parse_args(argv)


def send(db_url: str, bootstrap: str, terms: list[payloads.Terminal], args: argparse.Namespace
         ) -> tuple[set[tuple[int, datetime]], int, int]:
    """Paced positions after the devices' newest fix; returns (sent, held-bit positions, ADAS items)."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, batch_size=256 * 1024)
    total = int(args.rate * args.duration)
    start_fix = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=total // len(terms) + 1)
    with psycopg.connect(db_url) as conn:
        latest = conn.execute("SELECT max(fix_at) FROM gps WHERE device_id = ANY(%s)",
                              ([t.device_id for t in terms],)).fetchone()[0]  # type: ignore[index]
    if latest is not None and latest >= start_fix:
        start_fix = latest + timedelta(seconds=1)
    holders = max(1, int(len(terms) * args.held_share))
    adas_every = int(1 / args.adas_share) if args.adas_share > 0 else 0
    sent: set[tuple[int, datetime]] = set()
    held = adas = 0
    started = time.monotonic()
    for n in range(total):
        index = n % len(terms)
        term = terms[index]
        second = n // len(terms)
        fix_at = start_fix + timedelta(seconds=second)
        flags = 2 if index < holders and (second // args.flip_s) % 2 == 0 else 0  # bit 1 overspeed
        held += bool(flags)
        value: dict[str, Any] = payloads.location_report(term, fix_at=fix_at, speed_kmh=float(n % 80), seq=n % 65536,
                                                         lat=39.9 + (n % 100) / 1e4, lng=116.4, alarm_flags=flags)
        if adas_every and n % adas_every == adas_every - 1:
            adas += 1
            value["message"]["body"]["extras"]["adas_alarm"] = {
                "alarm_id": n, "flag": 0, "type": 1 + n % 6, "level": 1 + n % 2, "speed_kmh": 40, "altitude_m": 50,
                "lat": 39.9, "lng": 116.4, "time": iso(fix_at), "vehicle_status": 1,
                "alarm_no": {"terminal_id": "T000001", "time": iso(fix_at), "seq": n % 256, "attachments": 0}}
        producer.send(JT808_UPLINK, key=term.phone.encode(), value=orjson.dumps(value))
        sent.add((term.device_id, fix_at))
        ahead = (n + 1) / args.rate - (time.monotonic() - started)
        if ahead > 0.005:
            time.sleep(ahead)
    producer.flush(timeout=60)
    producer.close()
    return sent, held, adas


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = []
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="alarm-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = ib.start_servers(stack, workdir, argparse.Namespace(
            database_url=args.database_url, kafka_bootstrap=args.kafka_bootstrap, durable=args.durable))
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        terms = ib.devices(db_url, args.terminals)
        for run, mode in enumerate(args.modes.split(",")):
            with ExitStack() as run_stack:
                ib.CPU.roots["streams"] = []
                run_dir = workdir / f"run{run}"
                run_dir.mkdir()
                ib.start_worker(run_stack, run_dir, {**env, "FLEET_STREAMS_ALARMS_ENABLED": str(mode == "on")},
                                ib.new_group(bootstrap), 0)
                with psycopg.connect(db_url) as conn:
                    alarms_before = conn.execute("SELECT count(*) FROM alarm").fetchone()[0]  # type: ignore[index]
                ib.CPU.start()
                started = time.monotonic()
                sent, held, adas = send(db_url, bootstrap, terms, args)
                count, last_growth = ib.wait_drained(db_url, sent, args.settle)
                cpu = ib.CPU.stop()
                with psycopg.connect(db_url) as conn:
                    alarms = conn.execute("SELECT count(*) FROM alarm").fetchone()[0]  # type: ignore[index]
                results.append({
                    "run": run + 1, "alarm step": mode, "positions": count,
                    "rate/s": round(count / max(last_growth - started, 1e-9)),
                    "held-bit positions": held, "ADAS items": adas, "alarm rows": alarms - alarms_before,
                    "worker CPU s": cpu.get("streams"),
                    "worker µs/pos": round(cpu.get("streams", 0.0) / max(count, 1) * 1e6, 1),
                    "postgres µs/pos": round(cpu.get("postgres", 0.0) / max(count, 1) * 1e6, 1),
                })
    print(tabulate(results, headers="keys"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
