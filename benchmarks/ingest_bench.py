"""End-to-end ingest benchmark: positions in at a target rate, reconciled against ``gps`` afterwards.

    .venv/bin/python benchmarks/ingest_bench.py --rate 1000 --duration 60 --terminals 500
    .venv/bin/python benchmarks/ingest_bench.py --source direct --rate 5000 --duration 30

Sources: ``simulator`` (default) drives virtual terminals (simulator.fleet.run_fleet) against a gateway
subprocess, i.e. TCP -> gateway -> Kafka -> streams -> PostgreSQL; ``direct`` produces documented
``jt808.uplink.v1`` records straight to Kafka (streams alone). A streams worker subprocess with a fresh
consumer group is started either way. Without FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP (or the
options), private PostgreSQL and Kafka servers are started in a temporary directory and stopped after.
With an existing database, ``direct`` places its fixes after the devices' newest stored fix; the
simulator's fix clock is its own, so give it a fresh database.

Reconciliation: every (device, fix time) sent is looked up in ``gps``: lost = sent but not stored,
unexpected = stored for these devices in the run's time range but never sent, duplicated = rows
beyond one per (device, fix time). Sustained rate = stored rows / (last row stored - first sent).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402
from tabulate import tabulate  # noqa: E402

from fleet.topics import DEVICE_SESSIONS, JT808_UPLINK  # noqa: E402
from streams import payloads  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rate", type=float, default=1000.0, help="target positions per second")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of sending")
    p.add_argument("--terminals", type=int, default=200, help="terminals (devices are seeded)")
    p.add_argument("--source", choices=("simulator", "direct"), default="simulator")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    p.add_argument("--settle", type=float, default=60.0, help="give up when gps stops growing this long")
    p.add_argument("--batch-size", type=int, default=500, help="FLEET_STREAMS_BATCH_SIZE of the worker")
    return p.parse_args(argv)


# -- stack ---------------------------------------------------------------------------------------

def start_servers(stack: ExitStack, workdir: Path, args: argparse.Namespace) -> tuple[str, str]:
    from fleet.kafka_admin import ensure_topics
    from fleet.services._system import free_port
    from fleet.settings import KafkaSettings
    from warehouse.migrate import apply

    db_url, bootstrap = args.database_url, args.kafka_bootstrap
    if not db_url:
        from fleet.services.postgres import PostgresServer

        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        stack.callback(pg.stop)
        db_url = pg.url
    apply(db_url)
    if not bootstrap:
        from fleet.services.kafka import KafkaServer

        kafka = KafkaServer(workdir / "kafka", free_port(), free_port())
        kafka.start()
        stack.callback(kafka.stop)
        bootstrap = kafka.bootstrap
    ensure_topics(bootstrap, KafkaSettings().topic_partitions)
    return db_url, bootstrap


def spawn(stack: ExitStack, module: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", module, *(["worker"] if module == "streams" else [])],
                            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()

    stack.callback(stop)
    return proc


def start_worker(stack: ExitStack, workdir: Path, env: dict[str, str], bootstrap: str, batch_size: int) -> None:
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    app_id = f"ingest-bench-{secrets.token_hex(3)}"
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=app_id, enable_auto_commit=False)
    tps = [TopicPartition(t, p) for t in (JT808_UPLINK, DEVICE_SESSIONS)
           for p in sorted(consumer.partitions_for_topic(t) or ())]
    consumer.commit({tp: OffsetAndMetadata(o, "", -1) for tp, o in consumer.end_offsets(tps).items()})
    consumer.close()
    log = workdir / "streams.log"
    spawn(stack, "streams", {**env, "FLEET_STREAMS_APP_ID": app_id, "FLEET_STREAMS_WEB_ENABLED": "false",
                             "FLEET_STREAMS_DATA_DIR": str(workdir / "faust"), "FLEET_STREAMS_LOG_LEVEL": "info",
                             "FLEET_STREAMS_LOG_FILE": str(log),
                             "FLEET_STREAMS_BATCH_SIZE": str(batch_size)}, workdir / "streams.out")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if log.exists() and "Worker]: Ready" in log.read_text(errors="replace"):
            return
        time.sleep(0.3)
    raise RuntimeError(f"streams worker not ready; see {log}")


def devices(db_url: str, terminals: int) -> list[payloads.Terminal]:
    from warehouse.seed import seed_demo

    seed_demo(db_url, terminals=terminals)
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT phone, id, car_id, enterprise_id FROM device WHERE NOT unassigned"
                            " ORDER BY phone LIMIT %s", (terminals,)).fetchall()
    return [payloads.Terminal(*row) for row in rows]


# -- sources -------------------------------------------------------------------------------------

def send_direct(db_url: str, bootstrap: str, terms: list[payloads.Terminal], rate: float, duration: float
                ) -> set[tuple[int, datetime]]:
    """Produce location reports round-robin over the terminals at ``rate``; fix clocks 1 s apart."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, batch_size=256 * 1024)
    total = int(rate * duration)
    start_fix = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=total // len(terms) + 1)
    with psycopg.connect(db_url) as conn:  # after any earlier run's fixes: reconcile only this run
        latest = conn.execute("SELECT max(fix_at) FROM gps WHERE device_id = ANY(%s)",
                              ([t.device_id for t in terms],)).fetchone()[0]  # type: ignore[index]
    if latest is not None and latest >= start_fix:
        start_fix = latest + timedelta(seconds=1)
    sent: set[tuple[int, datetime]] = set()
    started = time.monotonic()
    for n in range(total):
        term = terms[n % len(terms)]
        fix_at = start_fix + timedelta(seconds=n // len(terms))
        value = payloads.location_report(term, fix_at=fix_at, speed_kmh=float(n % 80), seq=n % 65536,
                                         lat=39.9 + (n % 100) / 1e4, lng=116.4)
        producer.send(JT808_UPLINK, key=term.phone.encode(), value=json.dumps(value).encode())
        sent.add((term.device_id, fix_at))
        ahead = (n + 1) / rate - (time.monotonic() - started)
        if ahead > 0.005:
            time.sleep(ahead)
    producer.flush(timeout=60)
    producer.close()
    return sent


def send_simulated(stack: ExitStack, workdir: Path, env: dict[str, str], db_url: str,
                   terms: list[payloads.Terminal], rate: float, duration: float) -> set[tuple[int, datetime]]:
    from fleet.services._system import free_port, port_answers
    from fleet.settings import SimulatorSettings
    from simulator.fleet import run_fleet

    port = free_port()
    spawn(stack, "gateway", {**env, "FLEET_GATEWAY_PORT": str(port), "FLEET_GATEWAY_HOST": "127.0.0.1"},
          workdir / "gateway.log")
    deadline = time.monotonic() + 60
    while not port_answers(port) and time.monotonic() < deadline:
        time.sleep(0.2)
    sent_log = workdir / "sent.csv"
    settings = SimulatorSettings(gateway_port=port, auth_cache=workdir / "auth.json")
    asyncio.run(run_fleet(settings, len(terms), len(terms) / rate, duration_s=duration, sent_log=sent_log))
    by_phone = {t.phone: t.device_id for t in terms}
    with sent_log.open() as f:
        return {(by_phone[row["phone"]], datetime.fromisoformat(row["fix_at"])) for row in csv.DictReader(f)
                if row["phone"] in by_phone}


# -- reconciliation ------------------------------------------------------------------------------

def wait_drained(db_url: str, sent: set[tuple[int, datetime]], settle_s: float) -> tuple[int, float]:
    """Polls the run's rows until all arrived or none arrived for ``settle_s``. Returns (rows, last growth)."""
    ids = sorted({d for d, _ in sent})
    first, last = min(t for _, t in sent), max(t for _, t in sent)
    last_count, last_growth = -1, time.monotonic()
    with psycopg.connect(db_url, autocommit=True) as conn:
        while True:
            count = conn.execute("SELECT count(*) FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s AND %s",
                                 (ids, first, last)).fetchone()[0]  # type: ignore[index]
            if count != last_count:
                last_count, last_growth = count, time.monotonic()
            if count >= len(sent) or time.monotonic() - last_growth > settle_s:
                return count, last_growth
            time.sleep(0.2)


def reconcile(db_url: str, sent: set[tuple[int, datetime]]) -> dict[str, int]:
    ids = sorted({d for d, _ in sent})
    first, last = min(t for _, t in sent), max(t for _, t in sent)
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT device_id, fix_at FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s AND %s",
                            (ids, first, last)).fetchall()
    stored = set(rows)
    return {"sent": len(sent), "stored": len(rows), "lost": len(sent - stored),
            "duplicated": len(rows) - len(stored), "unexpected": len(stored - sent)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ingest-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = start_servers(stack, workdir, args)
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        terms = devices(db_url, args.terminals)
        start_worker(stack, workdir, env, bootstrap, args.batch_size)
        started = time.monotonic()
        if args.source == "direct":
            sent = send_direct(db_url, bootstrap, terms, args.rate, args.duration)
        else:
            sent = send_simulated(stack, workdir, env, db_url, terms, args.rate, args.duration)
        sending_s = time.monotonic() - started
        count, last_growth = wait_drained(db_url, sent, args.settle)
        result: dict[str, Any] = reconcile(db_url, sent)
        elapsed = max(last_growth - started, 1e-9)
        result.update({
            "source": args.source, "terminals": len(terms), "target_rate_per_s": args.rate,
            "offered_rate_per_s": round(len(sent) / sending_s, 1),
            "sustained_rate_per_s": round(count / elapsed, 1),
            "drain_after_send_s": round(max(0.0, last_growth - started - sending_s), 2),
        })
        print(tabulate(sorted(result.items()), headers=["metric", "value"], tablefmt="github"))
        return 0 if result["lost"] == 0 and result["duplicated"] == 0 and result["unexpected"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
