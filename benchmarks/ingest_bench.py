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

Latency: with private servers PostgreSQL runs with ``track_commit_timestamp = on``, so every row's lag
is exact: commit time of its transaction minus ``received_at`` (the gateway's receive time; for
``direct`` the time the record was built, just before it was produced). p50/p99/max are printed.

CPU: seconds of CPU used by each component (process and its children, from /proc) between the start
of sending and the last row stored, also per stored position (µs). ``loadgen`` is this process (the
simulator or the direct producer). ``--profile DIR`` runs the worker (and the gateway) under
``py-spy record --format raw`` (install py-spy into the venv; it is not a project dependency) and
prints the hottest frames; ``--durable`` keeps fsync/synchronous_commit on in the private server.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Collection, Iterable
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from protocols.jt808.catalogue import LOCATION_REPORT

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import orjson  # noqa: E402
import psycopg  # noqa: E402
from tabulate import tabulate  # noqa: E402

from fleet.phones import canonical_phone  # noqa: E402
from fleet.topics import DEVICE_SESSIONS, JT808_UPLINK  # noqa: E402
from streams import payloads  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rate", type=float, default=1000.0, help="target positions per second")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of sending")
    p.add_argument("--terminals", type=int, default=200, help="terminals (devices are seeded)")
    p.add_argument("--source", choices=("simulator", "loadgen", "direct"), default="simulator",
                   help="simulator: Python virtual terminals; loadgen: the Go load generator (simulator/loadgen); "
                        "direct: records produced to Kafka (the worker alone)")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    p.add_argument("--settle", type=float, default=60.0, help="give up when gps stops growing this long")
    p.add_argument("--batch-size", type=int, default=0, help="FLEET_STREAMS_BATCH_SIZE of the worker (0: its default)")
    p.add_argument("--kafka-jfr", type=Path, default=None,
                   help="record the broker with Java Flight Recorder into this file (read it with `jfr print --events "
                        "jdk.ExecutionSample` or JDK Mission Control)")
    p.add_argument("--profile", type=Path, default=None, help="write py-spy raw profiles of worker/gateway here")
    p.add_argument("--direct-batch", type=int, default=50,
                   help="direct: uplinks per Kafka record, grouped per partition as the gateway does (1: one each)")
    p.add_argument("--preload", action="store_true",
                   help="direct only: produce everything first, then start the worker (its drain rate)")
    p.add_argument("--worker-repo", type=Path, default=None,
                   help="run the worker from this checkout (e.g. `git archive` of an older commit: before/after)")
    p.add_argument("--repo", type=Path, default=None,
                   help="run the gateway and the worker(s) from this checkout (before/after of the whole chain)")
    p.add_argument("--ack-timeout", type=float, default=10.0, help="loadgen: the terminals' JT/T 808 resend timeout T")
    p.add_argument("--drain", type=float, default=60.0,
                   help="loadgen: seconds the terminals wait for their last acks after generating (overload: "
                        "long enough for the chain to work off what it could not take at once)")
    p.add_argument("--kill", type=kill_list, default=None,
                   help="loadgen: kill -9 this component (worker, gateway, broker, api; several at once comma-"
                        "separated, e.g. broker,worker) --kill-at seconds into the run, start it again --kill-down "
                        "seconds later; the run then proves nothing acknowledged was lost. api (--topology cluster): "
                        "two APIs behind HAProxy with STOMP sessions on them (benchmarks/stomp_watch.py), whose "
                        "gap from the kill to the first live position is reported")
    p.add_argument("--kill-at", type=float, default=None, help="seconds into the run (default: a third of it)")
    p.add_argument("--kill-down", type=float, default=5.0, help="seconds the killed component stays down")
    p.add_argument("--topology", choices=("single", "cluster"), default="single",
                   help="cluster: 3 Kafka brokers (replication 3, min.insync.replicas 2), 2 gateways behind HAProxy"
                        " with the PROXY protocol (fleet/cluster.py); a --kill then hits one of each")
    p.add_argument("--workers", type=int, default=1, help="streams worker processes (one consumer group)")
    p.add_argument("--loadgen-procs", type=int, default=1,
                   help="simulator processes (terminals split between them); 1: in this process")
    p.add_argument("--logs", type=Path, default=None, help="copy the worker/gateway logs here at the end")
    p.add_argument("--durable", action="store_true", help="private PostgreSQL with fsync and synchronous_commit on")
    p.add_argument("--pg-statements", action="store_true",
                   help="private PostgreSQL with pg_stat_statements: print the statements' execution time per "
                        "stored position at the end (where PostgreSQL's share of the CPU goes)")
    args = p.parse_args(argv)
    if args.kill and args.source != "loadgen":
        p.error("--kill needs --source loadgen (the terminals' acknowledgements are what it checks)")
    if args.kill and "api" in args.kill and args.topology != "cluster":
        p.error("--kill api needs --topology cluster (the APIs behind HAProxy the browsers reconnect through)")
    return args


KILLABLE = ("worker", "gateway", "broker", "api")


def kill_list(text: str) -> list[str]:
    """``--kill``'s value: one or more components, comma-separated, each once."""
    parts = [part.strip() for part in text.split(",")]
    unknown = [part for part in parts if part not in KILLABLE]
    if unknown or not parts or len(set(parts)) != len(parts):
        raise argparse.ArgumentTypeError(f"{text!r}: one or more of {', '.join(KILLABLE)}, comma-separated, each once")
    return parts


# -- CPU accounting ------------------------------------------------------------------------------

