"""A reconnect storm as the streams worker sees it: every terminal's session ends and a new one begins at once (a
gateway restarted, a region's network came back), two ``device.sessions.v1`` events per terminal.

    .venv/bin/python benchmarks/session_storm_bench.py [--terminals 10000] [--workers 1] [--worker-repo TREE]

A private PostgreSQL and Kafka (``ingest_bench.start_servers``), ``--terminals`` seeded devices and the worker of
this checkout (or of ``--worker-repo``, e.g. a ``git archive`` of an older commit: before / after). First every
terminal comes online (the worker meets each device once and keeps its state); then the storm: an offline
(``replaced``) and an online event per terminal, produced at once. Measured from the storm's first record to the
last online row written: the time, the events a second, and the CPU of the worker and of PostgreSQL per event;
then the online pushes counted on ``console.events.v1``. Prints figures; never a timed assertion.
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

import orjson
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ingest_bench as ib

from fleet.topics import CONSOLE_EVENTS, DEVICE_SESSIONS
from streams import payloads


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--terminals", type=int, default=10000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--worker-repo", type=Path, default=None, help="run the worker from this checkout")
    p.add_argument("--timeout", type=float, default=600.0, help="give up waiting for the storm's rows after this")
    return p.parse_args(argv)


def produce(bootstrap: str, values: list[tuple[str, dict[str, Any]]]) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, batch_size=256 * 1024)
    for phone, value in values:
        producer.send(DEVICE_SESSIONS, key=phone.encode(), value=orjson.dumps(value))
    producer.flush(timeout=120)
    producer.close()


def online_rows(db_url: str, since: datetime) -> int:
    with psycopg.connect(db_url) as conn:
        return int(conn.execute("SELECT count(*) FROM device_online_log WHERE at >= %s",  # type: ignore[index]
                                (since,)).fetchone()[0])


def wait_rows(db_url: str, since: datetime, want: int, timeout_s: float) -> tuple[int, float]:
    """(rows, wall time the count last grew) once ``want`` rows exist or the count stops for 30 s."""
    deadline, last, grew_at = time.monotonic() + timeout_s, -1, time.time()
    while time.monotonic() < deadline:
        count = online_rows(db_url, since)
        if count != last:
            last, grew_at = count, time.time()
        if count >= want or time.time() - grew_at > 30:
            break
        time.sleep(0.2)
    return last, grew_at


def pushes(bootstrap: str) -> int:
    """Online / offline pushes (type 1) on console.events.v1 since the topic began."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(CONSOLE_EVENTS, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             consumer_timeout_ms=3000, enable_auto_commit=False)
    count = 0
    for record in consumer:
        try:
            if orjson.loads(record.value).get("push", {}).get("type") == 1:
                count += 1
        except orjson.JSONDecodeError:
            continue
    consumer.close()
    return count


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server_args = argparse.Namespace(database_url="", kafka_bootstrap="", durable=False, pg_statements=False,
                                     topology="single", kafka_jfr=None)
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="storm-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = ib.start_servers(stack, workdir, server_args)
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        terms = ib.devices(db_url, args.terminals)
        ib.start_worker(stack, workdir, env, ib.new_group(bootstrap), 0, None, args.worker_repo, args.workers)

        t0 = datetime.now(UTC).replace(microsecond=0)
        produce(bootstrap, [(t.phone, payloads.session(t, online=True, at=t0, connection_id="before",
                                                       peer="127.0.0.1")) for t in terms])
        count, _ = wait_rows(db_url, t0, len(terms), args.timeout)
        if count < len(terms):
            print(f"only {count} of {len(terms)} terminals came online before the storm", file=sys.stderr)
            return 1

        t1 = t0 + timedelta(seconds=5)
        storm: list[tuple[str, dict[str, Any]]] = []
        for t in terms:
            storm.append((t.phone, payloads.session(t, online=False, at=t1, reason="replaced", connection_id="before")))
            storm.append((t.phone, payloads.session(t, online=True, at=t1 + timedelta(milliseconds=1),
                                                    connection_id="after", peer="127.0.0.2")))
        ib.CPU.start()
        load_before = os.getloadavg()[0]
        started = time.time()
        produce(bootstrap, storm)
        produced_s = time.time() - started
        count, last_at = wait_rows(db_url, t1, len(storm), args.timeout)
        cpu = ib.CPU.stop()
        seconds = max(last_at - started, 1e-9)
        with psycopg.connect(db_url) as conn:
            online_now = conn.execute("SELECT count(*) FROM device WHERE id = ANY(%s) AND state = 3",  # type: ignore[index]
                                      ([t.device_id for t in terms],)).fetchone()[0]
        result: dict[str, Any] = {
            "terminals": len(terms), "workers": args.workers, "storm_events": len(storm),
            "storm_rows_written": count, "devices_online_after": online_now,
            "produced_in_s": round(produced_s, 2), "storm_to_last_row_s": round(seconds, 2),
            "events_per_s": round(count / seconds, 1),
            "online_pushes_total": pushes(bootstrap),
            "loadavg_1m_before_after": f"{load_before:.2f} / {os.getloadavg()[0]:.2f}",
        }
        for name, cpu_s in cpu.items():
            if name in ("streams", "postgres", "kafka"):
                result[f"cpu_s_{name}"] = cpu_s
                result[f"cpu_us_per_event_{name}"] = round(cpu_s / max(count, 1) * 1e6, 1)
        width = max(len(k) for k in result)
        for key, value in result.items():
            print(f"| {key.ljust(width)} | {value} |")
        return 0 if count >= len(storm) else 1


if __name__ == "__main__":
    raise SystemExit(main())
