"""The Go load generator (simulator/loadgen, as benchmarks/ingest_bench.py --source loadgen runs it) against
the real spine: gateway subprocess -> Kafka -> streams worker -> PostgreSQL. 20 seeded terminals register,
authenticate and report for 5 s; every position they saw acknowledged must be one row of ``gps``, and
the rows of their devices must be exactly the positions they sent. Needs Go (fails, not skips, without)."""

from __future__ import annotations

import secrets
import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.phones import canonical_phone
from simulator import loadgen
from tests.integration.streams.support import Worker, commit_group_at_end, query, wait_for
from tests.support.processes import GatewayProcess

TERMINALS = 20
PREFIX = "0136"  # other suites use 0138 (demo seed), 0139 (gateway tests) and 9... (streams tests)


def _seed_terminals(pg_url: str, prefix: str, first: int, count: int) -> dict[str, int]:
    """An enterprise with ``count`` cars, each with a device of phone prefix + 8-digit index (as the load
    generator numbers its terminals) and no auth code yet; returns the loadgen's phone -> device id."""
    tag = secrets.token_hex(3)
    ids: dict[str, int] = {}
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (f"loadgen-it {tag}", "loadgen-it")).fetchone()
        assert row is not None
        enterprise_id = row[0]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{enterprise_id}/", enterprise_id))
        for index in range(first, first + count):
            phone = f"{prefix}{index:08d}"
            car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                               (enterprise_id, f"L{tag}{index % 1000:03d}")).fetchone()
            assert car is not None
            device = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
                (enterprise_id, car[0], canonical_phone(phone), f"SIM{index % 10**7:07d}")).fetchone()
            assert device is not None
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device[0], car[0]))
            ids[phone] = int(device[0])
    return ids


def test_every_position_the_loadgen_saw_acknowledged_is_one_row_in_gps(
        pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], tmp_path: Path,
        free_port: Callable[[], int]) -> None:
    try:
        binary = loadgen.ensure_built()
    except loadgen.LoadgenUnavailable as exc:
        pytest.fail(f"{exc}: this test needs Go (/usr/local/go/bin/go on this kind of machine)")
    first = 1 + secrets.randbelow(10**7) * 9  # a fresh range of phones per run (same database, other runs)
    devices = _seed_terminals(pg_url, PREFIX, first, TERMINALS)
    app_id = f"loadgen-it-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)  # the worker reads what this test's gateway writes
    worker = Worker(stack_env, tmp_path, app_id, batch_window_s=0.1)
    gateway = GatewayProcess(stack_env, free_port(), tmp_path / "gateway.log", gateway_id="gw-loadgen-it")
    worker.start()
    try:
        gateway.start()
        wait_for(lambda: "Worker]: Ready" in worker.log_tail(400) or worker.proc.poll() is not None,  # type: ignore[union-attr]
                 60, "worker ready", worker)
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()

        # 1 report a second per terminal: fix clocks 1 s apart follow the wall clock (fix-start 0)
        options = loadgen.Options(port=gateway.port, terminals=TERMINALS, first=first, prefix=PREFIX,
                                  rate=float(TERMINALS), duration_s=5.0, drain_s=15.0, ack_timeout_s=5.0,
                                  ramp_per_s=100.0)
        log, stats_path = tmp_path / "loadgen.log", tmp_path / "loadgen.json"
        done = subprocess.run(options.argv(binary, auth=tmp_path / "auth.json", log=log, stats=stats_path),
                              capture_output=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace") + gateway.log_tail()
        stats: dict[str, Any] = loadgen.load_stats(stats_path)

        assert stats["registrations"] == TERMINALS and stats["auth_failures"] == 0, (stats, gateway.log_tail())
        assert stats["sent"] == stats["acked"] == stats["generated"] and stats["unacked"] == 0, stats
        assert TERMINALS * 4 <= stats["sent"] <= TERMINALS * 6, stats  # 5 s at one a second each
        assert stats["rejected"] == 0 and stats["bad_frames"] == 0, stats
        assert 0 < stats["cpu_s"] < stats["wall_s"] and stats["ack_p50_ms"] > 0, stats

        sent: set[tuple[int, datetime]] = set()
        acked: set[tuple[int, datetime]] = set()
        for kind, phone, fix_at, _ in loadgen.read_log(log):
            (sent if kind == "s" else acked).add((devices[phone], fix_at))
        assert len(acked) == stats["acked"] and acked == sent, "the log's a lines are the sent positions"

        ids = sorted(devices.values())
        count_sql = "SELECT count(*) FROM gps WHERE device_id = ANY(%s)"
        wait_for(lambda: query(pg_url, count_sql, (ids,))[0][0] >= len(acked), 30,
                 f"{len(acked)} acknowledged positions in gps", worker)
        time.sleep(1)  # anything beyond them (a duplicate, a stray row) would arrive meanwhile
        rows = query(pg_url, "SELECT device_id, fix_at FROM gps WHERE device_id = ANY(%s)", (ids,))
        stored = set(rows)
        assert len(rows) == len(stored), "duplicated rows"
        assert not acked - stored, f"{len(acked - stored)} acknowledged positions missing: {sorted(acked - stored)[:5]}"
        assert stored == sent, f"rows that were never sent: {sorted(stored - sent)[:5]}"
        assert {device for device, _ in stored} == set(ids), "every terminal's positions are stored"
        print(f"loadgen: {stats['acked']} acknowledged = {len(rows)} gps rows, ack p50 {stats['ack_p50_ms']} ms,"
              f" {stats['cpu_s'] / stats['acked'] * 1e6:.0f} µs CPU per position (with {TERMINALS} registrations)")
    finally:
        gateway.stop()
        worker.stop()
