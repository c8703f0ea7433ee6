"""The cluster topology survives losing a gateway and a worker mid-stream (docs/scaling.md, "The cluster as
processes"): three KRaft Kafka nodes (replication factor 3, min.insync.replicas 2), two gateways behind
HAProxy (TCP, PROXY protocol v2, the gateways reading it), two stream workers in one consumer group, all as
``fleet up --topology cluster`` lays them out. The Go load generator's terminals report through HAProxy;
one gateway and one worker are killed with SIGKILL mid-stream. Every position a terminal saw acknowledged
must be in ``gps`` exactly once, and the dead gateway's terminals must be back, through HAProxy, on the other.
Needs Go and HAProxy (fails, not skips, without)."""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fleet.cluster import COMPOSE_SETTINGS, balancer_config
from fleet.kafka_admin import ensure_topics
from fleet.services.kafka_cluster import KafkaCluster
from simulator import loadgen
from tests.integration.streams.support import Worker, commit_group_at_end, query, wait_for
from tests.integration.test_loadgen_pipeline import _seed_terminals
from tests.support.processes import Balancer, GatewayProcess, ServiceProcess
from tests.support.stack import TEST_BROKER_JVM

TERMINALS = 40
RATE = 80.0  # positions/s in total: 2 a second per terminal
DURATION_S = 24.0
KILL_AFTER_S = 8.0
PREFIX = "0135"  # other suites use 0136 (loadgen pipeline), 0138 (demo seed), 0139 (gateway tests)


@pytest.fixture
def kafka_cluster(tmp_path: Path, free_port: Callable[[], int]) -> Iterator[KafkaCluster]:
    cluster = KafkaCluster(tmp_path / "kafka", [(node, free_port(), free_port()) for node in (1, 2, 3)],
                           replication_factor=3, min_insync_replicas=2, heap="256m",
                           jvm_extra=TEST_BROKER_JVM)  # the controllers' no-op records stay at Kafka's default
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop(timeout_s=10)


def _online_gateways(pg_url: str, ids: list[int]) -> dict[int, list[str]]:
    """Each device's gateways, in the order its sessions came online."""
    rows = query(pg_url, "SELECT device_id, gateway_id FROM device_online_log WHERE device_id = ANY(%s) AND state = 1"
                         " ORDER BY at", (ids,))
    found: dict[int, list[str]] = {}
    for device_id, gateway_id in rows:
        found.setdefault(device_id, []).append(gateway_id)
    return found