def _proc_table() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of the process itself), for every process we can read."""
    tick = os.sysconf("SC_CLK_TCK")
    table: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return table


class CpuMeter:
    """CPU seconds of named process trees. Exited children (e.g. a backend that went away) are not
    counted after they exit, so long-lived processes (workers, backends, JVM) are measured exactly."""

    def __init__(self) -> None:
        self.roots: dict[str, list[int]] = {}
        self.loadgen_children_s = 0.0  # CPU of load generator processes that already exited
        self._start: dict[str, float] = {}
        self.t0 = self.t0_wall = 0.0

    def tree_cpu(self, root: int, table: dict[int, tuple[int, float]]) -> float:
        children: dict[int, list[int]] = {}
        for pid, (ppid, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        total, todo = 0.0, [root]
        while todo:
            pid = todo.pop()
            total += table.get(pid, (0, 0.0))[1]
            todo.extend(children.get(pid, ()))
        return total

    def _sample(self) -> dict[str, float]:
        table = _proc_table()
        out = {name: sum(self.tree_cpu(pid, table) for pid in pids) for name, pids in self.roots.items()}
        usage = resource.getrusage(resource.RUSAGE_SELF)
        out["loadgen"] = usage.ru_utime + usage.ru_stime + self.loadgen_children_s
        return out

    def start(self) -> None:
        self.t0, self.t0_wall = time.monotonic(), time.time()
        self._start = self._sample()
        self.samples: list[tuple[float, dict[str, float]]] = [(time.time(), self._start)]
        self._sampling = True

        def sample() -> None:  # once a second: CPU over a steady window, against rows committed in it
            while self._sampling:
                time.sleep(1.0)
                self.samples.append((time.time(), self._sample()))

        threading.Thread(target=sample, daemon=True, name="cpu-sampler").start()

    def window(self, begin: float, end: float) -> tuple[float, float, dict[str, float]] | None:
        """(wall begin, wall end, CPU seconds per component) between the samples nearest to the
        wall-clock instants ``begin`` and ``end``; None when no two samples are inside them."""
        inside = [(at, cpu) for at, cpu in self.samples if begin <= at <= end]
        if len(inside) < 2:
            return None
        (a, first), (b, last) = inside[0], inside[-1]
        return a, b, {name: last[name] - first.get(name, 0.0) for name in last}

    def stop(self) -> dict[str, float]:
        self._sampling = False
        end = self._sample()
        return {name: round(end[name] - self._start.get(name, 0.0), 1) for name in end}


CPU = CpuMeter()
PROCS: dict[str, list[subprocess.Popen[bytes]]] = {}  # module -> the processes spawn() started (kill drills)
RESPAWN: dict[str, Any] = {}  # module -> start its first process again (kill drills)
KAFKA: list[Any] = []  # the private broker, when this run started one (kill drills)
CHAIN_REPO: Path | None = None  # --repo: the checkout the gateway (and workers) run from
TOPOLOGY = "single"  # --topology: "cluster" runs 3 brokers and 2 gateways behind HAProxy (fleet/cluster.py)
APIS: dict[str, Any] = {}  # --kill api: "count" APIs behind HAProxy; "front" its browser port, "watch" the sessions


# -- stack ---------------------------------------------------------------------------------------

def start_servers(stack: ExitStack, workdir: Path, args: argparse.Namespace) -> tuple[str, str]:
    from fleet.kafka_admin import ensure_topics
    from fleet.services._system import free_port
    from fleet.settings import KafkaSettings
    from warehouse.migrate import apply

    db_url, bootstrap = args.database_url, args.kafka_bootstrap
    if not db_url:
        from fleet.services.postgres import PostgresServer

        pg = PostgresServer(workdir / "pg", free_port(), fast=not args.durable)
        pg.start()
        stack.callback(pg.destroy)
        with psycopg.connect(pg.admin_url, autocommit=True) as conn:  # exact per-row commit times
            conn.execute("ALTER SYSTEM SET track_commit_timestamp = on")
            if args.pg_statements:
                conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        pg.stop()
        pg.start()
        if args.pg_statements:  # in the fleet database, readable (and resettable) by its role
            with psycopg.connect(pg.admin_url.rsplit("/", 1)[0] + "/fleet", autocommit=True) as conn:
                conn.execute("CREATE EXTENSION pg_stat_statements")
                conn.execute("GRANT pg_read_all_stats TO fleet")
                conn.execute("GRANT EXECUTE ON FUNCTION pg_stat_statements_reset TO fleet")
        CPU.roots["postgres"] = [int((pg.data_dir / "postmaster.pid").read_text().split()[0])]
        db_url = pg.url
    apply(db_url)
    if args.pg_statements:  # the migrations' statements are not the run's
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_statements_reset()")
    if not bootstrap and args.topology == "cluster":
        from fleet.services.kafka_cluster import KafkaCluster

        cluster = KafkaCluster(workdir / "kafka", [(node, free_port(), free_port()) for node in (1, 2, 3)])
        cluster.start()
        stack.callback(cluster.stop)
        KAFKA.extend(cluster.nodes)  # a --kill broker hits node 1; the other two keep the quorum and a 2-replica ISR
        CPU.roots["kafka"] = [node.pid() or 0 for node in cluster.nodes]
        ensure_topics(cluster.bootstrap, KafkaSettings().topic_partitions, replication_factor=3,
                      configs={"min.insync.replicas": "2"})
        return db_url, cluster.bootstrap
    if not bootstrap:
        from fleet.services.kafka import KafkaServer

        jfr = (f"-XX:StartFlightRecording=filename={args.kafka_jfr.resolve()},settings=profile",) \
            if args.kafka_jfr else ()
        kafka = KafkaServer(workdir / "kafka", free_port(), free_port(), jvm_extra=jfr)
        kafka.start()
        stack.callback(kafka.stop)
        KAFKA.append(kafka)
        bootstrap = kafka.bootstrap
        CPU.roots["kafka"] = [kafka.pid() or 0]
    ensure_topics(bootstrap, KafkaSettings().topic_partitions)
    return db_url, bootstrap


# py-spy's sampling of a benchmark's process (benchmarks/profile_summary.py reads its raw output)
PY_SPY_RECORD = [str(Path(sys.executable).parent / "py-spy"), "record", "--nonblocking", "--rate", "97", "--format", "raw"]


def spawn(stack: ExitStack, module: str, env: dict[str, str], log: Path,
          profile: Path | None = None, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    cwd = cwd or CHAIN_REPO or REPO
    out = log.open("wb")
    cmd = [sys.executable, "-m", module, *(["worker"] if module == "streams" else [])]
    if profile is not None:  # py-spy writes its file when the profiled child exits
        profile.parent.mkdir(parents=True, exist_ok=True)
        cmd = [*PY_SPY_RECORD, "--output", str(profile), "--", *cmd]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    CPU.roots.setdefault(module, []).append(proc.pid)
    PROCS.setdefault(module, []).append(proc)
    RESPAWN.setdefault(module, lambda: spawn(stack, module, env, log.with_name(f"{log.stem}-restarted{log.suffix}"),
                                             None, cwd))

    def stop() -> None:
        if profile is not None:  # stop the profiled child, py-spy then writes its file and exits
            for child in _children(proc.pid):
                os.kill(child, 15)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()

    stack.callback(stop)
    return proc


def _children(pid: int) -> list[int]:
    return [child for child, (ppid, _) in _proc_table().items() if ppid == pid]


def new_group(bootstrap: str) -> str:
    """A consumer group that starts at the topics' current end (earlier runs' records are skipped)."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    app_id = f"ingest-bench-{secrets.token_hex(3)}"
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=app_id, enable_auto_commit=False)
    tps = [TopicPartition(t, p) for t in (JT808_UPLINK, DEVICE_SESSIONS)
           for p in sorted(consumer.partitions_for_topic(t) or ())]
    consumer.commit({tp: OffsetAndMetadata(o, "", -1) for tp, o in consumer.end_offsets(tps).items()})
    consumer.close()
    return app_id


