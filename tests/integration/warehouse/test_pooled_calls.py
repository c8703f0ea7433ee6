"""warehouse.db.PooledCalls against the real PostgreSQL: one connection kept between calls, a connection the
server dropped replaced without an error, a database that is away an error after the timeout, not a hang, and a
service's run that ends however it ends (here: cancelled) leaving no connection behind."""

from __future__ import annotations

import asyncio
import threading
import time

import psycopg
import pytest

from fleet.services._system import free_port
from warehouse.db import PooledCalls, connect


def _pid(conn: psycopg.Connection[object]) -> int:
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def test_calls_share_a_kept_connection_and_a_connection_the_server_dropped_is_replaced(pg_url: str) -> None:
    calls = PooledCalls(pg_url, name="pooled-calls-test", max_size=1)
    try:
        first = calls(_pid)
        assert calls(_pid) == first  # kept: no new backend per call
        results: list[int] = []
        threads = [threading.Thread(target=lambda: results.append(calls(_pid))) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results == [first] * 4  # from worker threads too (the services call it through asyncio.to_thread)

        with connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        time.sleep(0.2)
        second = calls(_pid)  # checked as taken: the next call gets a new connection, not an error
        assert second != first
        assert calls(lambda conn, x: conn.execute("SELECT %s::int + 1", (x,)).fetchone()[0], 41) == 42
    finally:
        calls.close()


def test_a_database_that_is_away_fails_a_call_after_the_timeout_and_creating_it_does_not_wait() -> None:
    started = time.monotonic()
    calls = PooledCalls(f"postgresql://fleet@127.0.0.1:{free_port()}/fleet", name="pooled-calls-away", timeout_s=1.0)
    try:
        assert time.monotonic() - started < 0.5  # a service starts while its database is away
        with pytest.raises(psycopg.OperationalError):
            calls(_pid)
        assert time.monotonic() - started < 15
    finally:
        calls.close()


def _backend_alive(pg_url: str, pid: int) -> bool:
    with connect(pg_url, autocommit=True) as admin:
        return admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (1,)


def test_a_service_run_inside_kept_closes_its_connections_when_it_is_cancelled(pg_url: str) -> None:
    calls = PooledCalls(pg_url, name="pooled-calls-kept", max_size=1)
    pids: list[int] = []

    async def service_run() -> None:
        async with calls.kept():
            pids.append(await asyncio.to_thread(calls, _pid))
            await asyncio.Event().wait()  # a service runs until it is stopped

    async def main() -> None:
        task = asyncio.create_task(service_run())
        while not pids:
            await asyncio.sleep(0.01)
        assert _backend_alive(pg_url, pids[0])  # kept while the service runs
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    deadline = time.monotonic() + 5
    while _backend_alive(pg_url, pids[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _backend_alive(pg_url, pids[0])