def test_killing_a_gateway_and_a_worker_mid_stream_loses_and_duplicates_no_acknowledged_position(
        pg_url: str, kafka_cluster: KafkaCluster, tmp_path: Path, free_port: Callable[[], int]) -> None:
    try:
        binary = loadgen.ensure_built()
    except loadgen.LoadgenUnavailable as exc:
        pytest.fail(f"{exc}: this test needs Go (/usr/local/go/bin/go on this kind of machine)")
    started = time.monotonic()
    bootstrap = kafka_cluster.bootstrap
    partitions = 4  # enough for two workers; the cluster's own 12 would only slow the group's rebalance here
    ensure_topics(bootstrap, partitions, replication_factor=3, configs={"min.insync.replicas": "2"})
    env = {**os.environ, "FLEET_DATABASE_URL": pg_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
           **COMPOSE_SETTINGS, "FLEET_KAFKA_TOPIC_PARTITIONS": str(partitions)}
    first = 1 + secrets.randbelow(10**7) * 9
    devices = _seed_terminals(pg_url, PREFIX, first, TERMINALS)
    ids = sorted(devices.values())
    app_id = f"cluster-it-{secrets.token_hex(4)}"
    commit_group_at_end(bootstrap, app_id)

    for i in (1, 2):
        (tmp_path / f"w{i}").mkdir()
    workers = [Worker(env, tmp_path / f"w{i}", app_id, batch_window_s=0.1, session_timeout_s=6.0) for i in (1, 2)]
    gateways = [GatewayProcess(env, free_port(), tmp_path / f"gateway-{i}.log", gateway_id=f"gw-c{i}") for i in (1, 2)]
    terminals_port = free_port()
    balancer = Balancer(balancer_config(terminals_at=("127.0.0.1", terminals_port),
                                        gateway_ports=[g.port for g in gateways], browsers_at=("127.0.0.1", free_port()),
                                        api_ports=[], stats_port=free_port()), tmp_path, terminals_port)
    processes: list[ServiceProcess] = [*workers, *gateways, balancer]
    generator: subprocess.Popen[bytes] | None = None
    try:
        for worker in workers:
            worker.start()
        for gateway in gateways:
            gateway.start()
        balancer.start()
        for worker in workers:
            wait_for(lambda w=worker: "Worker]: Ready" in w.log_tail(400) or w.proc.poll() is not None,  # type: ignore[misc]
                     90, "worker ready", worker)
            assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()

        options = loadgen.Options(port=balancer.port, terminals=TERMINALS, first=first, prefix=PREFIX, rate=RATE,
                                  duration_s=DURATION_S, drain_s=40.0, ack_timeout_s=2.0, ramp_per_s=200.0)
        log, stats_path = tmp_path / "loadgen.log", tmp_path / "loadgen.json"
        generator = subprocess.Popen(options.argv(binary, auth=tmp_path / "auth.json", log=log, stats=stats_path),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        count_sql = "SELECT count(*) FROM gps WHERE device_id = ANY(%s)"
        wait_for(lambda: query(pg_url, count_sql, (ids,))[0][0] >= TERMINALS * 4, 30, "first positions", workers[0])
        time.sleep(max(0.0, KILL_AFTER_S - 4.0))
        before = _online_gateways(pg_url, ids)
        on_dead = {device for device, gws in before.items() if gws[-1] == "gw-c1"}
        assert len(before) == TERMINALS and on_dead, f"both gateways should hold terminals: {before}"
        stored_at_kill = query(pg_url, count_sql, (ids,))[0][0]
        gateways[0].kill()
        workers[0].kill()

        _, err = generator.communicate(timeout=DURATION_S + 60)
        assert generator.returncode == 0, err.decode(errors="replace") + gateways[1].log_tail()
        stats: dict[str, Any] = loadgen.load_stats(stats_path)
        assert stats["sent"] == stats["acked"] == stats["generated"] and stats["unacked"] == 0, stats
        assert stats["connects"] >= TERMINALS + len(on_dead), stats  # the dead gateway's terminals reconnected
        assert stats["rejected"] == 0 and stats["bad_frames"] == 0, stats

        acked: set[tuple[int, datetime]] = set()
        for kind, phone, fix_at, _ in loadgen.read_log(log):
            if kind == "a":
                acked.add((devices[phone], fix_at))
        assert len(acked) == stats["acked"]
        wait_for(lambda: query(pg_url, count_sql, (ids,))[0][0] >= len(acked), 60,
                 f"{len(acked)} acknowledged positions in gps", workers[1])
        time.sleep(2)  # a duplicate replayed by the surviving worker would arrive meanwhile
        rows = query(pg_url, "SELECT device_id, fix_at FROM gps WHERE device_id = ANY(%s)", (ids,))
        assert len(rows) == len(set(rows)), f"{len(rows) - len(set(rows))} duplicated rows in gps"
        assert set(rows) == acked, (f"missing {sorted(acked - set(rows))[:5]}, never acknowledged "
                                    f"{sorted(set(rows) - acked)[:5]}")

        after = _online_gateways(pg_url, ids)
        moved = {device for device in on_dead if after[device][-1] == "gw-c2"}
        assert moved == on_dead, f"terminals of the killed gateway not back on the other: {on_dead - moved}"
        print(f"cluster: {len(acked)} acknowledged = {len(rows)} gps rows ({stored_at_kill} stored at the kill),"
              f" {len(on_dead)} terminals moved gw-c1 -> gw-c2, {stats['connects']} connects,"
              f" ack p99 {stats['ack_p99_ms']} ms, {time.monotonic() - started:.0f} s")
    finally:
        if generator is not None and generator.poll() is None:
            generator.kill()
            generator.wait()
        for process in reversed(processes):
            process.stop()