def start_worker(stack: ExitStack, workdir: Path, env: dict[str, str], app_id: str, batch_size: int,
                 profile: Path | None = None, repo: Path | None = None, workers: int = 1) -> None:
    """``workers`` processes in one consumer group (they share the topics' partitions)."""
    logs = []
    for index in range(workers):
        suffix = "" if index == 0 else str(index + 1)
        log = workdir / f"streams{suffix}.log"
        worker_env = {**env, "FLEET_STREAMS_APP_ID": app_id, "FLEET_STREAMS_WEB_ENABLED": "false",
                      "FLEET_STREAMS_DATA_DIR": str(workdir / f"faust{suffix}"), "FLEET_STREAMS_LOG_LEVEL": "info",
                      "FLEET_STREAMS_LOG_FILE": str(log)}
        if batch_size:
            worker_env["FLEET_STREAMS_BATCH_SIZE"] = str(batch_size)
        spawn(stack, "streams", worker_env, workdir / f"streams{suffix}.out",
              profile.with_name(f"streams{suffix}.raw") if profile else None, repo or REPO)
        logs.append(log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if all(log.exists() and "Worker]: Ready" in log.read_text(errors="replace") for log in logs):
            time.sleep(3.0 if workers > 1 else 0.0)  # let the group settle its assignment
            return
        time.sleep(0.3)
    raise RuntimeError(f"streams worker not ready; see {logs}")


def devices(db_url: str, terminals: int) -> list[payloads.Terminal]:
    from warehouse.seed import seed_demo

    seed_demo(db_url, terminals=terminals)
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT phone, id, car_id, enterprise_id FROM device WHERE NOT unassigned"
                            " ORDER BY phone LIMIT %s", (terminals,)).fetchall()
    return [payloads.Terminal(*row) for row in rows]


# -- sources -------------------------------------------------------------------------------------

def sample_frame_hex() -> str:
    """A 2013 0x0200 frame with mileage and fuel, as a gateway forwards it in ``raw_hex``."""
    from protocols.jt808 import LocationReport, encode_frame

    report = LocationReport(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4, altitude_m=50, speed_kmh=40.0,
                            direction_deg=90, fix_at=datetime(2026, 1, 1, tzinfo=UTC),
                            extras={"mileage_km": 1234.5, "fuel_l": 30.0})
    return encode_frame(LOCATION_REPORT, report, phone="13800000001", seq=1).hex()


