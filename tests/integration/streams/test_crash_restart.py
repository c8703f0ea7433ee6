"""SIGKILL the worker mid-stream, start it again: no position lost, none duplicated, no spurious ACC log."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fleet.topics import JT808_UPLINK
from streams import payloads

from .conftest import start_worker
from .support import Producer, commit_group_at_end, insert_terminals, query, wait_for

TERMINALS = 20
PER_TERMINAL = 200   # 4000 positions
ACC_PERIOD = 50      # ACC flips every 50 fixes: 4 transitions per terminal


def test_sigkill_mid_stream_then_restart_loses_and_duplicates_nothing(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    terms = insert_terminals(pg_url, TERMINALS)
    ids = [t.device_id for t in terms]
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    sent: set[tuple[int, datetime]] = set()
    app_id = f"streams-crash-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)  # the worker will read exactly what follows
    producer = Producer(kafka_bootstrap)
    for i in range(PER_TERMINAL):
        for t in terms:
            fix_at = t0 + timedelta(seconds=i)
            producer.send(JT808_UPLINK, t.phone, payloads.location_report(
                t, fix_at=fix_at, speed_kmh=float(i % 90), acc_on=(i // ACC_PERIOD) % 2 == 0, seq=i))
            sent.add((t.device_id, fix_at))
    producer.flush()
    producer.close()
    total = len(sent)
    count_sql = "SELECT count(*) FROM gps WHERE device_id = ANY(%s)"

    # small batches so the run takes long enough to be interrupted
    settings = {"batch_size": 10, "batch_window_s": 0.05}
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, **settings)
    try:
        wait_for(lambda: query(pg_url, count_sql, (ids,))[0][0] >= total // 10, 60, "first rows", worker)
        worker.kill()
        at_kill = query(pg_url, count_sql, (ids,))[0][0]
        assert 0 < at_kill < total, f"killed too late to prove anything ({at_kill}/{total})"
    finally:
        worker.kill()

    again = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, **settings)
    try:
        wait_for(lambda: query(pg_url, count_sql, (ids,))[0][0] >= total, 90, f"{total} rows", again)
        time.sleep(2)  # let any replayed duplicates arrive, if there were any to arrive
        rows = query(pg_url, "SELECT device_id, fix_at FROM gps WHERE device_id = ANY(%s)", (ids,))
        assert len(rows) == total and set(rows) == sent
        last = query(pg_url, "SELECT device_id, fix_at FROM device_last WHERE device_id = ANY(%s)", (ids,))
        assert sorted(last) == sorted((i, t0 + timedelta(seconds=PER_TERMINAL - 1)) for i in ids)
        acc_count_sql = "SELECT count(*) FROM acc_state_log WHERE device_id = ANY(%s)"
        expected_acc = TERMINALS * (PER_TERMINAL // ACC_PERIOD)
        wait_for(lambda: query(pg_url, acc_count_sql, (ids,))[0][0] >= expected_acc, 30, "ACC log", again)
        acc = query(pg_url, "SELECT device_id, create_time, state FROM acc_state_log WHERE device_id = ANY(%s)",
                    (ids,))
        assert sorted(acc) == sorted((i, t0 + timedelta(seconds=k * ACC_PERIOD), int(k % 2 == 0))
                                     for i in ids for k in range(PER_TERMINAL // ACC_PERIOD))
        print(f"killed at {at_kill}/{total} rows; after restart {len(rows)} rows, {len(acc)} ACC transitions")
    finally:
        again.stop()