def send_direct(db_url: str, bootstrap: str, terms: list[payloads.Terminal], rate: float, duration: float,
                paced: bool = True, batch: int = 1) -> set[tuple[int, datetime]]:
    """Produce location reports round-robin over the terminals at ``rate``; fix clocks 1 s apart. With
    ``batch`` > 1, as batch records of up to that many uplinks per partition (fleet.uplink_records)."""
    from kafka import KafkaProducer

    from fleet.uplink_records import batch_headers, batch_key, batch_value, partition_of

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, batch_size=256 * 1024)
    total = int(rate * duration)
    start_fix = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=total // len(terms) + 1)
    with psycopg.connect(db_url) as conn:  # after any earlier run's fixes: reconcile only this run
        latest = conn.execute("SELECT max(fix_at) FROM gps WHERE device_id = ANY(%s)",
                              ([t.device_id for t in terms],)).fetchone()[0]  # type: ignore[index]
    if latest is not None and latest >= start_fix:
        start_fix = latest + timedelta(seconds=1)
    sent: set[tuple[int, datetime]] = set()
    raw_hex = sample_frame_hex()
    partitions = len(producer.partitions_for(JT808_UPLINK) or ()) or 1
    open_batches: dict[int, list[tuple[str, bytes]]] = {}

    def flush(partition: int) -> None:
        items = open_batches.pop(partition, [])
        if items:
            producer.send(JT808_UPLINK, key=batch_key(p for p, _ in items), partition=partition,
                          value=batch_value([v for _, v in items]), headers=batch_headers(len(items)))

    started = time.monotonic()
    for n in range(total):
        term = terms[n % len(terms)]
        fix_at = start_fix + timedelta(seconds=n // len(terms))
        value = payloads.location_report(term, fix_at=fix_at, speed_kmh=float(n % 80), seq=n % 65536,
                                         lat=39.9 + (n % 100) / 1e4, lng=116.4)
        value["raw_hex"] = raw_hex  # a real frame's size: the message log stores it (one frame for all)
        if batch <= 1:
            producer.send(JT808_UPLINK, key=term.phone.encode(), value=orjson.dumps(value))
        else:
            partition = partition_of(term.phone.encode(), partitions)
            open_batches.setdefault(partition, []).append((term.phone, orjson.dumps(value)))
            if len(open_batches[partition]) >= batch:
                flush(partition)
        sent.add((term.device_id, fix_at))
        ahead = (n + 1) / rate - (time.monotonic() - started)
        if paced and ahead > 0.005:
            for partition in list(open_batches):
                flush(partition)
            time.sleep(ahead)
    for partition in list(open_batches):
        flush(partition)
    producer.flush(timeout=60)
    producer.close()
    return sent


def start_gateway(stack: ExitStack, workdir: Path, env: dict[str, str], profile: Path | None = None,
                  port: int = 0) -> int:
    """A gateway subprocess on a free port (or ``port``); returns the port once it answers. In the cluster
    topology: two gateways reading the PROXY protocol behind HAProxy, whose port it returns."""
    from fleet.services._system import free_port, port_answers

    if TOPOLOGY == "cluster":
        return start_balanced_gateways(stack, workdir, env, profile)
    port = port or free_port()
    spawn(stack, "gateway", {**env, "FLEET_GATEWAY_PORT": str(port), "FLEET_GATEWAY_HOST": "127.0.0.1",
                             "FLEET_GATEWAY_STATUS_INTERVAL_S": "2"},
          workdir / "gateway.log", profile)
    deadline = time.monotonic() + 60
    while not port_answers(port) and time.monotonic() < deadline:
        time.sleep(0.2)
    return port


def start_balanced_gateways(stack: ExitStack, workdir: Path, env: dict[str, str], profile: Path | None) -> int:
    """Gateways gw-1 and gw-2 behind HAProxy as `fleet up --topology cluster` runs them (and, for ``--kill
    api``, APIS["count"] APIs behind its HTTP frontend); the terminals' port of the balancer."""
    from fleet.cluster import balancer_config, haproxy_binary
    from fleet.services._system import free_port, port_answers

    api_ports = start_apis(stack, workdir, env, APIS.get("count", 0))
    api_front = APIS["front"] = free_port()

    ports = [free_port(), free_port()]
    for index, port in enumerate(ports, start=1):
        spawn(stack, "gateway", {**env, "FLEET_GATEWAY_PORT": str(port), "FLEET_GATEWAY_HOST": "127.0.0.1",
                                 "FLEET_GATEWAY_GATEWAY_ID": f"gw-{index}", "FLEET_GATEWAY_PROXY_PROTOCOL": "true",
                                 "FLEET_GATEWAY_STATUS_INTERVAL_S": "2"},
              workdir / f"gateway{index}.log", profile.with_name(f"gateway{index}.raw") if profile else None)
    front = free_port()
    config = workdir / "haproxy.cfg"
    config.write_text(balancer_config(terminals_at=("127.0.0.1", front), gateway_ports=ports,
                                      browsers_at=("127.0.0.1", api_front), api_ports=api_ports,
                                      stats_port=free_port()))
    out = (workdir / "haproxy.out").open("wb")
    balancer = subprocess.Popen([haproxy_binary(), "-db", "-f", str(config)], stdout=out, stderr=subprocess.STDOUT)
    stack.callback(lambda: (balancer.terminate(), balancer.wait(), out.close()))
    CPU.roots["haproxy"] = [balancer.pid]  # it carries every terminal's bytes: server side, like the gateways
    deadline = time.monotonic() + 60
    while not all(port_answers(p) for p in (*ports, front)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return front


def start_apis(stack: ExitStack, workdir: Path, env: dict[str, str], count: int) -> list[int]:
    """``count`` API processes as `fleet up --topology cluster` runs them (one token secret, HAProxy on loopback
    trusted to name the client), each healthy; their ports."""
    import json as json_module

    import requests

    from fleet.cluster import api_trusted_proxies
    from fleet.services._system import free_port
    from fleet.settings import ApiSettings

    ports = [free_port() for _ in range(count)]
    shared = {"FLEET_API_HOST": "127.0.0.1", "FLEET_API_TOKEN_SECRET": secrets.token_hex(32),
              "FLEET_API_TRUSTED_PROXIES": json_module.dumps(api_trusted_proxies(ApiSettings()))}
    for index, port in enumerate(ports, start=1):
        spawn(stack, "api", {**env, **shared, "FLEET_API_PORT": str(port)}, workdir / f"api{index}.log")
    deadline = time.monotonic() + 90
    for port in ports:
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/api/health.json", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"API on {port} not healthy; see {workdir}/api*.log")
            time.sleep(0.3)
    return ports


def kill_drill(components: list[str], at_s: float, down_s: float, db_url: str, report: dict[str, Any]) -> Any:
    """A ``during`` for send_loadgen: ``at_s`` seconds in, SIGKILL each component at once (the first worker
    process, the first gateway, broker node 1, the first API with its gunicorn workers), wait ``down_s`` and
    start them again as they were started. With ``api``, the STOMP sessions (APIS["watch"]) are open and
    receiving live positions before the kill."""
    import signal

    def during(port: int) -> None:
        started = time.monotonic()
        if "api" in components:
            APIS["watch"] = watch = stomp_watch(db_url)
            watch.start(timeout_s=max(at_s, 30.0))
        time.sleep(max(0.0, at_s - (time.monotonic() - started)))
        with psycopg.connect(db_url) as conn:
            before = conn.execute("SELECT count(*) FROM gps").fetchone()[0]  # type: ignore[index]
        killed_at = APIS["killed_at"] = time.monotonic()  # before the kill: a drop is never stamped before it
        KILLED_WALL.append(time.time())
        for component in components:
            if component == "broker":
                os.kill(KAFKA[0].pid(), signal.SIGKILL)
            else:
                victim = PROCS[MODULES[component]][0]
                for pid in _children(victim.pid):  # py-spy's child if profiled; gunicorn's workers
                    os.kill(pid, signal.SIGKILL)
                victim.kill()
        for component in components:
            if component == "broker":
                while KAFKA[0].pid() is not None:  # gone (and reaped) before it is started again
                    time.sleep(0.05)
            else:
                PROCS[MODULES[component]][0].wait()
        report["kill_rows_stored_before"] = before
        time.sleep(down_s)
        for component in components:
            if component == "broker":
                KAFKA[0].start()
                CPU.roots["kafka"] = [*CPU.roots.get("kafka", []), KAFKA[0].pid() or 0]
            else:
                RESPAWN[MODULES[component]]()
        if "gateway" in components:
            from fleet.services._system import port_answers

            while not port_answers(port) and time.monotonic() - killed_at < 60:
                time.sleep(0.2)
        report["kill"] = (f"{'+'.join(components)} at {at_s:.0f} s, down {time.monotonic() - killed_at:.1f} s")

    return during


MODULES = {"worker": "streams", "gateway": "gateway", "api": "api"}  # --kill component -> spawn()'s module
STOMP_SESSIONS = 4  # consoles on the APIs during --kill api: leastconn puts about half on the killed one
KILLED_WALL: list[float] = []  # the drill's kill, wall clock (the sessions' `at` is the gateways' wall clock)


def terminals_back(db_url: str, sent: Collection[tuple[int, datetime]], killed_wall: float,
                   gateway_id: str | None) -> dict[str, Any]:
    """How soon the killed gateway's terminals were online again (on any gateway): the devices whose last session
    row before the kill was an online on ``gateway_id`` (None: on any, the single topology's one gateway), and
    the first online of each after it, from ``device_online_log`` (the gateways' session events as the
    streams store them)."""
    ids = sorted({d for d, _ in sent})
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            "WITH last AS (SELECT DISTINCT ON (device_id) device_id, state, gateway_id FROM device_online_log"
            "              WHERE device_id = ANY(%(ids)s) AND at < to_timestamp(%(kill)s)"
            "              ORDER BY device_id, at DESC),"
            " dead AS (SELECT device_id FROM last WHERE state = 1"
            "          AND (%(gateway)s::text IS NULL OR gateway_id = %(gateway)s::text)),"
            " back AS (SELECT device_id, min(at) AS at FROM device_online_log"
            "          WHERE device_id = ANY(%(ids)s) AND state = 1 AND at >= to_timestamp(%(kill)s)"
            "          GROUP BY device_id),"
            " gap AS (SELECT extract(epoch FROM back.at) - %(kill)s AS s FROM dead LEFT JOIN back USING (device_id))"
            " SELECT count(*), count(s), percentile_cont(0.5) WITHIN GROUP (ORDER BY s),"
            "        percentile_cont(0.99) WITHIN GROUP (ORDER BY s), max(s) FROM gap",
            {"ids": ids, "kill": killed_wall, "gateway": gateway_id}).fetchone()
    assert row is not None
    dead, back, p50, p99, worst = row
    return {"kill_gateway_terminals": dead, "kill_gateway_terminals_back": back,
            "kill_gateway_back_p50_s": None if p50 is None else round(p50, 1),
            "kill_gateway_back_p99_s": None if p99 is None else round(p99, 1),
            "kill_gateway_back_max_s": None if worst is None else round(worst, 1)}


def stomp_watch(db_url: str) -> Any:
    """Consoles of the demo's parent admin (every seeded vehicle's positions reach it) through HAProxy."""
    from benchmarks.stomp_watch import StompWatch
    from warehouse.seed import DEMO_PASSWORD, PARENT

    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT enterprise_id FROM app_user WHERE user_name = %s", (PARENT.admin,)).fetchone()
    assert row is not None, "the demo seed has no parent admin"
    return StompWatch("127.0.0.1", APIS["front"], PARENT.admin, DEMO_PASSWORD, int(row[0]), STOMP_SESSIONS)


def send_loadgen(stack: ExitStack, workdir: Path, env: dict[str, str], terms: list[payloads.Terminal], rate: float,
                 duration: float, profile: Path | None, fleet_stats: dict[str, Any], procs: int, ack_timeout_s: float,
                 during: Any = None, drain_s: float = 60.0) -> tuple[set[tuple[int, datetime]], set[tuple[int, datetime]]]:
    """The Go load generator (simulator/loadgen) against a gateway subprocess, ``procs`` processes each
    with a slice of the terminals. Returns (first sent, acknowledged) as (device, fix time) sets, from
    the load generators' logs. ``during(port)`` runs in this thread while they run (e.g. kill -9 drills)."""
    from simulator import loadgen

    loadgen.ensure_built()
    port = start_gateway(stack, workdir, env, profile)
    prefix, first = "0138", 1  # the demo seed's phones: 0138 + 8-digit index (devices() takes the first N)
    auth = workdir / "auth.json"
    # warm-up: register every terminal (no position: a report interval far beyond the run)
    warm = loadgen.Options(port=port, terminals=len(terms), rate=len(terms) / 1e6, duration_s=1.0, drain_s=5.0,
                           ramp_per_s=RAMP_PER_S)
    subprocess.run(warm.argv(loadgen.BINARY, auth=auth, log=None, stats=workdir / "warm.json"),
                   stdout=subprocess.DEVNULL, check=True)
    slices = [(i * len(terms) // procs, (i + 1) * len(terms) // procs) for i in range(procs)]
    runs = []
    CPU.start()
    for i, (lo, hi) in enumerate(slices):
        options = loadgen.Options(port=port, terminals=hi - lo, first=first + lo, prefix=prefix,
                                  rate=rate * (hi - lo) / len(terms), duration_s=duration, drain_s=drain_s,
                                  ack_timeout_s=ack_timeout_s, ramp_per_s=RAMP_PER_S * 2.5 / procs)
        runs.append((loadgen.start(options, auth=auth, log=workdir / f"loadgen{i}.log",
                                   stats=workdir / f"loadgen{i}.json", output=workdir / f"loadgen{i}.out"),
                     workdir / f"loadgen{i}.log", workdir / f"loadgen{i}.json"))
    if during is not None:
        during(port)
    totals: dict[str, float] = {}
    for proc, _, stats_path in runs:
        proc.wait()
        stats = loadgen.load_stats(stats_path)
        CPU.loadgen_children_s += stats["cpu_s"]
        for key, value in stats.items():
            if key.startswith("ack_"):
                totals[key] = max(totals.get(key, 0.0), value)  # the worst process
            else:
                totals[key] = totals.get(key, 0.0) + value
    fleet_stats.update({f"loadgen_{k}": (round(v, 1) if isinstance(v, float) else v) for k, v in totals.items()
                        if k in ("sent", "acked", "resent", "link_timeouts", "backlog_uploaded", "unacked", "connects",
                                 "ack_p50_ms", "ack_p99_ms", "ack_max_ms", "rejected", "user_s", "sys_s")})
    by_phone = {t.phone: t.device_id for t in terms}
    sent: set[tuple[int, datetime]] = set()
    acked: set[tuple[int, datetime]] = set()
    for _, log_path, _ in runs:
        for kind, phone, fix_at, _ in loadgen.read_log(log_path):
            device = by_phone.get(canonical_phone(phone))
            if device is not None:
                (sent if kind == "s" else acked).add((device, fix_at))
    if not sent:  # nothing to reconcile: say why (the load generators' own words) instead of failing later
        tails = "\n".join(f"--- {path.name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:])
                          for path in sorted(workdir.glob("loadgen*.out")) + [workdir / "warm.json"] if path.exists())
        raise SystemExit(f"the load generators sent no position ({fleet_stats}); their output:\n{tails}")
    return sent, acked


RAMP_PER_S = 200.0  # logins per second: on the loaded machine the gateway's 4-connection lookup pool
                    # timed out (db_timeout_s 5 s) on 500 logins/s and the terminals then reconnected


def send_simulated(stack: ExitStack, workdir: Path, env: dict[str, str], db_url: str,
                   terms: list[payloads.Terminal], rate: float, duration: float,
                   profile: Path | None = None, fleet_stats: dict[str, int] | None = None, procs: int = 1
                   ) -> set[tuple[int, datetime]]:
    from fleet.settings import SimulatorSettings
    from simulator.fleet import FleetStats, run_fleet

    port = start_gateway(stack, workdir, env, profile)
    sent_log = workdir / "sent.csv"
    settings = SimulatorSettings(gateway_port=port, auth_cache=workdir / "auth.json")
    # warm-up: register every terminal (auth codes cached in auth.json) so the measured run starts with
    # a plain authentication, not with thousands of registrations queueing positions as backlog
    for _ in range(6):
        asyncio.run(run_fleet(settings, len(terms), 0, duration_s=max(5.0, len(terms) / 200), drain_timeout_s=1.0,
                              ramp_per_s=RAMP_PER_S))
        if settings.auth_cache.exists() and len(json.loads(settings.auth_cache.read_text())) >= len(terms):
            break
    interval_s = len(terms) / rate
    CPU.start()
    if procs <= 1:
        stats = FleetStats()
        asyncio.run(run_fleet(settings, len(terms), interval_s, duration_s=duration, sent_log=sent_log,
                              stats=stats, ramp_per_s=RAMP_PER_S))
        totals, logs = stats.as_dict(), [sent_log]
    else:  # one simulator process per slice of terminals, each with its own auth cache copy and sent log
        import multiprocessing
        import shutil
        from concurrent.futures import ProcessPoolExecutor

        slices = [(i * len(terms) // procs, (i + 1) * len(terms) // procs) for i in range(procs)]
        logs = [workdir / f"sent{i}.csv" for i in range(procs)]
        jobs = []
        with ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("fork")) as pool:
            for i, (lo, hi) in enumerate(slices):
                cache = workdir / f"auth{i}.json"
                shutil.copy(settings.auth_cache, cache)
                jobs.append(pool.submit(_fleet_slice, port, cache, lo + 1, hi - lo, interval_s, duration, logs[i],
                                        RAMP_PER_S / procs))
            results = [job.result() for job in jobs]
        totals = {}
        for child_stats, cpu_s in results:
            CPU.loadgen_children_s += cpu_s
            for key, value in child_stats.items():
                totals[key] = totals.get(key, 0) + value
    if fleet_stats is not None:
        fleet_stats.update({f"sim_{k}": v for k, v in totals.items()
                            if k in ("sent", "acked", "resent", "backlog_uploaded", "unacked", "connects")})
    by_phone = {t.phone: t.device_id for t in terms}  # device.phone: canonical; the simulator logs its header
    sent: set[tuple[int, datetime]] = set()
    for log in logs:
        with log.open() as f:
            sent.update((by_phone[canonical_phone(row["phone"])], datetime.fromisoformat(row["fix_at"]))
                        for row in csv.DictReader(f) if canonical_phone(row["phone"]) in by_phone)
    return sent


def _fleet_slice(port: int, auth_cache: Path, first_index: int, count: int, interval_s: float, duration: float,
                 sent_log: Path, ramp_per_s: float) -> tuple[dict[str, int], float]:
    """One simulator process (``--loadgen-procs``): its stats and the CPU seconds it used."""
    from fleet.settings import SimulatorSettings
    from simulator.fleet import FleetStats, run_fleet

    before = resource.getrusage(resource.RUSAGE_SELF)
    stats = FleetStats()
    settings = SimulatorSettings(gateway_port=port, auth_cache=auth_cache)
    asyncio.run(run_fleet(settings, count, interval_s, duration_s=duration, stats=stats, first_index=first_index,
                          sent_log=sent_log, ramp_per_s=ramp_per_s))
    after = resource.getrusage(resource.RUSAGE_SELF)
    return stats.as_dict(), (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


# -- reconciliation ------------------------------------------------------------------------------

def wait_drained(db_url: str, sent: set[tuple[int, datetime]], settle_s: float) -> tuple[int, float]:
    """Polls until all rows arrived or nothing arrived for ``settle_s``. Returns (rows, last growth).

    Progress is read from ``device_last`` (one row per device, written in the same transaction as the
    gps rows), so polling costs the database next to nothing; gps itself is counted (a scan of the
    run's rows) only once every device's newest sent fix is there, and then at most every 2 s.
    """
    ids = sorted({d for d, _ in sent})
    first, last = min(t for _, t in sent), max(t for _, t in sent)
    newest: dict[int, datetime] = {}
    for device_id, fix_at in sent:
        if fix_at > newest.get(device_id, first):
            newest[device_id] = fix_at
    last_mark: Any = None
    last_growth = time.monotonic()
    count, counted_at = -1, 0.0
    with psycopg.connect(db_url, autocommit=True) as conn:
        while True:
            rows = conn.execute("SELECT device_id, fix_at FROM device_last WHERE device_id = ANY(%s)",
                                (ids,)).fetchall()
            mark = sorted(rows)
            if mark != last_mark:
                last_mark, last_growth = mark, time.monotonic()
            caught_up = all(fix_at >= newest[d] for d, fix_at in rows if d in newest) and len(rows) >= len(newest)
            if caught_up and time.monotonic() - counted_at > 2.0:
                new_count = conn.execute("SELECT count(*) FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s"
                                         " AND %s", (ids, first, last)).fetchone()[0]  # type: ignore[index]
                counted_at = time.monotonic()
                if new_count != count:
                    if count >= 0:  # older rows (resends, backlog) still arriving
                        last_growth = counted_at
                    count = new_count
                if count >= len(sent):
                    return count, last_growth
            if time.monotonic() - last_growth > settle_s:
                count = conn.execute("SELECT count(*) FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s"
                                     " AND %s", (ids, first, last)).fetchone()[0]  # type: ignore[index]
                return count, last_growth
            time.sleep(0.2)


def reconcile(db_url: str, sent: set[tuple[int, datetime]],
              acked: set[tuple[int, datetime]] | None = None) -> dict[str, int]:
    """Row by row: ``lost`` sent and not stored; with the terminals' acknowledgements, ``acked_lost``
    acknowledged and not stored (the one that must be 0 whatever was killed)."""
    ids = sorted({d for d, _ in sent})
    first, last = min(t for _, t in sent), max(t for _, t in sent)
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT device_id, fix_at FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s AND %s",
                            (ids, first, last)).fetchall()
    stored = set(rows)
    result = {"sent": len(sent), "stored": len(rows), "lost": len(sent - stored),
              "duplicated": len(rows) - len(stored), "unexpected": len(stored - sent)}
    if acked is not None:
        result.update({"acked": len(acked), "acked_lost": len(acked - stored)})
    return result


def message_log_rows(db_url: str, sent: set[tuple[int, datetime]], since: datetime) -> int | None:
    """Position uplinks (0x0200, 0x0704) of the run's devices kept in message_log since ``since``
    (None when the table is absent: a worker of an older tree)."""
    ids = sorted({d for d, _ in sent})
    with psycopg.connect(db_url) as conn:
        if conn.execute("SELECT to_regclass('message_log')").fetchone() == (None,):
            return None
        row = conn.execute("SELECT count(*) FROM message_log WHERE device_id = ANY(%s) AND direction = 0"
                           " AND msg_id IN (512, 1796) AND time >= %s", (ids, since)).fetchone()
    return int(row[0]) if row else 0


class Lag(NamedTuple):
    p50_ms: float
    p99_ms: float
    max_ms: float
    received_per_s: float  # rows over their first..last gateway receive time
    stored_per_s: float  # rows over their first..last commit time
    stored_per_s_min: float  # the slowest whole second of commits (overload: does throughput hold?)
    stored_per_s_median: float


def commit_lag(db_url: str, sent: set[tuple[int, datetime]]) -> Lag | None:
    """received_at -> commit time of the row's transaction (needs track_commit_timestamp), and the
    rates the rows were received and stored at (each over its own first..last instant, so a load
    generator's connection ramp or drain does not dilute them)."""
    ids = sorted({d for d, _ in sent})
    first, last = min(t for _, t in sent), max(t for _, t in sent)
    try:
        with psycopg.connect(db_url) as conn:
            row = conn.execute(
                "WITH t AS (SELECT received_at, pg_xact_commit_timestamp(xmin) AS committed FROM gps"
                "  WHERE device_id = ANY(%s) AND fix_at BETWEEN %s AND %s),"
                " l AS (SELECT extract(epoch FROM committed - received_at) * 1000 AS lag FROM t),"
                " s AS (SELECT count(*) AS n FROM t WHERE committed > (SELECT min(committed) + interval '1 s' FROM t)"
                "  AND committed < (SELECT max(committed) - interval '1 s' FROM t)"
                "  GROUP BY date_trunc('second', committed))"
                " SELECT (SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY lag) FROM l),"
                "  (SELECT max(lag) FROM l), (SELECT count(*) FROM t),"
                "  (SELECT extract(epoch FROM max(received_at) - min(received_at)) FROM t),"
                "  (SELECT extract(epoch FROM max(committed) - min(committed)) FROM t),"
                "  (SELECT min(n) FROM s), (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM s)",
                (ids, first, last)).fetchone()
    except psycopg.Error:  # track_commit_timestamp off (an existing server)
        return None
    if row is None or row[0] is None or row[0][0] is None:
        return None
    (p50, p99), worst, count, received_s, stored_s, slowest, median = row
    return Lag(round(p50, 1), round(p99, 1), round(worst, 1), round(count / max(float(received_s), 1e-3), 1),
               round(count / max(float(stored_s), 1e-3), 1), float(slowest or 0), float(median or 0))


def window_lag(db_url: str, sent: Collection[tuple[int, datetime]], begin: float, end: float) -> dict[str, float]:
    """Commit lag (received_at -> commit) p50 / p99 / max in ms of the rows received between two wall-clock
    instants: a drill's gap, apart from the start-up's (the brokers' first minute is their JIT's)."""
    ids = sorted({d for d, _ in sent})
    try:
        with psycopg.connect(db_url) as conn:
            row = conn.execute(
                "WITH l AS (SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin) - received_at) * 1000 AS lag"
                "  FROM gps WHERE device_id = ANY(%s) AND received_at BETWEEN to_timestamp(%s) AND to_timestamp(%s))"
                " SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY lag), percentile_cont(0.99) WITHIN GROUP"
                " (ORDER BY lag), max(lag) FROM l", (ids, begin, end)).fetchone()
    except psycopg.Error:  # track_commit_timestamp off (an existing server)
        return {}
    if row is None or row[0] is None:
        return {}
    return {"p50_ms": round(row[0], 1), "p99_ms": round(row[1], 1), "max_ms": round(row[2], 1)}


SERVER = ("gateway", "haproxy", "kafka", "streams", "postgres")  # haproxy: the cluster topology's balancer
GATEWAY_COUNTERS = ("uplinks_produced", "uplink_records", "resends_dropped", "resends_reacked", "backpressure_pauses",
                    "produce_failed")


def summed_counters(logs: Iterable[Path]) -> dict[str, int]:
    """Each gateway log's last counters line (``gateway counters name=value ...``), summed over the logs."""
    totals: dict[str, int] = {}
    for log_file in logs:
        lines = [line for line in log_file.read_text(errors="replace").splitlines() if "gateway counters " in line] \
            if log_file.exists() else []
        if lines:
            for field in lines[-1].split("gateway counters ", 1)[1].split():
                name, _, value = field.partition("=")
                if value.isdigit():
                    totals[name] = totals.get(name, 0) + int(value)
    return totals


def gateway_counters(workdir: Path) -> dict[str, Any]:
    """The gateways' last counters lines (logged every 2 s here), summed over a restarted gateway's logs."""
    totals = {k: v for k, v in summed_counters(sorted(workdir.glob("gateway*.log"))).items() if k in GATEWAY_COUNTERS}
    out: dict[str, Any] = {f"gateway_{k}": v for k, v in totals.items()}
    if totals.get("uplink_records"):
        out["gateway_uplinks_per_record"] = round(totals.get("uplinks_produced", 0) / totals["uplink_records"], 1)
    return out


def steady_cpu(db_url: str, sent: set[tuple[int, datetime]], begin: float, end: float) -> dict[str, Any]:
    """CPU per position over a steady window (wall clock ``begin``..``end``): each server component's
    CPU between the sampler's readings nearest inside it, over the rows committed between them. Login
    ramps, warm-up and drain are outside it; under overload it is the CPU per position the chain
    actually stored."""
    window = CPU.window(begin, end)
    if window is None or window[1] - window[0] < 10:
        return {}
    a, b, cpu = window
    ids = sorted({d for d, _ in sent})
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT count(*) FROM gps WHERE device_id = ANY(%s) AND"
                            " pg_xact_commit_timestamp(xmin) BETWEEN to_timestamp(%s) AND to_timestamp(%s)",
                            (ids, a, b)).fetchone()[0]  # type: ignore[index]
    if not rows:
        return {}
    out: dict[str, Any] = {"steady_window_s": round(b - a, 1), "steady_stored_per_s": round(rows / (b - a), 1)}
    for name in SERVER:
        if name in cpu:
            out[f"steady_cpu_us_per_pos_{name}"] = round(cpu[name] / rows * 1e6, 1)
    out["steady_cpu_us_per_pos_server"] = round(sum(cpu.get(n, 0.0) for n in SERVER) / rows * 1e6, 1)
    out["steady_server_cores"] = round(sum(cpu.get(n, 0.0) for n in SERVER) / (b - a), 2)
    return out


def print_statements(db_url: str, stored: int, top: int = 15) -> None:
    """The statements PostgreSQL spent most time in (pg_stat_statements), per stored position."""
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT total_exec_time, calls, rows, regexp_replace(left(query, 90), '\\s+', ' ', 'g')"
            " FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT %s", (top,)).fetchall()
    print(tabulate([(round(ms * 1000 / stored, 2), calls, round(ms / max(calls, 1), 3), n, query)
                    for ms, calls, n, query in rows],
                   headers=["µs per position", "calls", "ms per call", "rows", "statement"], tablefmt="github"))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    global CHAIN_REPO, TOPOLOGY
    CHAIN_REPO = args.repo
    TOPOLOGY = args.topology
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ingest-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = start_servers(stack, workdir, args)
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        terms = devices(db_url, args.terminals)
        profile = args.profile
        app_id = new_group(bootstrap)
        preloaded: set[tuple[int, datetime]] | None = None
        started_wall = datetime.now(UTC)  # every record of this run is received after it
        if args.preload:
            preloaded = send_direct(db_url, bootstrap, terms, args.rate, args.duration, paced=False,
                                    batch=args.direct_batch)
        start_worker(stack, workdir, env, app_id, args.batch_size, profile / "streams.raw" if profile else None,
                     args.worker_repo or args.repo, args.workers)
        fleet_stats: dict[str, Any] = {}
        acked: set[tuple[int, datetime]] | None = None  # loadgen: what the terminals saw acknowledged
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        if preloaded is not None:
            CPU.start()
            sent = preloaded
        elif args.source == "direct":
            CPU.start()
            sent = send_direct(db_url, bootstrap, terms, args.rate, args.duration, batch=args.direct_batch)
        elif args.source == "loadgen":
            if args.kill and "api" in args.kill:
                APIS["count"] = 2  # as fleet up --topology cluster (ClusterSettings.apis)
            during = None if args.kill is None else kill_drill(
                args.kill, args.kill_at if args.kill_at is not None else args.duration / 3, args.kill_down, db_url,
                fleet_stats)
            sent, acked = send_loadgen(stack, workdir, env, terms, args.rate, args.duration,
                                       profile / "gateway.raw" if profile else None, fleet_stats, args.loadgen_procs,
                                       args.ack_timeout, during, drain_s=args.drain)
            if "watch" in APIS:
                fleet_stats.update(APIS["watch"].gaps(APIS["killed_at"]))
                APIS["watch"].stop()
        else:
            sent = send_simulated(stack, workdir, env, db_url, terms, args.rate, args.duration,
                                  profile / "gateway.raw" if profile else None, fleet_stats, args.loadgen_procs)
        sending_s = time.monotonic() - started
        if args.source in ("simulator", "loadgen"):  # offered over the generating period only
            started, sending_s = CPU.t0, args.duration
        count, last_growth = wait_drained(db_url, sent, args.settle)
        cpu = CPU.stop()
        load_after = os.getloadavg()[0]
        result: dict[str, Any] = reconcile(db_url, sent, acked)
        kept = message_log_rows(db_url, sent, started_wall - timedelta(seconds=5))
        if kept is not None:  # uplink records, one per 0x0200 / 0x0704 frame (not per position)
            result["message_log_position_frames"] = kept
        # what the brokers keep a position in (FLEET_KAFKA_COMPRESSION; every replica; the run's logins included)
        from fleet.kafka_admin import log_bytes
        from fleet.topics import JT808_UPLINK

        result["kafka_log_bytes_per_position"] = round(log_bytes(bootstrap, JT808_UPLINK) / max(len(sent), 1))
        lag = commit_lag(db_url, sent)
        if lag is not None:
            result.update({"lag_p50_ms": lag.p50_ms, "lag_p99_ms": lag.p99_ms, "lag_max_ms": lag.max_ms,
                           "received_rate_per_s": lag.received_per_s, "stored_rate_per_s": lag.stored_per_s,
                           "stored_per_s_slowest_second": lag.stored_per_s_min,
                           "stored_per_s_median_second": lag.stored_per_s_median})
        result.update(fleet_stats)
        if args.kill and KILLED_WALL:  # the commit lag of the minute before the kill and of the minute from it
            killed = KILLED_WALL[0]
            for label, (begin, end) in (("before", (killed - 60, killed)), ("after", (killed, killed + 60))):
                for name, value in window_lag(db_url, sent, begin, end).items():
                    result[f"kill_lag_{label}_{name}"] = value
        if args.kill and "gateway" in args.kill and KILLED_WALL:  # its terminals back on a gateway, and when
            result.update(terminals_back(db_url, sent, KILLED_WALL[0], "gw-1" if args.topology == "cluster" else None))
        if args.source in ("simulator", "loadgen"):
            time.sleep(2.5)  # the gateway's next counters line
            result.update(gateway_counters(workdir))
        if args.source in ("simulator", "loadgen"):  # steady state: every terminal connected, still generating
            ramp_s = len(terms) / (RAMP_PER_S * 2.5 if args.source == "loadgen" else RAMP_PER_S) + 2.0
            result.update(steady_cpu(db_url, sent, CPU.t0_wall + ramp_s, CPU.t0_wall + args.duration))
        for name, seconds in cpu.items():
            result[f"cpu_s_{name}"] = seconds
            if count:
                result[f"cpu_us_per_pos_{name}"] = round(seconds / count * 1e6, 1)
        result["loadavg_1m_before_after"] = f"{load_before:.2f} / {load_after:.2f}"
        elapsed = max(last_growth - started, 1e-9)
        result.update({
            "source": args.source, "topology": args.topology, "terminals": len(terms), "target_rate_per_s": args.rate,
            "offered_rate_per_s": round(len(sent) / sending_s, 1),
            "sustained_rate_per_s": round(count / elapsed, 1),
            "drain_after_send_s": round(max(0.0, last_growth - started - sending_s), 2),
        })
        print(tabulate(sorted(result.items()), headers=["metric", "value"], tablefmt="github"))
        if args.pg_statements and count:
            print_statements(db_url, count)
        if args.logs is not None:
            import shutil

            args.logs.mkdir(parents=True, exist_ok=True)
            for log_file in [*workdir.glob("*.log"), *workdir.glob("*.out")]:
                shutil.copy(log_file, args.logs / log_file.name)
        return 0 if result["lost"] == 0 and result["duplicated"] == 0 and result["unexpected"] == 0 \
            and result.get("acked_lost", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
